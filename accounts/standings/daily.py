"""The daily challenge's standings (RULES.md, The daily challenge; docs/DAILY.md): the day's
board rows (DailyEntry), the players' daily statistics and streaks (DailyStats), and the
board's reads. The only writer of both tables; games.daily.services (a daily's start and the
day's end) and games.play.services (a daily game's end, pause or hold) call it.

The board's order is one ascending key, (score, achieved_at, user id):

* the winners by time (`score` = time_ms); every racer of a day plays the same layout, so the
  same 3BV, and "then by 3BV/s" orders nobody a time has not ordered already: equal times go
  to whoever finished first;
* then the games that ended without a win, by safe cells opened, more first, then whoever
  stopped first;
* then the games still running, in the order they started (their place is provisional).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

from django.db import connections, transaction
from django.db.models import Count, Q

from accounts.models import BoardPool, User
from accounts.standings.leaderboards import (
    BoardPage,
    Histogram,
    PageAsk,
    board_snapshot,
    pool_of,
)
from accounts.standings.models import DailyEntry, DailyStats
from accounts.standings.records import GameEnd
from demineur_site.formats import iso

ALL_LEVELS = "all"  # DailyStats across the six levels
ENDED_BASE = 10**10  # score of a game ended without a win: ENDED_BASE - opened
RUNNING_SCORE = 2 * 10**10  # a game still running: after every ended one
WON, LOST, PLAYING, PAUSED = "won", "lost", "playing", "paused"


# --- the rules (pure) --------------------------------------------------------------------------


def score(state: str, *, time_ms: int | None, opened: int) -> int:
    """The first part of a row's board key (lower is better)."""
    if state == WON:
        return int(time_ms or 0)
    if state == LOST:
        return ENDED_BASE - opened
    return RUNNING_SCORE


def streak_after(*, current: int, last_won_day: date | None, day: date) -> int:
    """The daily streak once `day` is won: one more when the last win was the day before, the
    same when that day was won already, else a new run of one."""
    if last_won_day == day:
        return current
    if last_won_day is not None and last_won_day == day - timedelta(days=1):
        return current + 1
    return 1


def streak_shown(*, current: int, last_won_day: date | None, today: date) -> int:
    """The current streak as of `today`: the stored run, unless a whole day has passed
    since its last win (today still counts as open: it may yet be won)."""
    if last_won_day is None or last_won_day < today - timedelta(days=1):
        return 0
    return current


# --- the writer --------------------------------------------------------------------------------


def entry_start(
    *,
    user: User,
    day: date,
    level: str,
    game_id: Any,
    ranked: bool,
    opened: int,
    started_at: datetime,
) -> DailyEntry:
    """The player's row of the day's board, at the start of their daily game (inside the
    transaction that creates the game; the unique (user, day, level) makes it the only one)."""
    return DailyEntry.objects.create(
        user=user,
        day=day,
        level=level,
        game_id=game_id,
        ranked=ranked,
        pool=user.board_pool if ranked else BoardPool.NONE,
        state=PLAYING,
        opened=opened,
        score=RUNNING_SCORE,
        achieved_at=started_at,
    )


def entry_end(*, end: GameEnd, user: User, day: date, level: str, opened: int) -> None:
    """A daily game ended (in its transaction): its row takes its final time (`end`, the
    game's records.GameEnd, as the solo statistics are given it) or cells, and the player's
    daily statistics count it, per level and across levels (`all`: games played and won on
    every level; its streak counts days with at least one daily won)."""
    state = WON if end.won else LOST
    DailyEntry.objects.filter(game_id=end.game_id).update(
        state=state,
        ranked=end.ranked,
        pool=user.board_pool if end.ranked else BoardPool.NONE,
        time_ms=end.elapsed_ms if end.won else None,
        opened=opened,
        bbbv_per_s=end.bbbv_per_s,
        score=score(state, time_ms=end.elapsed_ms, opened=opened),
        achieved_at=end.ended_at,
    )
    for key in (level, ALL_LEVELS):
        row = _lock_stats(user.pk, key)
        row.played += 1
        if end.won:
            row.won += 1
            row.current_streak = streak_after(
                current=row.current_streak, last_won_day=row.last_won_day, day=day
            )
            row.best_streak = max(row.best_streak, row.current_streak)
            row.last_won_day = day
        row.save()


def _lock_stats(user_id: int, level: str) -> DailyStats:
    row, _ = DailyStats.objects.select_for_update().get_or_create(user_id=user_id, level=level)
    return row


def entry_state(*, game_id: Any, state: str) -> None:
    """A running daily game paused or resumed: the row shows it (its place stays with the
    running games)."""
    DailyEntry.objects.filter(game_id=game_id).update(state=state)


def entry_unrank(*, game_id: Any) -> None:
    """A daily game was unranked (a pause, a hold for review): off the day's board."""
    DailyEntry.objects.filter(game_id=game_id).update(ranked=False, pool=BoardPool.NONE)


def entry_rank(*, game_id: Any, pool: str) -> None:
    """A held daily win that staff cleared: back on the day's board at the time it was won."""
    DailyEntry.objects.filter(game_id=game_id).update(ranked=True, pool=pool)


def boards_hide(*, user_id: int) -> None:
    """A closed or flagged account's rows rank nowhere (accounts.standings.stats, the solo
    boards' same rule); `ranked` is kept, so that reopening puts them back exactly."""
    DailyEntry.objects.filter(user_id=user_id).update(pool=BoardPool.NONE)


def boards_restore(*, user_id: int, pool: str) -> None:
    DailyEntry.objects.filter(user_id=user_id, ranked=True).update(pool=pool)


def day_close(*, day: date, level: str) -> int:
    """The day's end, once its games have ended: every ranked row gets its final place on its
    board, and each player's best daily rank takes it. Returns how many rows were placed."""
    placed = 0
    with transaction.atomic():
        for pool in (BoardPool.HUMAN, BoardPool.BOT):
            rows = list(
                DailyEntry.objects.filter(day=day, level=level, pool=pool)
                .order_by("score", "achieved_at", "user_id")
                .values_list("pk", "user_id")
            )
            for start in range(0, len(rows), 2000):
                chunk = rows[start : start + 2000]
                entries = [
                    DailyEntry(pk=pk, place=start + i + 1) for i, (pk, _) in enumerate(chunk)
                ]
                DailyEntry.objects.bulk_update(entries, ["place"])
                _best_ranks({uid: start + i + 1 for i, (_, uid) in enumerate(chunk)}, level)
            placed += len(rows)
    return placed


def _best_ranks(places: dict[int, int], level: str) -> None:
    rows = DailyStats.objects.select_for_update().filter(
        user_id__in=list(places), level__in=(level, ALL_LEVELS)
    )
    changed = []
    for row in rows:
        place = places[row.user_id]
        if row.best_rank is None or place < row.best_rank:
            row.best_rank = place
            changed.append(row)
    DailyStats.objects.bulk_update(changed, ["best_rank"])


# --- reads -------------------------------------------------------------------------------------


def profile_daily(*, user_id: int, today: date) -> dict[str, Any]:
    """API.md's profile `daily` (across levels), with `levels` (an extension: the same per
    level, for the levels the player has played)."""
    rows = {r.level: r for r in DailyStats.objects.filter(user_id=user_id)}

    def shown(row: DailyStats | None) -> dict[str, Any]:
        if row is None:
            return {"current_streak": 0, "best_streak": 0, "played": 0, "won": 0, "best_rank": None}
        return {
            "current_streak": streak_shown(
                current=row.current_streak, last_won_day=row.last_won_day, today=today
            ),
            "best_streak": row.best_streak,
            "played": row.played,
            "won": row.won,
            "best_rank": row.best_rank,
        }

    out = shown(rows.get(ALL_LEVELS))
    out["levels"] = {level: shown(row) for level, row in rows.items() if level != ALL_LEVELS}
    return out


def day_counts(day: date) -> dict[str, tuple[int, int]]:
    """(players, winners) per level on `day`'s human board (API.md's `players`, `winners`):
    from the histogram on PostgreSQL (the winners are the buckets of wins), counted in one
    aggregate elsewhere."""
    connection = connections["default"]
    if connection.vendor == "postgresql":
        with connection.cursor() as cur:
            cur.execute(
                "SELECT level, sum(n), coalesce(sum(n) FILTER (WHERE bucket < %s), 0)"
                " FROM accounts_daily_count WHERE day = %s AND pool = %s GROUP BY level",
                [WON_BELOW // 1000, day, BoardPool.HUMAN],
            )
            return {level: (int(p), int(w)) for level, p, w in cur.fetchall()}
    rows = (
        DailyEntry.objects.filter(day=day, pool=BoardPool.HUMAN)
        .values("level")
        .annotate(players=Count("pk"), winners=Count("pk", filter=Q(state=WON)))
        .order_by()
    )
    return {r["level"]: (r["players"], r["winners"]) for r in rows}


def calendar(*, user_id: int, since: date, until: date) -> list[DailyEntry]:
    """The player's daily rows between two days (both included), newest first."""
    return list(
        DailyEntry.objects.filter(user_id=user_id, day__gte=since, day__lte=until).order_by(
            "-day", "level"
        )
    )


@dataclass(frozen=True)
class DailyBoard:
    day: date
    level: str
    pool: str

    def where(self) -> Q:
        return Q(day=self.day, level=self.level, pool=self.pool)


def daily_board(*, day: date, level: str, players: str | None) -> DailyBoard:
    return DailyBoard(day=day, level=level, pool=pool_of(players))


_COLUMNS = ("score", "achieved_at", "user_id", "state", "time_ms", "opened", "game_id", "place")


def _row(rank: int, values: dict[str, Any], username: str) -> dict[str, Any]:
    return {
        "rank": rank,
        "player": username,
        "state": values["state"],
        "time_ms": values["time_ms"],
        "opened": values["opened"],
        "game_id": str(values["game_id"]),
        "achieved_at": iso(values["achieved_at"]),
    }


def _key(values: dict[str, Any]) -> Q:
    """Rows strictly ahead of `values` on its board (the key spelled out, not a row
    comparison, which PostgreSQL 15 does not start an index scan from)."""
    s, at, uid = values["score"], values["achieved_at"], values["user_id"]
    return (
        Q(score__lt=s)
        | Q(score=s, achieved_at__lt=at)
        | Q(score=s, achieved_at=at, user_id__lt=uid)
    )


def daily_board_page(*, board: DailyBoard, ask: PageAsk, direct: bool = False) -> BoardPage:
    """One page of a day's board with `me`, by every board's paging rules (PageAsk.page_of).
    Read in one snapshot on the replica when there is one."""
    with board_snapshot() as alias:
        return _page(board, alias, ask, direct=direct)


def _page(board: DailyBoard, alias: str, ask: PageAsk, *, direct: bool = False) -> BoardPage:
    """The page and `me`: from the histogram on PostgreSQL (accounts migration 0014), counting
    the rows directly elsewhere (SQLite in development) or with `direct` (the tests'
    reference)."""
    if connections[alias].vendor == "postgresql" and not direct:
        return _histogram_page(board, alias, ask)
    rows = DailyEntry.objects.using(alias).filter(board.where())
    count = rows.count()
    viewer = ask.viewer
    me: dict[str, Any] | None = None
    if viewer is not None and viewer.is_authenticated:
        mine = rows.filter(user_id=viewer.pk).values(*_COLUMNS).first()
        if mine is not None:
            me = _row(rows.filter(_key(mine)).count() + 1, mine, viewer.username)
    page, start = ask.page_of(count=count, me=me)
    ordered = ("score", "achieved_at", "user_id")
    wanted = max(0, min(ask.page_size, count - start))
    from_end = count - start - wanted
    if wanted and from_end < start:  # past the middle: walk from the end, skipping less
        found = list(
            rows.order_by(*(f"-{k}" for k in ordered)).values(*_COLUMNS, "user__username")[
                from_end : from_end + wanted
            ]
        )
        found.reverse()
    else:
        found = list(
            rows.order_by(*ordered).values(*_COLUMNS, "user__username")[
                start : start + ask.page_size
            ]
        )
    results = [_row(start + i + 1, v, v["user__username"]) for i, v in enumerate(found)]
    return BoardPage(count=count, page=page, page_size=ask.page_size, results=results, me=me)


# --- the histogram (PostgreSQL; accounts migration 0014) ---------------------------------------
#
# The histogram's page is four hand-written statements (the histogram, the viewer's row, the
# walk within the viewer's bucket, the page's rows), as the solo boards' are: the ORM's
# building of the same queries cost more than PostgreSQL's answers (docs/PERFORMANCE.md,
# "The daily board").

_TABLE = "accounts_daily_entry"
_SELECT = ", ".join(f"e.{c}" for c in _COLUMNS)
_ON_BOARD = "e.day = %s AND e.level = %s AND e.pool = %s"


def _histogram_page(board: DailyBoard, alias: str, ask: PageAsk) -> BoardPage:
    on_board: list[Any] = [board.day, board.level, board.pool]
    viewer = ask.viewer
    with connections[alias].cursor() as cur:
        hist = _histogram(board, alias)
        me: dict[str, Any] | None = None
        if viewer is not None and viewer.is_authenticated:
            cur.execute(
                f"SELECT {_SELECT} FROM {_TABLE} e WHERE {_ON_BOARD} AND e.user_id = %s",
                [*on_board, viewer.pk],
            )
            found = cur.fetchone()
            if found is not None:
                mine = dict(zip(_COLUMNS, found, strict=True))
                bucket = bucket_of(mine["score"], mine["achieved_at"])
                within, within_params = _bucket_bounds(bucket)[1]
                s, at, uid = mine["score"], mine["achieved_at"], mine["user_id"]
                # The key spelled out, not a row comparison, which PostgreSQL 15 does not
                # start an index scan from.
                cur.execute(
                    f"SELECT count(*) FROM {_TABLE} e WHERE {_ON_BOARD}{within}"
                    " AND (e.score < %s OR (e.score = %s AND (e.achieved_at < %s"
                    " OR (e.achieved_at = %s AND e.user_id < %s))))",
                    [*on_board, *within_params, s, s, at, at, uid],
                )
                ahead = int(cur.fetchone()[0])
                me = _row(hist.before(bucket) + ahead + 1, mine, viewer.username)
        page, start = ask.page_of(count=hist.count, me=me)
        results: list[dict[str, Any]] = []
        located = hist.locate(start)
        if located is not None:
            bucket, seen = located
            floor, floor_params = _bucket_bounds(bucket)[0]
            cur.execute(
                f"SELECT {_SELECT}, u.username FROM {_TABLE} e"
                " JOIN accounts_user u ON u.id = e.user_id"
                f" WHERE {_ON_BOARD}{floor}"
                " ORDER BY e.score, e.achieved_at, e.user_id LIMIT %s OFFSET %s",
                # within the bucket: a walk of less than one bucket
                [*on_board, *floor_params, ask.page_size, start - seen],
            )
            for i, values in enumerate(cur.fetchall()):
                row = dict(zip(_COLUMNS, values[:-1], strict=True))
                results.append(_row(start + i + 1, row, values[-1]))
    return BoardPage(count=hist.count, page=page, page_size=ask.page_size, results=results, me=me)


WON_BELOW = 5_000_000_000  # scores below: wins (time_ms), bucketed by the second
LOST_BELOW = 15_000_000_000  # scores below (and above WON_BELOW): ended games, one per score
RUNNING_BUCKETS = 20_000_000_000  # running games: this plus the ten minutes they started in
RUNNING_SPAN_S = 600


def bucket_of(score_value: int, achieved_at: datetime) -> int:
    """accounts_daily_bucket (migration 0014), in Python: the bucket of a row's key."""
    if score_value < WON_BELOW:
        return score_value // 1000
    if score_value < LOST_BELOW:
        return score_value
    return RUNNING_BUCKETS + math.floor(achieved_at.timestamp() / RUNNING_SPAN_S)


def _bucket_bounds(bucket: int) -> tuple[tuple[str, list[Any]], tuple[str, list[Any]]]:
    """(the rows of `bucket` and after, the rows of `bucket` only) as conditions over alias e:
    plain ranges on the board index's columns, so each scan starts and stops at the bucket's
    edges."""
    if bucket < WON_BELOW // 1000:
        lo = bucket * 1000
        return (" AND e.score >= %s", [lo]), (
            " AND e.score >= %s AND e.score < %s",
            [lo, lo + 1000],
        )
    if bucket < RUNNING_BUCKETS:
        return (" AND e.score >= %s", [bucket]), (" AND e.score = %s", [bucket])
    start = datetime.fromtimestamp((bucket - RUNNING_BUCKETS) * RUNNING_SPAN_S, UTC)
    end = start + timedelta(seconds=RUNNING_SPAN_S)
    floor = " AND e.score = %s AND e.achieved_at >= %s"
    return (floor, [RUNNING_SCORE, start]), (
        f"{floor} AND e.achieved_at < %s",
        [RUNNING_SCORE, start, end],
    )


def _histogram(board: DailyBoard, alias: str) -> Histogram:
    with connections[alias].cursor() as cur:
        cur.execute(
            "SELECT bucket, sum(n)::bigint FROM accounts_daily_count"
            " WHERE day = %s AND level = %s AND pool = %s"
            " GROUP BY bucket HAVING sum(n) <> 0 ORDER BY bucket",
            [board.day, board.level, board.pool],
        )
        return Histogram(cur.fetchall())


def compact(*, day: date) -> int:
    """Fold `day`'s histogram deltas into one row per bucket, board by board (the daily clock,
    every few seconds; PostgreSQL only). Returns the rows kept."""
    connection = connections["default"]
    if connection.vendor != "postgresql":
        return 0
    kept = 0
    with connection.cursor() as cur:
        cur.execute("SELECT DISTINCT level, pool FROM accounts_daily_count WHERE day = %s", [day])
        for level, pool in cur.fetchall():
            cur.execute("SELECT accounts_daily_compact(%s, %s, %s)", [day, level, pool])
            kept += int(cur.fetchone()[0])
    return kept
