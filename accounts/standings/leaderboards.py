"""Leaderboards per level (API.md, Leaderboards and statistics): best times, best 3BV/s, best
and current streaks. Reads only; the tables are kept by accounts.standings.stats (the writes) and the
chain rule is accounts.standings.records.chain_filter.

* times and speed read the record chains (accounts.standings.models.PersonalRecord): a rolling period
  starting at `c` is `achieved_at >= c AND prev_at < c` -- one row per player, their best in
  the period, with no grouping -- and the all-time board is the chain heads;
* streaks read PlayerStats.

Every board is ordered by a 3-part key (score, when it was achieved, user id): ties go to
who got there first. On PostgreSQL a board's size, a player's rank and the start of page N
come from the board's histogram (accounts migration 0006, `accounts_board_count`, kept exact
by triggers; docs/STATS.md, "How the boards stay fast"): the buckets before a row, then an
index walk inside its bucket only, so no read costs in proportion to the board or the rank.
`around=me` reads the rows around the player by keyset. SQLite (dev) reads the boards
directly (`direct_page`: O(rows) counts and OFFSET walks), which is also the tests' reference.

Over 400 lines on purpose: every board's SQL, its paging, its histogram and `around=me` read
the same record chains and are kept together, so one reading of the chain rule serves them all.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID

from django.db import connections, transaction
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from accounts.models import RANKED_LEVELS, BoardPool, User
from accounts.standings.models import PersonalRecord, PlayerStats, RecordKind
from accounts.standings.records import MODES, bucket_for, chain_filter
from demineur_site.db_router import lagging_reads
from demineur_site.errors import DomainError
from demineur_site.formats import iso

BOARDS = ("times", "speed", "streaks")
# Rolling periods (RULES.md, Statistics); None is "all".
PERIODS: dict[str, timedelta | None] = {
    "all": None,
    "year": timedelta(days=365),
    "month": timedelta(days=30),
    "week": timedelta(days=7),
    "day": timedelta(days=1),
}
STREAK_SORTS = ("best", "current")  # the boards with a histogram (migration 0006)
# `sort=skill` (API.md, No-guess games and analysis): the best skill streak, read directly.
SORTS = (*STREAK_SORTS, "skill")
# `?players=` (API.md): humans by default, or the bots' own boards; never both together.
PLAYERS = {"humans": BoardPool.HUMAN, "bots": BoardPool.BOT}
# Periods at least this long are counted by difference (see _sql): most links are inside.
LONG_PERIOD = timedelta(days=180)

_RECORDS = PersonalRecord._meta.db_table
_STATS = PlayerStats._meta.db_table
_USERS = User._meta.db_table


# `?style=` (docs/STATS.md, No-flag records) on the times and speed boards: every win (`all`,
# the default) or only the wins without a flag ever placed (`nf`).
STYLES = ("all", "nf")


@dataclass(frozen=True)
class BoardSpec:
    level: str
    board: str  # times | speed | streaks
    period: str = "all"
    sort: str = "best"  # streaks only
    pool: str = BoardPool.HUMAN
    style: str = "all"  # times and speed only

    @property
    def kind(self) -> RecordKind:
        """The record chains a times or speed board reads."""
        if self.board == "times":
            return RecordKind.NF_TIME if self.style == "nf" else RecordKind.TIME
        return RecordKind.NF_SPEED if self.style == "nf" else RecordKind.SPEED


def board_spec(
    *,
    level: str,
    board: str,
    period: str | None,
    sort: str | None,
    players: str | None = None,
    mode: str | None = None,
    style: str | None = None,
) -> BoardSpec:
    """Validate a board address: unknown level or board 404, unknown period, sort, players,
    mode or style 400. Custom boards are never ranked, so `custom` is not a leaderboard level.
    A no-guess board is its level's no-guess bucket (records.bucket_for): `level` is then e.g.
    `expert:ng` in every query. An NF board (`style=nf`) reads the NF record chains."""
    spec = _board_spec(level=level, board=board, period=period, sort=sort)
    spec = replace(spec, level=bucket_for(level, no_guess_mode(mode)), style=_style(spec, style))
    return spec if players is None else replace(spec, pool=pool_of(players))


def _style(spec: BoardSpec, style: str | None) -> str:
    if style is None:
        return "all"
    if style not in STYLES:
        raise DomainError("invalid_style", f"Unknown style {style!r}.", {"styles": list(STYLES)})
    if style == "nf" and spec.board == "streaks":
        raise DomainError("invalid_style", "Streak boards have no NF style.", {"styles": ["all"]})
    return style


def no_guess_mode(mode: str | None) -> bool:
    """`?mode=` (API.md, No-guess games) on every board, solo and race: `classic` by default,
    or `no_guess`."""
    if mode is None:
        return False
    if mode not in MODES:
        raise DomainError("invalid_mode", f"Unknown mode {mode!r}.", {"modes": list(MODES)})
    return mode == "no_guess"


def pool_of(players: str | None) -> str:
    """`?players=` (API.md) on every board, solo and race: humans by default, or the bots'."""
    if players is None:
        return BoardPool.HUMAN
    if players not in PLAYERS:
        raise DomainError(
            "invalid_players", f"Unknown players {players!r}.", {"players": list(PLAYERS)}
        )
    return PLAYERS[players]


def _board_spec(*, level: str, board: str, period: str | None, sort: str | None) -> BoardSpec:
    if level not in RANKED_LEVELS:
        raise DomainError(
            "not_found",
            "No leaderboard for this level: only the six ranked levels have one.",
            {"levels": list(RANKED_LEVELS)},
        )
    if board not in BOARDS:
        raise DomainError("not_found", "No such leaderboard.", {"boards": list(BOARDS)})
    if board == "streaks":
        if period not in (None, "all"):
            raise DomainError(
                "invalid_period", "Streak boards have no period.", {"periods": ["all"]}
            )
        if sort is not None and sort not in SORTS:
            raise DomainError("invalid_sort", f"Unknown sort {sort!r}.", {"sorts": list(SORTS)})
        return BoardSpec(level=level, board=board, sort=sort or "best")
    if period is not None and period not in PERIODS:
        raise DomainError(
            "invalid_period", f"Unknown period {period!r}.", {"periods": list(PERIODS)}
        )
    if sort is not None:
        raise DomainError("invalid_sort", "Only streak boards take `sort`.", {})
    return BoardSpec(level=level, board=board, period=period or "all")


# --- the SQL of each board ------------------------------------------------------------------


@dataclass(frozen=True)
class _Sql:
    table: str
    where: str  # over alias t
    params: list[Any]
    key: tuple[str, str, str]  # ascending = better first
    columns: str  # what a row shows, over alias t
    count: tuple[str, list[Any]] | None = None  # a cheaper way to count the rows, if any
    # ... and to count the rows ahead of a key (the key's 3 values are appended 2 times)
    ahead: tuple[str, list[Any]] | None = None


def _sql(spec: BoardSpec, now: datetime) -> _Sql:
    if spec.board == "streaks" and spec.sort == "skill":
        return _Sql(
            table=_STATS,
            where="t.level = %s AND t.pool = %s AND t.best_skill_streak > 0",
            params=[spec.level, spec.pool],
            key=("t.best_skill_streak_key", "t.best_skill_streak_at", "t.user_id"),
            columns=(
                "t.best_skill_streak, t.skill_streak, t.best_streak, t.current_streak,"
                " t.best_skill_streak_at"
            ),
        )
    if spec.board == "streaks":
        col = "best_streak" if spec.sort == "best" else "current_streak"
        # `<col>_key` is the negated length (a stored column): longest first, then who got
        # there first, all ascending, so one row comparison orders and ranks.
        return _Sql(
            table=_STATS,
            where=f"t.level = %s AND t.pool = %s AND t.{col} > 0",
            params=[spec.level, spec.pool],
            key=(f"t.{col}_key", f"t.{col}_at", "t.user_id"),
            columns=(
                f"t.best_streak, t.current_streak, t.{col}_first_game, t.{col}_last_game,"
                f" t.{col}_at"
            ),
        )
    kind = spec.kind
    span = PERIODS[spec.period]
    cutoff = None if span is None else now - span
    chain, chain_params = chain_filter("t", cutoff)
    where = f"t.level = %s AND t.pool = %s AND t.kind = %s AND {chain}"
    params = [spec.level, spec.pool, kind, *chain_params]
    count = ahead = None
    if span is not None and cutoff is not None and span >= LONG_PERIOD:
        # Every link has prev_at < achieved_at, so the links with prev_at < c <= achieved_at
        # are those with prev_at < c minus those with achieved_at < c: plain range counts
        # (the second one small, most links being inside a long period) instead of walking
        # the whole period through a two-sided filter.
        base = (
            f"SELECT count(*) FROM {_RECORDS} t WHERE t.level = %s AND t.pool = %s AND t.kind = %s"
        )
        board = [spec.level, spec.pool, kind]
        count = (
            f"SELECT ({base} AND t.prev_at < %s) - ({base} AND t.achieved_at < %s)",
            [*board, cutoff, *board, cutoff],
        )
        # The key's three values go after each half's own parameters: see _count_and_rank.
        cmp = " AND (t.score, t.achieved_at, t.user_id) < (%s, %s, %s)"
        ahead = (
            f"SELECT ({base} AND t.prev_at < %s{cmp}) - ({base} AND t.achieved_at < %s{cmp})",
            [*board, cutoff, *board, cutoff],
        )
    return _Sql(
        table=_RECORDS,
        where=where,
        params=params,
        key=("t.score", "t.achieved_at", "t.user_id"),
        columns="t.time_ms, t.bbbv_per_s, t.game_id, t.achieved_at",
        count=count,
        ahead=ahead,
    )


def _uuid(value: Any) -> str | None:
    """Raw SQL gives a UUID on PostgreSQL and 32 hex digits on SQLite (dev): one spelling."""
    return None if value is None else str(value if isinstance(value, UUID) else UUID(str(value)))


def _at(value: Any) -> str | None:
    if isinstance(value, str):  # SQLite (dev) returns timestamps as text
        value = parse_datetime(value)
        if value is not None and timezone.is_naive(value):
            value = timezone.make_aware(value, UTC)
    return iso(value)


def _row(spec: BoardSpec, rank: int, username: str, values: tuple[Any, ...]) -> dict[str, Any]:
    """One row: `rank` and `player`, the board's own columns, then `achieved_at` (the last of
    `values`, as _Sql.columns reads them). Which players a board ranks is the board's own
    (`?players=`): every row of a bot board is a bot's, so rows do not repeat it."""
    *columns, at = values
    return {"rank": rank, "player": username, **_columns(spec, columns), "achieved_at": _at(at)}


def _columns(spec: BoardSpec, values: list[Any]) -> dict[str, Any]:
    if spec.board == "streaks" and spec.sort == "skill":
        best_skill, skill, best, current = values
        return {
            "best_skill_streak": best_skill,
            "skill_streak": skill,
            "best_streak": best,
            "current_streak": current,
            "game_id": None,  # a skill streak's games are not kept
        }
    if spec.board == "streaks":
        best, current, first, last = values
        return {
            "best_streak": best,
            "current_streak": current,
            # The game that set the row: the last win of the ranked streak.
            "game_id": _uuid(last),
            "streak_first_game_id": _uuid(first),
            "streak_last_game_id": _uuid(last),
        }
    time_ms, speed, game_id = values
    row: dict[str, Any] = {}
    if spec.board != "times":  # speed
        row["bbbv_per_s"] = round(speed, 3) if speed is not None else None
    row["time_ms"] = time_ms
    row["game_id"] = _uuid(game_id)
    return row


# The database alias the board's raw SQL runs on: set by leaderboard_page (the replica when
# the router allows it, docs/DEPLOYMENT.md), the primary otherwise.
_alias: ContextVar[str] = ContextVar("leaderboard_alias", default="default")


def _fetch(sql: str, params: list[Any]) -> list[tuple[Any, ...]]:
    connection = connections[_alias.get()]
    # Timestamps as the backend stores them (SQLite, in dev, compares them as text).
    adapt = connection.ops.adapt_datetimefield_value
    params = [adapt(p) if isinstance(p, datetime) else p for p in params]
    with connection.cursor() as cur:
        cur.execute(sql, params)
        return list(cur.fetchall())


def _count(q: _Sql) -> int:
    sql, params = q.count or (f"SELECT count(*) FROM {q.table} t WHERE {q.where}", q.params)
    return int(_fetch(sql, params)[0][0])


def _rows(
    q: _Sql,
    *,
    extra: str = "",
    extra_params: list[Any] | None = None,
    descending: bool = False,
    limit: int,
    offset: int = 0,
) -> list[tuple[Any, ...]]:
    """(key..., user id, columns..., username) in board order. The inner query reads only
    what the board's index covers (an index-only scan, however deep the OFFSET); the table
    and the user are read for the returned rows only."""
    return _fetch(
        _rows_sql(q, extra, descending), [*q.params, *(extra_params or []), limit, offset]
    )


def _rows_sql(q: _Sql, extra: str = "", descending: bool = False) -> str:
    direction = " DESC" if descending else ""
    order = ", ".join(f"{k}{direction}" for k in q.key)
    keys = ", ".join(f"{k} AS k{i}" for i, k in enumerate(q.key))
    inner = (
        f"SELECT {keys}, t.id AS rid FROM {q.table} t WHERE {q.where}{extra}"
        f" ORDER BY {order} LIMIT %s OFFSET %s"
    )
    outer_order = ", ".join(f"p.k{i}{direction}" for i in range(3))
    return (
        f"SELECT p.k0, p.k1, p.k2, t.user_id, {q.columns}, u.username FROM ({inner}) p"
        f" JOIN {q.table} t ON t.id = p.rid JOIN {_USERS} u ON u.id = t.user_id"
        f" ORDER BY {outer_order}"
    )


def _key_cmp(q: _Sql, op: str) -> str:
    return f" AND ({', '.join(q.key)}) {op} (%s, %s, %s)"


def _viewer_row(q: _Sql, user_id: int) -> tuple[Any, ...] | None:
    """The viewer's (key..., columns...) on the board, or None. No ORDER BY: at most one row
    per player matches, found through the player's own index."""
    found = _fetch(
        f"SELECT {', '.join(q.key)}, {q.columns} FROM {q.table} t WHERE {q.where} AND t.user_id = %s",
        [*q.params, user_id],
    )
    return found[0] if found else None


def _count_and_rank(q: _Sql, key: tuple[Any, Any, Any]) -> tuple[int, int]:
    """The board's size and the viewer's rank: by difference for a long period, else from
    one walk of the board's index (measured faster than a count and a rank apart)."""
    if q.count is not None and q.ahead is not None:
        sql, params = q.ahead
        half = len(params) // 2  # each half: the board's parameters, then the key
        ahead = _fetch(sql, [*params[:half], *key, *params[half:], *key])[0][0]
        return _count(q), int(ahead) + 1
    rows = _fetch(
        f"SELECT count(*), count(*) FILTER (WHERE ({', '.join(q.key)}) < (%s, %s, %s))"
        f" FROM {q.table} t WHERE {q.where}",
        [*key, *q.params],
    )
    return int(rows[0][0]), int(rows[0][1]) + 1


@dataclass(frozen=True)
class BoardPage:
    count: int
    page: int
    page_size: int
    results: list[dict[str, Any]]
    me: dict[str, Any] | None

    @property
    def last_page(self) -> int:
        return max(1, math.ceil(self.count / self.page_size))


def _board_page(
    spec: BoardSpec,
    raw: list[tuple[Any, ...]],
    *,
    count: int,
    page: int,
    page_size: int,
    me: dict[str, Any] | None,
) -> BoardPage:
    """Page `page` of a board from `raw`, its rows as `_rows` reads them, in board order:
    ranked from the page's first rank on."""
    first_rank = (page - 1) * page_size + 1
    results = [
        _row(spec, first_rank + i, values[-1], tuple(values[4:-1])) for i, values in enumerate(raw)
    ]
    return BoardPage(count=count, page=page, page_size=page_size, results=results, me=me)


def _page_rows(q: _Sql, *, count: int, offset: int, size: int) -> list[tuple[Any, ...]]:
    """Rows offset+1 .. offset+size. A page past the middle is read backwards from the end,
    so the OFFSET an index walk skips is never more than half the board."""
    wanted = max(0, min(size, count - offset))
    from_end = count - offset - wanted
    if wanted and from_end < offset:
        return list(reversed(_rows(q, descending=True, limit=wanted, offset=from_end)))
    return _rows(q, limit=size, offset=offset)


def leaderboard_page(*, spec: BoardSpec, ask: PageAsk, now: datetime | None = None) -> BoardPage:
    """One page of a board, with `me` (the viewer's row, or None), by PageAsk.page_of's rule. A
    board may lag: it is read on the replica when there is one (demineur_site.db_router), in
    one transaction there."""
    with board_snapshot() as alias:
        token = _alias.set(alias)
        try:
            return _leaderboard_page(spec, ask, now=now)
        finally:
            _alias.reset(token)


@contextmanager
def board_snapshot() -> Iterator[str]:
    """Every board's reads (solo and daily) in one transaction on the database alias it
    yields: the replica when there is one (demineur_site.db_router), else the primary."""
    with lagging_reads() as alias:
        connection = connections[alias]
        outermost = not connection.in_atomic_block
        with transaction.atomic(using=alias):
            if connection.vendor == "postgresql":
                with connection.cursor() as cur:
                    if outermost:
                        # The histogram, the walk and the page read one snapshot, so the
                        # count, the rank and the rows always agree.
                        cur.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
                    # A parallel plan costs more in worker start-up than it saves on
                    # scans of this size, and makes the latency spiky on a small machine.
                    cur.execute("SET LOCAL max_parallel_workers_per_gather = 0")
            yield alias


@dataclass(frozen=True)
class PageAsk:
    """What is asked of any board (solo, daily, race, an arena's standings): page `page` of
    `page_size` rows and `viewer`'s own row as `me` (None: signed out), or with `around_me`
    the page holding that row. The REST doors read it from the query
    (accounts.standings.api.board_paging)."""

    page: int
    page_size: int
    viewer: User | None = None
    around_me: bool = False

    def page_of(self, *, count: int, me: dict[str, Any] | None) -> tuple[int, int]:
        """Every board's paging rule, for a board of `count` rows and the viewer's row `me`
        (None: they have none): the page to read and the offset of its first row. With
        `around_me` the page holding `me` (the first page without it); else `page`, 404 past
        the last one (page 1 of an empty board is an empty page)."""
        if self.around_me:
            page = (me["rank"] - 1) // self.page_size + 1 if me is not None else 1
        elif self.page > max(1, math.ceil(count / self.page_size)):
            raise DomainError("not_found", "Invalid page: past the last one.", {"count": count})
        else:
            page = self.page
        return page, (page - 1) * self.page_size


def sliced_page(
    rows: Any,
    ask: PageAsk,
    *,
    count: int,
    me: dict[str, Any] | None,
    row: Callable[[Any, int], dict[str, Any]],
) -> BoardPage:
    """A page of a board read by slicing `rows` (a queryset in board order: the race boards,
    an arena's standings), by PageAsk.page_of's rule; `row(item, rank)` is one result."""
    page, start = ask.page_of(count=count, me=me)
    end = start + ask.page_size
    results = [row(item, start + i + 1) for i, item in enumerate(rows[start:end])]
    return BoardPage(count=count, page=page, page_size=ask.page_size, results=results, me=me)


# --- board counts (migration 0006): a histogram per board, kept by triggers ---------------

# Buckets per e-fold of 1 + |score| (migration 0006's accounts_board_score_bucket).
BUCKETS_PER_E = 300
_COUNTS = "accounts_board_count"
_ANCHORS = "accounts_board_anchor"
# A streak bucket is (-length) * STREAK_WEEKS + the week (since 1970) the length was reached.
STREAK_WEEKS = 100_000
WEEK_SECONDS = 7 * 86400


def board_name(spec: BoardSpec) -> str:
    """The board's name in accounts_board_count / accounts_board_anchor."""
    if spec.board == "streaks":
        return f"streak:{spec.sort}"
    return f"{spec.kind}:{spec.period}"


def _bucket_sql(spec: BoardSpec) -> str:
    if spec.board == "streaks":
        col = "best_streak" if spec.sort == "best" else "current_streak"
        return f"accounts_board_streak_bucket(t.{col}, t.{col}_at)"
    return "accounts_board_score_bucket(t.score)"


def _bucket_floor(spec: BoardSpec, bucket: int) -> tuple[str, list[Any]]:
    """A condition over alias t, in index order, true for the rows of `bucket` and after."""
    if spec.board == "streaks":
        col = "best_streak" if spec.sort == "best" else "current_streak"
        key = bucket // STREAK_WEEKS  # the negated length
        week = datetime.fromtimestamp((bucket - key * STREAK_WEEKS) * WEEK_SECONDS, UTC)
        return f" AND (t.{col}_key, t.{col}_at) >= (%s, %s)", [key, week]
    sign = 1 if bucket >= 0 else -1
    low = sign * (math.exp(abs(bucket) / BUCKETS_PER_E) - 1)
    # A little below the bucket's first score (float rounding), then the exact bucket test.
    return (
        " AND t.score >= %s AND accounts_board_score_bucket(t.score) >= %s",
        [low - 1e-9 * (1 + abs(low)), bucket],
    )


def _bucket_walk(
    spec: BoardSpec, q: _Sql, bucket: int, key: tuple[Any, Any, Any]
) -> tuple[str, list[Any]]:
    """Count the rows of `bucket` ahead of `key` (a row of that bucket). Both ends are plain
    comparisons on the index's leading columns, so the scan starts and stops at the bucket's
    edges (with row comparisons PostgreSQL 15 walked on to the end of the board)."""
    if spec.board == "streaks":
        col = "best_streak" if spec.sort == "best" else "current_streak"
        key_value = bucket // STREAK_WEEKS
        week = datetime.fromtimestamp((bucket - key_value * STREAK_WEEKS) * WEEK_SECONDS, UTC)
        bounds = f" AND t.{col}_key = %s AND t.{col}_at >= %s AND t.{col}_at <= %s"
        params: list[Any] = [key_value, week, key[1]]
    else:
        floor_sql, floor_params = _bucket_floor(spec, bucket)
        bounds = f"{floor_sql} AND t.score <= %s"
        params = [*floor_params, key[0]]
    # Ties as a filter spelled out, not a row comparison: in an index condition a row
    # comparison also spoils the scan's start on PostgreSQL 15 (measured 12 ms, not 0.2 ms).
    a, b, c = q.key
    ties = f" AND ({a} < %s OR ({a} = %s AND ({b} < %s OR ({b} = %s AND {c} < %s))))"
    return (
        f"SELECT count(*) FROM {q.table} t WHERE {q.where}{bounds}{ties}",
        [*q.params, *params, key[0], key[0], key[1], key[1], key[2]],
    )


@dataclass(frozen=True)
class Histogram:
    """A board's rows per bucket, in board order (buckets with no row left out): the solo
    boards' and the daily board's (accounts.standings.daily)."""

    buckets: list[tuple[int, int]]

    @property
    def count(self) -> int:
        return sum(n for _, n in self.buckets)

    def before(self, bucket: int) -> int:
        return sum(n for b, n in self.buckets if b < bucket)

    def locate(self, offset: int) -> tuple[int, int] | None:
        """The bucket holding row offset + 1 and the rows before it, or None past the end."""
        seen = 0
        for b, n in self.buckets:
            if seen + n > offset:
                return b, seen
            seen += n
        return None


def _histogram(spec: BoardSpec, now: datetime) -> Histogram:
    """The board's counts per bucket. A rolling period's counts are exact at its anchored
    cutoff; the links with a time between that cutoff and this read's are counted in or out
    here (a minute's worth when the anchors are kept moving: maintain_boards)."""
    rows = _fetch(*_histogram_sql(spec, now))
    return Histogram([(int(b), int(n)) for b, n in rows])


def _histogram_sql(spec: BoardSpec, now: datetime) -> tuple[str, list[Any]]:
    name = board_name(spec)
    sql = f"SELECT bucket, n FROM {_COUNTS} WHERE level = %s AND pool = %s AND board = %s"
    params: list[Any] = [spec.level, spec.pool, name]
    span = PERIODS.get(spec.period) if spec.board != "streaks" else None
    if span is not None:
        c = now - span
        # The anchor first, then the window as literal bounds: the planner then sees how few
        # links fall in it (with the bounds from a join it walked the whole level). Both read
        # the same snapshot (leaderboard_page's REPEATABLE READ transaction).
        anchor = _fetch(
            f"SELECT cutoff FROM {_ANCHORS} WHERE level = %s AND pool = %s AND board = %s",
            [spec.level, spec.pool, name],
        )
        c0 = anchor[0][0] if anchor else c
        if c0 != c:
            lo, hi = min(c0, c), max(c0, c)
            kind = spec.kind
            sql += (
                " UNION ALL SELECT accounts_board_score_bucket(r.score),"
                " (r.prev_at < %s AND r.achieved_at >= %s)::int"
                " - (r.prev_at < %s AND r.achieved_at >= %s)::int"
                f" FROM {_RECORDS} r WHERE r.level = %s AND r.pool = %s AND r.kind = %s"
                " AND ((r.achieved_at >= %s AND r.achieved_at < %s)"
                " OR (r.prev_at >= %s AND r.prev_at < %s))"
            )
            params += [c, c, c0, c0, spec.level, spec.pool, kind, lo, hi, lo, hi]
    return (
        f"SELECT bucket, sum(n) FROM ({sql}) x GROUP BY bucket HAVING sum(n) <> 0 ORDER BY bucket",
        params,
    )


def _histogram_page(spec: BoardSpec, q: _Sql, ask: PageAsk, *, now: datetime) -> BoardPage:
    """PostgreSQL: count, rank and page start from the histogram, then walks of one bucket."""
    hist = _histogram(spec, now)
    count = hist.count
    viewer = ask.viewer
    me: dict[str, Any] | None = None
    mine = None
    if viewer is not None:
        found = _fetch(
            f"SELECT {', '.join(q.key)}, {_bucket_sql(spec)}, {q.columns} FROM {q.table} t"
            f" WHERE {q.where} AND t.user_id = %s",
            [*q.params, viewer.pk],
        )
        mine = found[0] if found else None
    if mine is not None and viewer is not None:
        key = (mine[0], mine[1], mine[2])
        bucket = int(mine[3])
        walk_sql, walk_params = _bucket_walk(spec, q, bucket, key)
        walk = _fetch(walk_sql, walk_params)
        rank = hist.before(bucket) + int(walk[0][0]) + 1
        me = _row(spec, rank, viewer.username, tuple(mine[4:]))
    # With around_me, the page holding the viewer's row (their rank is known), read like any.
    page, offset = ask.page_of(count=count, me=me)
    found_at = hist.locate(offset)
    # An empty board still reads its table (a walk of nothing): the histogram is never the
    # only witness of an empty board.
    raw: list[tuple[Any, ...]] = _rows(q, limit=ask.page_size) if found_at is None else []
    if found_at is not None:
        start, rows_before = found_at
        floor_sql, floor_params = _bucket_floor(spec, start)
        raw = _rows(
            q,
            extra=floor_sql,
            extra_params=floor_params,
            limit=ask.page_size,
            offset=offset - rows_before,
        )
    return _board_page(spec, raw, count=count, page=page, page_size=ask.page_size, me=me)


def maintain_boards(
    *, level: str | None = None, pool: str | None = None, now: datetime | None = None
) -> dict[str, int]:
    """Move the rolling periods' anchors to now and fold the counts' deltas (every board, or
    one level's, or one pool's of it). Each board in its own short transaction on the
    primary; a board a game end is writing to is skipped (the next call moves it). Exactness
    never depends on it: a read corrects for a stale anchor itself, only at a cost growing
    with the staleness (accounts.standings.stats calls it after game ends, every 30 s per level)."""
    connection = connections["default"]
    if connection.vendor != "postgresql":
        return {"advanced": 0, "folded": 0}
    at = now or timezone.now()
    sql = f"SELECT level, pool, board, span FROM {_ANCHORS}"
    params: list[Any] = []
    where = []
    if level is not None:
        where.append("level = %s")
        params.append(level)
    if pool is not None:
        where.append("pool = %s")
        params.append(pool)
    if where:
        sql += " WHERE " + " AND ".join(where)
    with connection.cursor() as cur:
        cur.execute(sql + " ORDER BY level, pool, board", params)
        boards = list(cur.fetchall())
    advanced = folded = 0
    for lv, pool, board, span in boards:
        with transaction.atomic(using="default"), connection.cursor() as cur:
            if span is not None:
                cur.execute(
                    "SELECT accounts_board_advance(%s, %s, %s, %s)", [lv, pool, board, at - span]
                )
                advanced += bool(cur.fetchone()[0])
            cur.execute("SELECT accounts_board_compact(%s, %s, %s)", [lv, pool, board])
            folded += int(cur.fetchone()[0])
    return {"advanced": advanced, "folded": folded}


def rebuild_boards(*, now: datetime | None = None) -> None:
    """Recount every board from its rows (after a bulk load with the triggers off)."""
    with connections["default"].cursor() as cur:
        cur.execute("SELECT accounts_board_rebuild(%s)", [now or timezone.now()])


def _leaderboard_page(spec: BoardSpec, ask: PageAsk, *, now: datetime | None) -> BoardPage:
    at = now or timezone.now()
    q = _sql(spec, at)
    # The skill board has no histogram (migration 0006's triggers keep the others): it is
    # read directly, counted through its partial index (stats_skill_streak_board).
    if connections[_alias.get()].vendor == "postgresql" and spec.sort != "skill":
        return _histogram_page(spec, q, ask, now=at)
    return direct_page(spec, q, ask)


def direct_page(spec: BoardSpec, q: _Sql, ask: PageAsk) -> BoardPage:
    """The direct reads, O(rows) counts and OFFSET walks: SQLite (dev) and the reference the
    tests and the benchmark compare the histogram reads with."""
    viewer = ask.viewer
    mine = _viewer_row(q, viewer.pk) if viewer is not None else None
    me: dict[str, Any] | None = None
    if mine is not None and viewer is not None:
        key = (mine[0], mine[1], mine[2])
        count, rank = _count_and_rank(q, key)
        me = _row(spec, rank, viewer.username, tuple(mine[3:]))
    else:
        count = _count(q)
    page, start = ask.page_of(count=count, me=me)
    if ask.around_me and mine is not None:
        ahead = (rank - 1) % ask.page_size  # rows of this page before the viewer's
        before = (
            _rows(q, extra=_key_cmp(q, "<"), extra_params=list(key), descending=True, limit=ahead)
            if ahead
            else []
        )
        after = _rows(
            q, extra=_key_cmp(q, ">="), extra_params=list(key), limit=ask.page_size - ahead
        )
        raw = [*reversed(before), *after]
    else:
        raw = _page_rows(q, count=count, offset=start, size=ask.page_size)
    return _board_page(spec, raw, count=count, page=page, page_size=ask.page_size, me=me)


def explain(*, spec: BoardSpec, now: datetime | None = None) -> dict[str, tuple[str, list[Any]]]:
    """The hot queries of a board as (sql, params), for EXPLAIN ANALYZE in the benchmark: the
    histogram, the walk of one bucket (the rank of the player in the middle of the board)
    and the middle page, as leaderboard_page runs them (PostgreSQL)."""
    at = now or timezone.now()
    q = _sql(spec, at)
    hist = _histogram(spec, at)
    out = {"histogram (count, rank, page start)": _histogram_sql(spec, at)}
    middle = hist.locate(max(0, hist.count // 2 - 1))
    if middle is None:
        return out
    bucket = middle[0]
    rows_in_bucket = dict(hist.buckets)[bucket]
    floor_sql, floor_params = _bucket_floor(spec, bucket)
    row = _fetch(  # the bucket's last row: the longest walk
        f"SELECT {', '.join(q.key)} FROM {q.table} t WHERE {q.where}{floor_sql}"
        f" ORDER BY {', '.join(q.key)} LIMIT 1 OFFSET %s",
        [*q.params, *floor_params, rows_in_bucket - 1],
    )
    if row:
        out["walk of the player's bucket (rank)"] = _bucket_walk(spec, q, bucket, row[0])
    offset = (math.ceil(hist.count / 50) + 1) // 2 * 50 - 50
    found = hist.locate(offset)
    if found is not None:
        start, rows_before = found
        floor_sql, floor_params = _bucket_floor(spec, start)
        out["middle page (OFFSET inside one bucket)"] = (
            _rows_sql(q, floor_sql),
            [*q.params, *floor_params, 50, offset - rows_before],
        )
    return out
