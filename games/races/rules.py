"""The rules of races (RULES.md, Races; docs/RACES.md) as pure functions: time limits, places,
who is rated, and how quick match forms a race. No Django, no I/O.

    >>> places([Result(won=True, elapsed_ms=40_000, opened=71, lasted_ms=40_000),
    ...         Result(won=False, elapsed_ms=12_000, opened=30, lasted_ms=12_000),
    ...         Result(won=True, elapsed_ms=38_500, opened=71, lasted_ms=38_500)])
    [2, 3, 1]
"""

from __future__ import annotations

import secrets
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import combinations
from typing import Any, Protocol

MIN_RACERS = 2
MAX_RACERS = 8
COUNTDOWN_MS = 3000
# A room not started this long after its creation is cancelled by the race clock (a forgotten
# room would keep its racers out of every other race and queue).
OPEN_ROOM_MS = 2 * 60 * 60 * 1000
# Rooms an account opened that are still open (not started), at most: each is listed for up
# to OPEN_ROOM_MS, and a room stays open after its creator leaves while someone else waits in
# it, so without a cap one account could fill the list (409 too_many_rooms).
MAX_OPEN_ROOMS = 3
# Two players are rated against each other at most this many times per level and UTC day
# (docs/RACES.md, Rated races): beyond it their races still count, but not in the ratings.
PAIR_RATED_PER_DAY = 5

# Each level's time limit is a setting (RACE_TIME_LIMITS_S), fixed on a race at its creation.

# Race codes: six characters a person can read aloud and type (no 0/O, 1/I/L).
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6


def new_code() -> str:
    """A random race code.

    >>> code = new_code()
    >>> len(code), set(code) <= set(CODE_ALPHABET)
    (6, True)
    """
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normalize_code(raw: str) -> str:
    """What a player typed, as stored: upper case, no spaces or dashes.

    >>> normalize_code(" k7qx-2m ")
    'K7QX2M'
    """
    return "".join(ch for ch in raw.upper() if ch not in " -")


# --- places ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Result:
    """One racer's result: whether they won (cleared the board), their time if so, the safe
    cells they opened and how long they lasted (their clock when they were done)."""

    won: bool
    elapsed_ms: int
    opened: int
    lasted_ms: int


def ranks(keys: Sequence[Any]) -> list[int]:
    """Competition ranking of comparable keys, smallest first: equal keys share a rank and
    the next rank is skipped.

    >>> ranks([3, 1, 3, 2])
    [3, 1, 3, 2]
    >>> ranks([2, 2, 5])
    [1, 1, 3]
    """
    return [1 + sum(1 for other in keys if other < key) for key in keys]


def _key(result: Result) -> tuple[int, int, int]:
    if result.won:
        return (0, result.elapsed_ms, 0)
    return (1, -result.opened, -result.lasted_ms)


def places(results: Sequence[Result]) -> list[int]:
    """Places, 1 first, in the order of `results` (RULES.md, Races, The end): the winners by
    time, then everyone else by safe cells opened (more is better), then by how long they
    lasted (longer is better). Equal results share a place and the next place is skipped.

    >>> places([Result(False, 0, 10, 5000), Result(False, 0, 10, 5000), Result(False, 0, 3, 9000)])
    [1, 1, 3]
    >>> places([Result(False, 0, 20, 1000), Result(False, 0, 20, 8000)])
    [2, 1]
    """
    return ranks([_key(r) for r in results])


# --- ratings ---------------------------------------------------------------------------------

RATED_POOLS = ("human", "bot")


def rated_pools(pools: Sequence[str]) -> list[str]:
    """The pools rated in a race whose racers are in `pools` (accounts BoardPool values): a
    pool with at least two racers is rated among itself (RULES.md: a race of at least two
    human racers is rated; bots are rated among bots, docs/RACES.md). Guests and flagged
    accounts (pool `none`) are never rated.

    >>> rated_pools(["human", "bot", "human", "none"])
    ['human']
    >>> rated_pools(["human", "bot"])
    []
    """
    return [pool for pool in RATED_POOLS if sum(1 for p in pools if p == pool) >= MIN_RACERS]


# --- who a finished race rates (docs/RACES.md, Rated races) ---------------------------------


@dataclass(frozen=True)
class Entrant:
    """One racer of a rated pool as the rating rules see them: their place in the race and
    whether they took part (revealed or chorded at least once after the server's opening)."""

    player_id: int
    place: int
    took_part: bool


@dataclass(frozen=True)
class RatingPlan:
    """Positions in the pool's list of entrants. `rivals` are rated among themselves by their
    places (two or more, or nobody). Each of `losers` (they never took part) is rated by their
    place against `against` (everyone who took part) and only when that loses them rating:
    they can lose, never gain, and no rating moves because of them. `kept` have no rival who
    took part (RULES.md: they keep their rating): their rating is shown, before and after
    alike, rather than left blank as for a racer the race did not rate at all."""

    rivals: tuple[int, ...]
    losers: tuple[int, ...]
    against: tuple[int, ...]
    kept: tuple[int, ...] = ()


def rating_plan(
    entrants: Sequence[Entrant],
    *,
    rated_together: Callable[[int, int], int],
    limit: int = PAIR_RATED_PER_DAY,
) -> RatingPlan:
    """Who a finished race rates in one pool. Only racers who took part gain or lose against
    each other, and only if at least two did; `rated_together(a, b)` is how many times the
    players a and b have already been rated against each other today: racers are taken best
    place first (then in the order they joined), each one unless they have reached `limit`
    with one already taken.

    The farm (nobody moves; the main account lasts longest): nobody gains or loses, everyone
    keeps their rating (nobody has a rival who took part).

    >>> farm = [Entrant(1, 1, False)] + [Entrant(i, 2, False) for i in range(2, 9)]
    >>> rating_plan(farm, rated_together=lambda a, b: 0)
    RatingPlan(rivals=(), losers=(), against=(), kept=(0, 1, 2, 3, 4, 5, 6, 7))

    The main account moves alone: it has no rival who took part and keeps its rating; the
    others can only lose to it.

    >>> rating_plan([Entrant(1, 1, True), Entrant(2, 2, False)], rated_together=lambda a, b: 0)
    RatingPlan(rivals=(), losers=(1,), against=(0,), kept=(0,))

    Two who raced are rated as always, unless they have met `limit` times today:

    >>> two = [Entrant(1, 2, True), Entrant(2, 1, True)]
    >>> rating_plan(two, rated_together=lambda a, b: 0).rivals
    (0, 1)
    >>> rating_plan(two, rated_together=lambda a, b: PAIR_RATED_PER_DAY).rivals
    ()
    >>> met = {frozenset((1, 2)): PAIR_RATED_PER_DAY}
    >>> three = two + [Entrant(3, 3, True)]
    >>> rating_plan(three, rated_together=lambda a, b: met.get(frozenset((a, b)), 0)).rivals
    (1, 2)
    """
    took = tuple(i for i, e in enumerate(entrants) if e.took_part)
    rivals: list[int] = []
    for i in sorted(took, key=lambda i: (entrants[i].place, i)):
        mine = entrants[i].player_id
        if all(rated_together(mine, entrants[j].player_id) < limit for j in rivals):
            rivals.append(i)
    if len(rivals) < MIN_RACERS:
        rivals = []
    losers = tuple(i for i, e in enumerate(entrants) if not e.took_part) if took else ()
    # Racers beyond the pair limit do have rivals who took part: they are not rated in this
    # race (their rating is left blank), which is not keeping it.
    kept = tuple(i for i in range(len(entrants)) if not any(j != i for j in took))
    return RatingPlan(rivals=tuple(sorted(rivals)), losers=losers, against=took, kept=kept)


def utc_day(instant: datetime) -> datetime:
    """The start of the UTC day of an aware `instant` (the pair limit counts per UTC day).

    >>> from datetime import timedelta, timezone
    >>> utc_day(datetime(2026, 3, 1, 0, 30, tzinfo=timezone(timedelta(hours=2))))
    datetime.datetime(2026, 2, 28, 0, 0, tzinfo=datetime.timezone.utc)
    """
    return instant.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)


def pairs_rated(races: Iterable[Iterable[int]]) -> Counter[frozenset[int]]:
    """How many times each pair of players was rated against each other, from the players
    who gained or lost against each other in each race (the `rivals` of each race).

    >>> pairs_rated([[1, 2, 3], [2, 1]])[frozenset((1, 2))]
    2
    """
    counts: Counter[frozenset[int]] = Counter()
    for players in races:
        counts.update(frozenset(pair) for pair in combinations(sorted(set(players)), 2))
    return counts


# --- quick match -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Waiting:
    player_id: int
    rating: float
    joined_at: datetime


@dataclass(frozen=True)
class MatchRule:
    """docs/RACES.md, Quick match: a race forms at once when MAX_RACERS wait; otherwise once
    the longest-waiting player has waited `gather_s`, with everyone whose rating is within
    `window(waited)` of theirs (the window widens the longer they wait)."""

    gather_s: float = 3.0
    window_base: float = 150.0
    window_per_s: float = 50.0

    def window(self, waited_s: float) -> float:
        return self.window_base + self.window_per_s * max(0.0, waited_s)


def pick_match(
    waiting: Sequence[Waiting], *, now: datetime, rule: MatchRule = MatchRule()
) -> list[int] | None:
    """The players of the next quick-match race of one level, the longest-waiting first, or
    None while nobody should start yet.

    >>> from datetime import datetime, timedelta
    >>> t = datetime(2026, 1, 1)
    >>> a, b = Waiting(1, 1500, t), Waiting(2, 1520, t + timedelta(seconds=1))
    >>> pick_match([a, b], now=t + timedelta(seconds=2)) is None  # still gathering
    True
    >>> pick_match([b, a], now=t + timedelta(seconds=3))
    [1, 2]
    >>> far = Waiting(3, 2600, t)
    >>> pick_match([far, b], now=t + timedelta(seconds=4)) is None  # 1080 apart: not yet
    True
    """
    if len(waiting) < MIN_RACERS:
        return None
    queue = sorted(waiting, key=lambda w: (w.joined_at, w.player_id))
    anchor = queue[0]
    waited = (now - anchor.joined_at).total_seconds()
    by_distance = sorted(queue[1:], key=lambda w: (abs(w.rating - anchor.rating), w.joined_at))
    if len(queue) >= MAX_RACERS:
        return [anchor.player_id, *(w.player_id for w in by_distance[: MAX_RACERS - 1])]
    if waited < rule.gather_s:
        return None
    window = rule.window(waited)
    close = [w for w in by_distance if abs(w.rating - anchor.rating) <= window]
    if not close:
        return None
    return [anchor.player_id, *(w.player_id for w in close[: MAX_RACERS - 1])]


class RaceCounts(Protocol):
    races: int
    wins: int
    podiums: int
    rated_races: int


def count_race(row: RaceCounts, place: int, *, rated: bool) -> None:
    """A finished race in one racer's counts, the same at the race's end
    (games.races.services) and when `recompute_race_ratings` replays the history.

    >>> from types import SimpleNamespace
    >>> row = SimpleNamespace(races=0, wins=0, podiums=0, rated_races=0)
    >>> count_race(row, 1, rated=True); count_race(row, 4, rated=False)
    >>> (row.races, row.wins, row.podiums, row.rated_races)
    (2, 1, 1, 1)
    """
    row.races += 1
    row.wins += place == 1
    row.podiums += place <= 3
    row.rated_races += rated
