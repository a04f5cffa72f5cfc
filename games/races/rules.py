"""The rules of races (RULES.md, Races; docs/RACES.md) as pure functions: time limits, places,
who is rated, and how quick match forms a race. No Django, no I/O.

    >>> places([Result(won=True, elapsed_ms=40_000, opened=71, lasted_ms=40_000),
    ...         Result(won=False, elapsed_ms=12_000, opened=30, lasted_ms=12_000),
    ...         Result(won=True, elapsed_ms=38_500, opened=71, lasted_ms=38_500)])
    [2, 3, 1]
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

MIN_RACERS = 2
MAX_RACERS = 8
COUNTDOWN_MS = 3000
# A room not started this long after its creation is cancelled by the race clock (a forgotten
# room would keep its racers out of every other race and queue).
OPEN_ROOM_MS = 2 * 60 * 60 * 1000

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
