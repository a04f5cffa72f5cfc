"""The writes of statistics: called by the games service inside the transaction that ends
a game (`record_game_end`), and by the fair-play staff decisions (`record_ranked_win`,
`remove_from_boards`). Each locks the player's (user, level) row, so two games of one player
ending at the same moment are applied one after the other and neither update is lost. The
rules they apply are pure, in accounts.standings.records; reads are in accounts.standings.selectors and
accounts.standings.leaderboards.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable
from dataclasses import asdict, fields, replace
from datetime import datetime
from typing import Any, TypeVar
from uuid import UUID

from django.db import DatabaseError, connections, transaction
from django.utils import timezone

from accounts.models import RANKED_LEVELS, BoardPool
from accounts.standings import daily
from accounts.standings.leaderboards import PERIODS, STREAK_SORTS, maintain_boards
from accounts.standings.models import PersonalRecord, PlayerInsight, PlayerStats, RecordKind
from accounts.standings.records import (
    GameEnd,
    GameEndResult,
    Link,
    LuckMonths,
    Streaks,
    Summary,
    adjusted_after,
    bests_after,
    bucket_for,
    chain_after,
    is_custom,
    luck_months_after,
    skill_after,
    stats_after,
)

# The NF bests (docs/STATS.md, No-flag records): Summary's fields and PlayerStats' columns alike.
NF_BESTS = tuple(f.name for f in fields(Summary) if f.name.startswith("nf_best_"))


def _summary(row: PlayerStats) -> Summary:
    return Summary(
        played=row.played,
        won=row.won,
        total_win_ms=row.total_win_ms,
        streaks=Streaks(
            current=row.current_streak,
            current_first=row.current_streak_first_game,
            current_last=row.current_streak_last_game,
            current_at=row.current_streak_at,
            best=row.best_streak,
            best_first=row.best_streak_first_game,
            best_last=row.best_streak_last_game,
            best_at=row.best_streak_at,
        ),
        best_time_ms=row.best_time_ms,
        best_time_game=row.best_time_game,
        best_time_at=row.best_time_at,
        best_bbbv_per_s=row.best_bbbv_per_s,
        best_bbbv_per_s_game=row.best_bbbv_per_s_game,
        best_bbbv_per_s_at=row.best_bbbv_per_s_at,
        best_times=tuple(row.best_times or ()),
        **{name: getattr(row, name) for name in NF_BESTS},
    )


def summary_fields(s: Summary) -> dict[str, Any]:
    """The PlayerStats columns of a summary (also used by bulk seeding)."""
    st = s.streaks
    return {
        "played": s.played,
        "won": s.won,
        "total_win_ms": s.total_win_ms,
        "current_streak": st.current,
        "current_streak_first_game": st.current_first,
        "current_streak_last_game": st.current_last,
        "current_streak_at": st.current_at,
        "best_streak": st.best,
        "best_streak_first_game": st.best_first,
        "best_streak_last_game": st.best_last,
        "best_streak_at": st.best_at,
        "best_time_ms": s.best_time_ms,
        "best_time_game": s.best_time_game,
        "best_time_at": s.best_time_at,
        "best_bbbv_per_s": s.best_bbbv_per_s,
        "best_bbbv_per_s_game": s.best_bbbv_per_s_game,
        "best_bbbv_per_s_at": s.best_bbbv_per_s_at,
        "best_times": list(s.best_times),
        **{name: getattr(s, name) for name in NF_BESTS},
    }


# The tables with one row per player and statistics bucket, summed into by their writers.
BucketRow = TypeVar("BucketRow", PlayerStats, PlayerInsight)


def lock_bucket_row(model: type[BucketRow], *, user_id: int, bucket: str) -> BucketRow:
    """The (user, bucket) row of `model`, locked until the end of the transaction. The first
    game ever creates it; ON CONFLICT DO NOTHING lets two first games race without an error,
    and the second then waits on the lock and sees the first one's update."""
    locked = model.objects.select_for_update()
    row = locked.filter(user_id=user_id, level=bucket).first()
    if row is None:
        model.objects.bulk_create([model(user_id=user_id, level=bucket)], ignore_conflicts=True)
        row = locked.get(user_id=user_id, level=bucket)
    return row


def _link(row: PersonalRecord) -> Link:
    """A stored link of a record chain: Link's fields are PersonalRecord's columns."""
    return Link(**{f.name: getattr(row, f.name) for f in fields(Link)})


def _update_chains(
    *, user_id: int, level: str, pool: str, new: dict[str, Link], now: datetime
) -> None:
    """Apply chain_after to the player's stored chains of one level (one per kind in `new`),
    in one read, one delete and one insert; the stats row lock serializes this per level."""
    stored = list(
        PersonalRecord.objects.filter(
            user_id=user_id, level=level, pool=pool, kind__in=list(new)
        ).order_by("achieved_at", "id")
    )
    gone: list[int] = []
    added: list[PersonalRecord] = []
    for kind, link in new.items():
        rows = [r for r in stored if r.kind == kind]
        after = chain_after([_link(r) for r in rows], link, now=now)
        by_game = {r.game_id: r for r in rows}
        keep = {ln.game_id for ln in after}
        gone += [r.pk for r in rows if r.game_id not in keep]
        for ln in after:
            row = by_game.get(ln.game_id)
            if row is None:
                record = PersonalRecord(
                    user_id=user_id, level=level, pool=pool, kind=kind, **asdict(ln)
                )
                added.append(record)
            elif row.prev_at != ln.prev_at:  # only when games are recorded out of order
                PersonalRecord.objects.filter(pk=row.pk).update(prev_at=ln.prev_at)
    if gone:
        PersonalRecord.objects.filter(pk__in=gone).delete()
    if added:
        PersonalRecord.objects.bulk_create(added)


# How often one process moves a level's board anchors (accounts.standings.leaderboards.maintain_boards),
# after a game end of that level has committed.
MAINTAIN_EVERY_S = 30.0
_maintained: dict[tuple[str, str], float] = {}
_log = logging.getLogger(__name__)


def _maintain_boards_soon(*, level: str, pool: str) -> None:
    """After the commit, at most every MAINTAIN_EVERY_S per (level, pool) and process: move
    the rolling periods' anchors and fold the board counts (short transactions of their own,
    holding nothing else, so they cannot deadlock with a game end)."""
    now = time.monotonic()
    last = _maintained.get((level, pool))
    if last is not None and now - last < MAINTAIN_EVERY_S:
        return
    _maintained[(level, pool)] = now

    def run() -> None:
        try:
            maintain_boards(level=level, pool=pool)
        except DatabaseError:  # the boards stay exact without it, only slower to read
            _log.exception("maintain_boards(%s, %s) failed", level, pool)

    transaction.on_commit(run)


def _stored(end: GameEnd) -> GameEnd:
    """`end` as the rows keep it: its game id a UUID, its time whole milliseconds, its 3BV/s
    None unless finite."""
    gid = end.game_id if isinstance(end.game_id, UUID) else UUID(str(end.game_id))
    speed = end.bbbv_per_s
    if speed is not None and not math.isfinite(speed):
        speed = None
    return replace(end, game_id=gid, elapsed_ms=int(end.elapsed_ms), bbbv_per_s=speed)


def _save_summary(row: PlayerStats, after: Summary, *, pool: str, at: datetime) -> None:
    for name, value in summary_fields(after).items():
        setattr(row, name, value)
    row.pool = pool
    row.updated_at = at
    row.save()


# The buckets whose anchors this process has seen committed (ensure_boards).
_ensured: set[str] = set(RANKED_LEVELS)


def ensure_boards(*, level: str) -> None:
    """The anchors of a no-guess bucket's boards (`expert:ng`), inserted if missing, inside the
    caller's transaction and before the bucket's first record link: the classic levels' come
    from accounts migration 0006, and a link inserted while its period boards had no anchor
    would be missing from their counts. ON CONFLICT DO NOTHING makes concurrent first wins
    wait on one another; a bucket is remembered once its anchors are committed."""
    if level in _ensured:
        return
    connection = connections["default"]
    if connection.vendor != "postgresql":
        return
    rows: list[str] = []
    params: list[Any] = []
    for pool in (BoardPool.HUMAN, BoardPool.BOT):
        for kind in RecordKind:  # the standard boards' and the NF boards'
            for period, span in PERIODS.items():
                rows.append("(%s, %s, %s, %s, %s::interval, now() - %s::interval)")
                params += [level, pool, f"{kind}:{period}", kind, span, span]
        for sort in STREAK_SORTS:
            rows.append("(%s, %s, %s, %s, NULL, NULL)")
            params += [level, pool, f"streak:{sort}", sort]
    with connection.cursor() as cur:
        cur.execute(
            "INSERT INTO accounts_board_anchor (level, pool, board, source, span, cutoff) VALUES "
            + ", ".join(rows)
            + " ON CONFLICT DO NOTHING",
            params,
        )
    transaction.on_commit(lambda: _ensured.add(level))


def _enter_boards(*, user_id: int, bucket: str, pool: str, end: GameEnd) -> None:
    """A ranked win joins the player's record chains of its pool (time, and 3BV/s if any)."""
    if is_custom(bucket) or pool == BoardPool.NONE:  # custom boards are never ranked
        return
    ensure_boards(level=bucket)  # a no-guess bucket's board anchors, before its first link
    link = Link(
        score=float(end.elapsed_ms),
        achieved_at=end.ended_at,
        game_id=end.game_id,
        time_ms=end.elapsed_ms,
        bbbv_per_s=end.bbbv_per_s,
    )
    chains = {RecordKind.TIME.value: link}
    if end.bbbv_per_s is not None:
        chains[RecordKind.SPEED.value] = replace(link, score=-end.bbbv_per_s)
    if end.no_flags:  # a win without a flag also joins the NF boards (`?style=nf`)
        chains[RecordKind.NF_TIME.value] = chains[RecordKind.TIME.value]
        if end.bbbv_per_s is not None:
            chains[RecordKind.NF_SPEED.value] = chains[RecordKind.SPEED.value]
    _update_chains(user_id=user_id, level=bucket, pool=pool, new=chains, now=end.ended_at)


def record_game_end(
    *,
    end: GameEnd,
    user_id: int,
    level: str,
    pool: str = BoardPool.HUMAN,
    no_guess: bool = False,
) -> GameEndResult | None:
    """Called by the games service inside the transaction that ends a game: `end` is what the
    game came to (records.GameEnd), the rest where it counts. A no-guess game counts in its own
    bucket (records.bucket_for), never in the classic one. `pool` is the player's BoardPool;
    `end.ranked` whether the game may enter the boards; `end.bests` whether a win sets the
    bucket's bests (records.sets_bests: every win but a paused, held or flagged one; None: as
    `ranked`). A custom or guest win sets its bests and enters no board. Returns what personal
    bests the game set, or None when it set none."""
    bucket = bucket_for(level, no_guess)
    end = replace(_stored(end), ranked=end.ranked and pool != BoardPool.NONE)
    with transaction.atomic():
        row = lock_bucket_row(PlayerStats, user_id=user_id, bucket=bucket)
        after, result = stats_after(_summary(row), end)
        # Custom no-guess rows rank nowhere: pool `none` keeps them off the board counts,
        # whose triggers skip only the level `custom` (accounts migration 0006).
        row_pool = BoardPool.NONE if bucket != "custom" and is_custom(bucket) else pool
        _save_summary(row, after, pool=row_pool, at=end.ended_at)
        if end.won and end.ranked:
            _enter_boards(user_id=user_id, bucket=bucket, pool=pool, end=end)
    if not is_custom(bucket) and pool != BoardPool.NONE:
        _maintain_boards_soon(level=bucket, pool=pool)
    return result or None


def record_ranked_win(
    *,
    user_id: int,
    level: str,
    pool: str,
    game_id: Any,
    elapsed_ms: int,
    bbbv_per_s: float | None,
    ended_at: datetime,
    no_guess: bool = False,
    no_flags: bool = False,
) -> GameEndResult | None:
    """A won game held for review and then cleared by staff: it sets the bests it would have
    set at its end (its NF bests too, `no_flags`), and joins the boards at the time it was
    won. Played, won and streaks already counted it at the end."""
    bucket = bucket_for(level, no_guess)
    win = GameEnd(
        won=True,
        game_id=game_id,
        elapsed_ms=elapsed_ms,
        bbbv_per_s=bbbv_per_s,
        ended_at=ended_at,
        no_flags=no_flags,
    )
    end = _stored(win)
    with transaction.atomic():
        row = lock_bucket_row(PlayerStats, user_id=user_id, bucket=bucket)
        after, result = bests_after(_summary(row), end)
        _save_summary(row, after, pool=pool, at=row.updated_at or ended_at)
        _enter_boards(user_id=user_id, bucket=bucket, pool=pool, end=end)
    return result or None


def remove_from_boards(*, user_id: int) -> None:
    """A flagged account leaves every board: its record chains go, and its streak rows rank
    nowhere. Its statistics stay as they are (RULES.md, Fair play)."""
    PersonalRecord.objects.filter(user_id=user_id).delete()
    PlayerStats.objects.filter(user_id=user_id).update(pool=BoardPool.NONE)
    daily.boards_hide(user_id=user_id)


def boards_hide(*, user_id: int) -> None:
    """A closed account leaves every board for as long as it is closed (docs/ACCOUNTS.md):
    its record chains and statistics rows move to pool `none`, kept as they are, so that
    reopening (`boards_restore`) puts them back exactly."""
    PersonalRecord.objects.filter(user_id=user_id).update(pool=BoardPool.NONE)
    PlayerStats.objects.filter(user_id=user_id).update(pool=BoardPool.NONE)
    daily.boards_hide(user_id=user_id)


def boards_restore(*, user_id: int, pool: str) -> None:
    """A reopened account's rows back on the boards of `pool` (its User.board_pool). The
    buckets of custom no-guess boards rank nowhere and stay at `none` (record_game_end)."""
    PersonalRecord.objects.filter(user_id=user_id).update(pool=pool)
    daily.boards_restore(user_id=user_id, pool=pool)
    for row in PlayerStats.objects.filter(user_id=user_id).only("id", "level"):
        kept = BoardPool.NONE if row.level != "custom" and is_custom(row.level) else pool
        PlayerStats.objects.filter(pk=row.pk).update(pool=kept)


def boards_leave(*, user_id: int) -> None:
    """A deleted account's record chains go for good; its statistics rows stay (its games
    stay, under the anonymous name) at pool `none`."""
    remove_from_boards(user_id=user_id)


def record_analysis(
    *,
    user_id: int,
    level: str,
    no_guess: bool,
    unlucky_loss: bool,
    guesses_survived: int,
    outcomes: Callable[[], tuple[bool, list[str]]],
    coin_flips: tuple[str, tuple[int, int, float]] | None = None,
    luck_months: LuckMonths | None = None,
) -> None:
    """A solo game's analysis was stored (games.play.analysis_jobs, in its transaction): its
    luck joins the player's statistics of its bucket. `outcomes` is called under the row
    lock and says what the skill and luck-adjusted streaks fold, in end order
    (records.skill_after, records.adjusted_after), and whether they start again from nothing
    (an analysis that arrived behind the others). `coin_flips` is the game's month and its
    (won, lost, expected survivals), added to that month; `luck_months` replaces them all
    (a refold that recounted the bucket)."""
    bucket = bucket_for(level, no_guess)
    with transaction.atomic():
        row = lock_bucket_row(PlayerStats, user_id=user_id, bucket=bucket)
        restart, folded = outcomes()
        current, best = (0, 0) if restart else (row.skill_streak, row.best_skill_streak)
        before = row.best_skill_streak
        row.skill_streak, row.best_skill_streak = skill_after(current, best, folded)
        if row.best_skill_streak != before or row.best_skill_streak_at is None:
            # When the best was reached: the `sort=skill` board's tie-break (who was first).
            row.best_skill_streak_at = timezone.now() if row.best_skill_streak else None
        current, best = (0, 0) if restart else (row.adjusted_streak, row.best_adjusted_streak)
        row.adjusted_streak, row.best_adjusted_streak = adjusted_after(current, best, folded)
        if luck_months is not None:
            row.luck_months = luck_months
        elif coin_flips is not None:
            row.luck_months = luck_months_after(row.luck_months or {}, *coin_flips)
        row.unlucky_losses += int(unlucky_loss)
        row.guesses_survived += guesses_survived
        row.save(
            update_fields=[
                "skill_streak",
                "best_skill_streak",
                "best_skill_streak_at",
                "adjusted_streak",
                "best_adjusted_streak",
                "luck_months",
                "unlucky_losses",
                "guesses_survived",
            ]
        )
