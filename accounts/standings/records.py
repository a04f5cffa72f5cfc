"""The rules of statistics, pure (RULES.md, Statistics; docs/STATS.md; docs/FAIRPLAY.md):
streaks, the five best times, a level's summary after one more game, and the personal-record
chains that make every rolling leaderboard period one index filter.

Every function takes the state before a game end and returns the state after it, with no
I/O, so the rules are tested as tables (tests/standings/test_streaks.py). The writes that
apply them are in accounts.standings.stats; the boards that read the chains, in accounts.standings.leaderboards,
use `chain_filter` below: the chain rule and its SQL live side by side.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID

from accounts.models import RANKED_LEVELS
from accounts.standings.models import CHAIN_START
from demineur_site.formats import iso

BEST_TIMES_KEPT = 5
# Chain links older than this (other than the all-time head) can never again be a player's
# best in a rolling period (the longest is 365 days), so they are dropped.
CHAIN_HORIZON = timedelta(days=366)


# The suffix of a no-guess bucket (docs/NOGUESS.md, "Buckets"): `expert` holds classic Expert
# games, `expert:ng` no-guess ones, in every table keyed by a level (PlayerStats,
# PersonalRecord, RaceRating, the board counts, the race queue), so the two never mix.
NO_GUESS_SUFFIX = ":ng"
MODES = ("classic", "no_guess")


def bucket_for(level: str, no_guess: bool = False) -> str:
    """The statistics bucket of a game's level and mode: the level itself, or `custom`, with
    NO_GUESS_SUFFIX for a no-guess game.

    >>> bucket_for("expert"), bucket_for("expert", no_guess=True), bucket_for("custom", True)
    ('expert', 'expert:ng', 'custom:ng')
    """
    base = level if level in RANKED_LEVELS else "custom"
    return base + NO_GUESS_SUFFIX if no_guess else base


def base_level(bucket: str) -> str:
    """The level of a bucket, without its mode.

    >>> base_level("expert:ng"), base_level("hard")
    ('expert', 'hard')
    """
    return bucket.removesuffix(NO_GUESS_SUFFIX)


def is_custom(bucket: str) -> bool:
    """Whether a bucket is custom boards' (classic or no-guess): never ranked."""
    return base_level(bucket) == "custom"


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

    >>> from datetime import UTC
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
    # The same two bests among the wins without a flag ever placed (NF, docs/STATS.md).
    nf_best_time_ms: int | None = None
    nf_best_time_game: UUID | None = None
    nf_best_time_at: datetime | None = None
    nf_best_bbbv_per_s: float | None = None
    nf_best_bbbv_per_s_game: UUID | None = None
    nf_best_bbbv_per_s_at: datetime | None = None


# RULES.md, Fair play: the reasons a win sets no best of its bucket. A pause let the player
# think while the clock stood still, a held game waits for staff (who may clear it: then it
# sets its bests, `bests_after`), a flagged account's times are not believed. Every other win
# sets its own bucket's bests, unranked or not: a custom board's in `custom`, a guest's in the
# guest's own profile. The boards are another matter: only ranked games reach them.
NO_BEST_REASONS = frozenset({"paused", "review", "flagged"})


def sets_bests(*, unranked_reason: str | None, flagged: bool, paused: bool) -> bool:
    """Whether a won game may set its bucket's bests. `paused` and `flagged` are asked apart
    from the reason because a game keeps its first reason: a custom or guest game that is
    paused stays `custom` or `guest`, and a flagged account's custom game stays `custom`.

    >>> sets_bests(unranked_reason="custom", flagged=False, paused=False)
    True
    >>> sets_bests(unranked_reason="guest", flagged=False, paused=True)
    False
    >>> sets_bests(unranked_reason="review", flagged=False, paused=False)
    False
    """
    return unranked_reason not in NO_BEST_REASONS and not flagged and not paused


@dataclass(frozen=True)
class GameEnd:
    won: bool
    game_id: UUID
    elapsed_ms: int
    bbbv_per_s: float | None
    ended_at: datetime
    # Whether the game may enter the boards (RULES.md, Fair play).
    ranked: bool = True
    # Whether a win sets the bucket's bests (`sets_bests`); None: as `ranked` (a ranked game
    # always may). Either way the game counts in played, won, streaks and the average.
    bests: bool | None = None
    # A win without a flag ever placed (NF): it also sets the bucket's NF bests and joins the
    # NF boards (docs/STATS.md, No-flag records).
    no_flags: bool = False

    @property
    def sets_bests(self) -> bool:
        return self.ranked if self.bests is None else self.bests


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
    if not end.sets_bests:
        return out, GameEndResult()
    return bests_after(out, end)


def bests_after(s: Summary, end: GameEnd) -> tuple[Summary, GameEndResult]:
    """The best times and 3BV/s after a win that sets bests: at its end, or when staff clear
    a game held for review (then possibly out of order: the five best are sorted, not
    appended)."""
    out = replace(
        s,
        best_times=tuple(
            best_times_after(
                s.best_times, time_ms=end.elapsed_ms, game_id=end.game_id, achieved_at=end.ended_at
            )
        ),
    )
    out, best_time, best_speed = _two_bests(out, end, prefix="")
    if end.no_flags:
        out, _, _ = _two_bests(out, end, prefix="nf_")
    return out, GameEndResult(best_time=best_time, best_speed=best_speed)


def _two_bests(s: Summary, end: GameEnd, *, prefix: str) -> tuple[Summary, bool, bool]:
    """The best time and 3BV/s of `s` named `{prefix}best_...` after the win `end`, and
    whether each is new."""
    time_now = getattr(s, f"{prefix}best_time_ms")
    best_time = time_now is None or end.elapsed_ms < time_now
    changes: dict[str, Any] = {}
    if best_time:
        changes |= {
            f"{prefix}best_time_ms": end.elapsed_ms,
            f"{prefix}best_time_game": end.game_id,
            f"{prefix}best_time_at": end.ended_at,
        }
    # A game won by its first tap has no 3BV/s (API.md, Fine points): it never counts here.
    speed, speed_now = end.bbbv_per_s, getattr(s, f"{prefix}best_bbbv_per_s")
    best_speed = speed is not None and (speed_now is None or speed > speed_now)
    if best_speed:
        changes |= {
            f"{prefix}best_bbbv_per_s": speed,
            f"{prefix}best_bbbv_per_s_game": end.game_id,
            f"{prefix}best_bbbv_per_s_at": end.ended_at,
        }
    return replace(s, **changes), best_time, best_speed


@dataclass(frozen=True)
class Link:
    """One link of a record chain (see accounts.standings.models.PersonalRecord). Lower score is better."""

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


def chain_filter(alias: str, cutoff: datetime | None) -> tuple[str, list[Any]]:
    """The chain rule as SQL: the links that are each player's best since `cutoff` (the
    all-time heads when None). Along a chain scores never get worse with time, so a player's
    best in a period starting at `c` is the first link with achieved_at >= c: the link whose
    predecessor is older than c (see accounts.standings.models.PersonalRecord)."""
    if cutoff is None:
        return f"{alias}.prev_at = %s", [CHAIN_START]
    return f"{alias}.achieved_at >= %s AND {alias}.prev_at < %s", [cutoff, cutoff]


def skill_after(current: int, best: int, outcomes: Iterable[str]) -> tuple[int, int]:
    """The skill streak (RULES.md, No-guess boards, Analysis) after more games, in end order:
    a `win` extends it, an `unlucky` loss (lost on a forced guess) neither counts nor breaks
    it, any other `loss` (a mine opened by an avoidable guess, a resign, an abandon) ends it.

    >>> skill_after(0, 0, ["win", "unlucky", "win", "loss", "win"])
    (1, 2)
    """
    for outcome in outcomes:
        if outcome == "win":
            current += 1
            best = max(best, current)
        elif outcome != "unlucky":
            current = 0
    return current, best


# A player's coin flips of one month (docs/STATS.md, Luck, measured): [won, lost, expected
# survivals], keyed "YYYY-MM" (the month of the games' ends, UTC) in PlayerStats.luck_months.
LuckMonths = dict[str, list[float]]


def luck_months_after(months: LuckMonths, month: str, flips: Sequence[float]) -> LuckMonths:
    """`months` with one game's coin flips (won, lost, expected survivals) added to `month`.

    >>> luck_months_after({"2026-11": [1, 0, 0.5]}, "2026-11", (2, 1, 1.25))
    {'2026-11': [3, 1, 1.75]}
    """
    before = months.get(month, [0, 0, 0.0])
    return {**months, month: [before[0] + flips[0], before[1] + flips[1], before[2] + flips[2]]}


def luck_series(months: LuckMonths) -> list[dict[str, Any]]:
    """The months oldest first, each with its luck (won minus expected) and the luck summed
    up to it.

    >>> [(m["month"], m["luck"], m["cumulative_luck"]) for m in luck_series(
    ...     {"2026-12": [1, 1, 1.5], "2026-11": [2, 0, 1.0]})]
    [('2026-11', 1.0, 1.0), ('2026-12', -0.5, 0.5)]
    """
    out: list[dict[str, Any]] = []
    total = 0.0
    for month in sorted(months):
        won, lost, expected = months[month]
        total += won - expected
        out.append(
            {
                "month": month,
                "coin_flips_won": int(won),
                "coin_flips_lost": int(lost),
                "expected_survivals": round(expected, 4),
                "luck": round(won - expected, 4),
                "cumulative_luck": round(total, 4),
            }
        )
    return out


def luck_totals(months: LuckMonths) -> dict[str, Any]:
    """The coin flips of every month together, and their luck.

    >>> luck_totals({"2026-12": [1, 1, 1.5], "2026-11": [2, 0, 1.0]})
    {'coin_flips_won': 3, 'coin_flips_lost': 1, 'expected_survivals': 2.5, 'luck': 0.5}
    """
    won = sum(m[0] for m in months.values())
    expected = sum(m[2] for m in months.values())
    return {
        "coin_flips_won": int(won),
        "coin_flips_lost": int(sum(m[1] for m in months.values())),
        "expected_survivals": round(expected, 4),
        "luck": round(won - expected, 4),
    }


def adjusted_after(current: int, best: int, outcomes: Iterable[str]) -> tuple[int, int]:
    """The luck-adjusted streak (docs/STATS.md, Luck, measured) after more games, in end order:
    the streak had every forced guess gone the player's way, so an `unlucky` loss counts as
    the win it would have been; any other `loss` ends it, a `win` extends it.

    >>> adjusted_after(0, 0, ["win", "unlucky", "win", "loss", "win"])
    (1, 3)
    """
    return skill_after(current, best, ("win" if o == "unlucky" else o for o in outcomes))
