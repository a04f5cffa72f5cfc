"""Per-player statistics per level (RULES.md, Statistics; API.md, Stats per level).

Two halves:

* pure arithmetic -- `streaks_after`, `best_times_after`, `stats_after` and `chain_after`
  take the state before a game end and return the state after it, with no I/O, so the
  rules are tested as tables;
* the write -- `record_game_end`, called by the games service inside the transaction that
  ends a game. It locks the player's (user, level) row, so two games of one player ending at
  the same moment are applied one after the other and neither update is lost.

Statistics are never recomputed from the games on read: `stats_for_user` reads one row per
bucket.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID

from django.db import transaction

from .models import (
    CHAIN_START,
    RANKED_LEVELS,
    STATS_BUCKETS,
    BoardPool,
    PersonalRecord,
    PlayerStats,
    RecordKind,
)

BUCKETS = STATS_BUCKETS
BEST_TIMES_KEPT = 5
# Chain links older than this (other than the all-time head) can never again be a player's
# best in a rolling period (the longest is 365 days), so they are dropped.
CHAIN_HORIZON = timedelta(days=366)


def bucket_for(level: str) -> str:
    """The statistics bucket of a game's level: the level itself, or `custom`."""
    return level if level in RANKED_LEVELS else "custom"


def iso(value: datetime | None) -> str | None:
    """UTC, always with microseconds, so stored timestamps also sort as strings."""
    if value is None:
        return None
    return value.astimezone(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


# --- pure arithmetic ------------------------------------------------------------------------


@dataclass(frozen=True)
class Streaks:
    """The current and best runs of consecutive wins at one level, each with the games where
    it began and ended and when it reached its length."""

    current: int = 0
    current_first: UUID | None = None
    current_last: UUID | None = None
    current_at: datetime | None = None
    best: int = 0
    best_first: UUID | None = None
    best_last: UUID | None = None
    best_at: datetime | None = None


def streaks_after(s: Streaks, *, won: bool, game_id: UUID, ended_at: datetime) -> Streaks:
    """A win extends the current streak (and the best one when it passes it); any loss --
    a mine, a resignation, an abandoned game -- resets the current streak to 0.

    >>> from uuid import uuid4
    >>> t = datetime(2026, 1, 1, tzinfo=UTC)
    >>> a, b = uuid4(), uuid4()
    >>> s = streaks_after(Streaks(), won=True, game_id=a, ended_at=t)
    >>> s = streaks_after(s, won=True, game_id=b, ended_at=t)
    >>> (s.current, s.best, s.best_first == a, s.best_last == b)
    (2, 2, True, True)
    >>> streaks_after(s, won=False, game_id=uuid4(), ended_at=t).current
    0
    """
    if not won:
        return replace(s, current=0, current_first=None, current_last=None, current_at=None)
    current = s.current + 1
    first = game_id if s.current == 0 else s.current_first
    out = replace(
        s, current=current, current_first=first, current_last=game_id, current_at=ended_at
    )
    if current > s.best:
        # Equal length does not replace the best: the earlier run got there first.
        out = replace(out, best=current, best_first=first, best_last=game_id, best_at=ended_at)
    return out


def best_times_after(
    best_times: Sequence[dict[str, Any]], *, time_ms: int, game_id: UUID, achieved_at: datetime
) -> list[dict[str, Any]]:
    """The five best winning times, fastest first; an equal time ranks after the earlier one."""
    entry = {"time_ms": int(time_ms), "game_id": str(game_id), "achieved_at": iso(achieved_at)}
    rows = [*best_times, entry]
    rows.sort(key=lambda r: (r["time_ms"], r["achieved_at"], r["game_id"]))
    return rows[:BEST_TIMES_KEPT]


@dataclass(frozen=True)
class Summary:
    """Everything kept for one player at one level (the PlayerStats row, as values)."""

    played: int = 0
    won: int = 0
    total_win_ms: int = 0
    streaks: Streaks = field(default_factory=Streaks)
    best_time_ms: int | None = None
    best_time_game: UUID | None = None
    best_time_at: datetime | None = None
    best_bbbv_per_s: float | None = None
    best_bbbv_per_s_game: UUID | None = None
    best_bbbv_per_s_at: datetime | None = None
    best_times: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True)
class GameEnd:
    won: bool
    game_id: UUID
    elapsed_ms: int
    bbbv_per_s: float | None
    ended_at: datetime
    # Whether the game may enter the boards (RULES.md, Fair play): an unranked game counts in
    # played, won, streaks and the average, but sets no best time and no best 3BV/s.
    ranked: bool = True


@dataclass(frozen=True)
class GameEndResult:
    """What a game end changed that others may want to announce: a new personal best."""

    best_time: bool = False
    best_speed: bool = False

    def __bool__(self) -> bool:
        return self.best_time or self.best_speed


def stats_after(s: Summary, end: GameEnd) -> tuple[Summary, GameEndResult]:
    """The summary after one more ended game. Every ended game was played (a game counts
    once its first tap is made; untapped games are discarded and never reach here)."""
    streaks = streaks_after(s.streaks, won=end.won, game_id=end.game_id, ended_at=end.ended_at)
    out = replace(s, played=s.played + 1, streaks=streaks)
    if not end.won:
        return out, GameEndResult()
    out = replace(out, won=s.won + 1, total_win_ms=s.total_win_ms + end.elapsed_ms)
    if not end.ranked:
        return out, GameEndResult()
    return ranked_win_after(out, end)


def ranked_win_after(s: Summary, end: GameEnd) -> tuple[Summary, GameEndResult]:
    """The best times and 3BV/s after a ranked win: at its end, or when staff clear a game
    held for review (then possibly out of order: the five best are sorted, not appended)."""
    out = replace(
        s,
        best_times=tuple(
            best_times_after(
                s.best_times, time_ms=end.elapsed_ms, game_id=end.game_id, achieved_at=end.ended_at
            )
        ),
    )
    best_time = s.best_time_ms is None or end.elapsed_ms < s.best_time_ms
    if best_time:
        out = replace(
            out, best_time_ms=end.elapsed_ms, best_time_game=end.game_id, best_time_at=end.ended_at
        )
    # A game won by its first tap has no 3BV/s (API.md, Fine points): it never counts here.
    speed = end.bbbv_per_s
    best_speed = speed is not None and (s.best_bbbv_per_s is None or speed > s.best_bbbv_per_s)
    if best_speed:
        out = replace(
            out,
            best_bbbv_per_s=speed,
            best_bbbv_per_s_game=end.game_id,
            best_bbbv_per_s_at=end.ended_at,
        )
    return out, GameEndResult(best_time=best_time, best_speed=best_speed)


@dataclass(frozen=True)
class Link:
    """One link of a record chain (see accounts.models.PersonalRecord). Lower score is better."""

    score: float
    achieved_at: datetime
    game_id: UUID
    prev_at: datetime = CHAIN_START
    time_ms: int = 0
    bbbv_per_s: float | None = None


def chain_after(chain: Sequence[Link], new: Link, *, now: datetime) -> list[Link]:
    """The chain after a new won game. `chain` is in time order and its scores never
    decrease: each link is a game no later game has beaten.

    * a later link already at least as good makes the new game irrelevant (only when games
      are recorded out of order);
    * earlier links strictly worse than the new game are superseded and removed;
    * the new link's `prev_at` is the time of the link before it (CHAIN_START when it is the
      head), and the link after it now starts after it;
    * links older than CHAIN_HORIZON, except the head, are dropped: no period reaches them.
      Their successors keep `prev_at`, which stays older than any period start.
    """
    t, s = new.achieved_at, new.score
    if any(link.achieved_at > t and link.score <= s for link in chain):
        kept = list(chain)
    else:
        before = [link for link in chain if link.achieved_at <= t and link.score <= s]
        after = [link for link in chain if link.achieved_at > t]
        inserted = replace(new, prev_at=before[-1].achieved_at if before else CHAIN_START)
        if after:
            after[0] = replace(after[0], prev_at=t)
        kept = [*before, inserted, *after]
    horizon = now - CHAIN_HORIZON
    return [link for i, link in enumerate(kept) if i == 0 or link.achieved_at >= horizon]


# --- the write --------------------------------------------------------------------------------


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
    }


def _lock_stats_row(*, user_id: int, bucket: str) -> PlayerStats:
    """The (user, level) row, locked until the end of the transaction. The first game ever
    creates it; ON CONFLICT DO NOTHING lets two first games race without an error, and the
    second then waits on the lock and sees the first one's update."""
    locked = PlayerStats.objects.select_for_update()
    row = locked.filter(user_id=user_id, level=bucket).first()
    if row is None:
        PlayerStats.objects.bulk_create(
            [PlayerStats(user_id=user_id, level=bucket)], ignore_conflicts=True
        )
        row = locked.get(user_id=user_id, level=bucket)
    return row


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
        old = [
            Link(
                score=r.score,
                achieved_at=r.achieved_at,
                game_id=r.game_id,
                prev_at=r.prev_at,
                time_ms=r.time_ms,
                bbbv_per_s=r.bbbv_per_s,
            )
            for r in rows
        ]
        after = chain_after(old, link, now=now)
        by_game = {r.game_id: r for r in rows}
        keep = {ln.game_id for ln in after}
        gone += [r.pk for r in rows if r.game_id not in keep]
        for ln in after:
            row = by_game.get(ln.game_id)
            if row is None:
                added.append(
                    PersonalRecord(
                        user_id=user_id,
                        level=level,
                        pool=pool,
                        kind=kind,
                        score=ln.score,
                        time_ms=ln.time_ms,
                        bbbv_per_s=ln.bbbv_per_s,
                        game_id=ln.game_id,
                        achieved_at=ln.achieved_at,
                        prev_at=ln.prev_at,
                    )
                )
            elif row.prev_at != ln.prev_at:  # only when games are recorded out of order
                PersonalRecord.objects.filter(pk=row.pk).update(prev_at=ln.prev_at)
    if gone:
        PersonalRecord.objects.filter(pk__in=gone).delete()
    if added:
        PersonalRecord.objects.bulk_create(added)


def _game_end(
    *,
    won: bool,
    game_id: Any,
    elapsed_ms: int,
    bbbv_per_s: float | None,
    ended_at: datetime,
    ranked: bool,
) -> GameEnd:
    gid = game_id if isinstance(game_id, UUID) else UUID(str(game_id))
    speed = bbbv_per_s if bbbv_per_s is not None and math.isfinite(bbbv_per_s) else None
    return GameEnd(
        won=won,
        game_id=gid,
        elapsed_ms=int(elapsed_ms),
        bbbv_per_s=speed,
        ended_at=ended_at,
        ranked=ranked,
    )


def _save_summary(row: PlayerStats, after: Summary, *, pool: str, at: datetime) -> None:
    for name, value in summary_fields(after).items():
        setattr(row, name, value)
    row.pool = pool
    row.updated_at = at
    row.save()


def _enter_boards(*, user_id: int, bucket: str, pool: str, end: GameEnd) -> None:
    """A ranked win joins the player's record chains of its pool (time, and 3BV/s if any)."""
    if bucket == "custom" or pool == BoardPool.NONE:  # custom boards are never ranked
        return
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
    _update_chains(user_id=user_id, level=bucket, pool=pool, new=chains, now=end.ended_at)


def record_game_end(
    *,
    user_id: int,
    level: str,
    won: bool,
    game_id: Any,
    elapsed_ms: int,
    bbbv_per_s: float | None,
    ended_at: datetime,
    ranked: bool = True,
    pool: str = BoardPool.HUMAN,
) -> GameEndResult | None:
    """Called by the games service inside the transaction that ends a game. `pool` is the
    player's BoardPool; `ranked` whether the game may enter the boards. Returns what
    personal bests the game set, or None when it set none."""
    bucket = bucket_for(level)
    end = _game_end(
        won=won,
        game_id=game_id,
        elapsed_ms=elapsed_ms,
        bbbv_per_s=bbbv_per_s,
        ended_at=ended_at,
        ranked=ranked and pool != BoardPool.NONE,
    )
    with transaction.atomic():
        row = _lock_stats_row(user_id=user_id, bucket=bucket)
        after, result = stats_after(_summary(row), end)
        _save_summary(row, after, pool=pool, at=ended_at)
        if won and end.ranked:
            _enter_boards(user_id=user_id, bucket=bucket, pool=pool, end=end)
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
) -> GameEndResult | None:
    """A won game held for review and then cleared by staff: it sets the bests it would have
    set at its end, and joins the boards at the time it was won. Played, won and streaks
    already counted it at the end."""
    bucket = bucket_for(level)
    end = _game_end(
        won=True,
        game_id=game_id,
        elapsed_ms=elapsed_ms,
        bbbv_per_s=bbbv_per_s,
        ended_at=ended_at,
        ranked=True,
    )
    with transaction.atomic():
        row = _lock_stats_row(user_id=user_id, bucket=bucket)
        after, result = ranked_win_after(_summary(row), end)
        _save_summary(row, after, pool=pool, at=row.updated_at or ended_at)
        _enter_boards(user_id=user_id, bucket=bucket, pool=pool, end=end)
    return result or None


def remove_from_boards(*, user_id: int) -> None:
    """A flagged account leaves every board: its record chains go, and its streak rows rank
    nowhere. Its statistics stay as they are (RULES.md, Fair play)."""
    PersonalRecord.objects.filter(user_id=user_id).delete()
    PlayerStats.objects.filter(user_id=user_id).update(pool=BoardPool.NONE)


# --- reads ------------------------------------------------------------------------------------


def empty_stats() -> dict[str, Any]:
    return stats_dict(None)


def _str(value: UUID | None) -> str | None:
    return str(value) if value is not None else None


def stats_dict(row: PlayerStats | None) -> dict[str, Any]:
    """API.md "Stats per level", plus the games where each streak began and ended and when
    each best was achieved."""
    if row is None:
        row = PlayerStats()
    return {
        "played": row.played,
        "won": row.won,
        "win_rate": round(row.won / row.played, 4) if row.played else 0.0,
        "current_streak": row.current_streak,
        "best_streak": row.best_streak,
        "best_time_ms": row.best_time_ms,
        "best_time_game_id": _str(row.best_time_game),
        "best_bbbv_per_s": round(row.best_bbbv_per_s, 3)
        if row.best_bbbv_per_s is not None
        else None,
        "best_bbbv_per_s_game_id": _str(row.best_bbbv_per_s_game),
        "average_win_ms": round(row.total_win_ms / row.won) if row.won else None,
        "best_times": list(row.best_times or []),
        "current_streak_first_game_id": _str(row.current_streak_first_game),
        "current_streak_last_game_id": _str(row.current_streak_last_game),
        "best_streak_first_game_id": _str(row.best_streak_first_game),
        "best_streak_last_game_id": _str(row.best_streak_last_game),
        "best_time_achieved_at": iso(row.best_time_at),
        "best_bbbv_per_s_achieved_at": iso(row.best_bbbv_per_s_at),
    }


def stats_for_user(*, user_id: int) -> dict[str, dict[str, Any]]:
    """All seven buckets, zeros and nulls where nothing was played (API.md, Fine points)."""
    rows = {row.level: row for row in PlayerStats.objects.filter(user_id=user_id)}
    return {bucket: stats_dict(rows.get(bucket)) for bucket in BUCKETS}
