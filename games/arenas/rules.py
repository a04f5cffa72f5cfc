"""The rules of arenas (RULES.md and API.md, Arenas; docs/ARENAS.md) as pure functions: how the
pool is split into races, who races whom, the points of one race and a player's standing from
their races. No Django, no I/O.

    >>> split_sizes(1), split_sizes(2), split_sizes(8), split_sizes(9), split_sizes(20)
    ([], [2], [8], [5, 4], [7, 7, 6])
"""

from __future__ import annotations

import ipaddress
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from games.races.rules import MAX_RACERS, MIN_RACERS, ranks

MIN_MINUTES = 20
MAX_MINUTES = 180
# Arenas not finished yet (scheduled or running) that one account created, at most (409
# `too_many_arenas`): each is listed until it ends, up to 30 days ahead.
MAX_OPEN_ARENAS = 3
# The same, per client address (an IPv6 address counted by its /64, what one line usually
# gets): accounts are cheap to make (a guest per request, then signed up), so the cap per
# account alone let one address keep hundreds of arenas listed. Ten leaves room for a club or
# a class behind one address, each of whose arenas can take a hundred players.
MAX_OPEN_ARENAS_PER_ADDRESS = 10
# An arena's optional minimum of players (docs/ARENAS.md): its first races wait until that many
# are in the pool at once. The default, 2, is no minimum at all (a race needs two).
MIN_PLAYERS = 2
MAX_MIN_PLAYERS = 64
# No race forms in the last PAIRING_STOP_MS of an arena: it would barely start before the end.
PAIRING_STOP_MS = 30_000
# A player who leaves an arena and joins it again waits this long before being paired.
REJOIN_PENALTY_MS = 10_000
# Two players whose last race was against each other alone wait this long for someone else
# before they are paired together again (docs/SECURITY.md, Arenas: collusion).
REMATCH_WAIT_MS = 15_000
# Points by place (docs/ARENAS.md): the base points, times the race's size factor.
WIN_POINTS = 4
TOP_HALF_POINTS = 2
# Anyone else scores nothing: a quick loss (a mine clicked on purpose) must not pay.
OTHER_POINTS = 0
SOLO_POINTS = 1
BIG_RACE = 5  # a race with at least this many racers who took part scores double
STREAK_FIRE = 2  # wins in a row that light the fire: each next win scores double


# --- names and addresses ---------------------------------------------------------------------

# The bidirectional controls (embeddings, overrides, isolates and the marks): inside a name
# shown in a list they reorder what follows, so "Friday" can read as someone else's text.
BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f"
    + "".join(chr(c) for c in range(0x202A, 0x202F))
    + "".join(chr(c) for c in range(0x2066, 0x206A))
)


def name_problem(name: str) -> str | None:
    r"""Why an arena's name (already stripped, not empty) is refused, or None: `bidi` for a
    bidirectional control anywhere, `control` for a control character or a lone surrogate,
    `blank` when nothing is left to see once the format characters (Unicode category Cf: the
    zero-width ones among them) and the white space are taken out. A zero-width joiner inside
    a visible name stays allowed (emoji sequences and some scripts need it).

    >>> name_problem("Friday night"), name_problem("caf\u00e9 \U0001f9d1\u200d\U0001f4bb")
    (None, None)
    >>> name_problem("\u202eFriday"), name_problem("a\u2067b"), name_problem("\u200f")
    ('bidi', 'bidi', 'bidi')
    >>> name_problem("\u200b\u200c \u2060\ufeff"), name_problem("line\nbreak")
    ('blank', 'control')
    """
    if any(ch in BIDI_CONTROLS for ch in name):
        return "bidi"
    if any(unicodedata.category(ch) in ("Cc", "Cs") for ch in name):
        return "control"
    if all(ch.isspace() or unicodedata.category(ch) == "Cf" for ch in name):
        return "blank"
    return None


def address_key(address: str) -> str:
    """What the cap per address counts by: an IPv4 address as it is, an IPv6 one by its /64
    (one line's usual share: its other addresses cost nothing), anything else as given.

    >>> address_key("203.0.113.7"), address_key("2001:db8:1:2:aaaa::1")
    ('203.0.113.7', '2001:db8:1:2::/64')
    """
    try:
        ip = ipaddress.ip_address(address.strip())
    except ValueError:
        return address.strip()
    if ip.version == 6:
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


def split_sizes(n: int) -> list[int]:
    """The sizes of the races a pool of `n` waiting players forms: nothing for fewer than two,
    one race of 2 to 8, and from 9 on as few races as hold everyone, as equal as can be.

    >>> split_sizes(0), split_sizes(3), split_sizes(16), split_sizes(17)
    ([], [3], [8, 8], [6, 6, 5])
    """
    if n < MIN_RACERS:
        return []
    count = -(-n // MAX_RACERS)
    small, extra = divmod(n, count)
    return [small + 1] * extra + [small] * (count - extra)


# --- pairing ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Waiting:
    """A player in an arena's pool: since when they wait, their arena score, their race
    rating for the arena's level, and the players of their last race in this arena."""

    player_id: int
    since: datetime
    score: int
    rating: float
    last_race: frozenset[int] = field(default_factory=frozenset)


def _rematch(a: Waiting, b: Waiting) -> bool:
    """Whether a race of a and b alone would replay their last race, the two of them alone."""
    return a.last_race == b.last_race == frozenset((a.player_id, b.player_id))


def pair(
    pool: Sequence[Waiting], *, now: datetime, rematch_wait_ms: int = REMATCH_WAIT_MS
) -> list[list[int]]:
    """The races to form now from an arena's pool, each a list of player ids (its first the
    longest-waiting). The pool is split by `split_sizes`; each race takes the longest-waiting
    player left, then the players nearest to them in arena score, then in rating (then the
    longer-waiting). Races of two form only from a pool of two (from nine on, each race holds
    four or more): two players whose last race was the two of them alone are not paired
    again until the longer-waiting of them has waited `rematch_wait_ms`, so that a third
    player who comes back meanwhile makes it a race of three.

    >>> from datetime import datetime, timedelta
    >>> t = datetime(2026, 1, 1)
    >>> pair([Waiting(1, t, 0, 1500)], now=t)
    []
    >>> pair([Waiting(2, t, 9, 1500), Waiting(1, t, 0, 1500), Waiting(3, t, 1, 1500)], now=t)
    [[1, 2, 3]]
    >>> four = [Waiting(i, t + timedelta(seconds=i), s, 1500) for i, s in enumerate([0, 8, 1, 9])]
    >>> pair(four, now=t)  # four players form one race, the longest-waiting first
    [[0, 1, 2, 3]]
    >>> nine = [Waiting(i, t + timedelta(seconds=i), s, 1500) for i, s in
    ...         enumerate([0, 30, 1, 29, 2, 28, 3, 27, 4])]
    >>> pair(nine, now=t)  # split 5 + 4, each by arena score
    [[0, 2, 4, 6, 8], [1, 3, 5, 7]]
    >>> again = [Waiting(1, t, 4, 1500, frozenset({1, 2})), Waiting(2, t, 1, 1500, frozenset({1, 2}))]
    >>> pair(again, now=t + timedelta(seconds=5)), pair(again, now=t + timedelta(seconds=15))
    ([], [[1, 2]])
    """
    queue = sorted(pool, key=lambda w: (w.since, w.player_id))
    if len(queue) == MIN_RACERS and _rematch(*queue):
        # Only the pool's two can meet, and they just did, alone: they wait for a third.
        waited_ms = (now - queue[0].since).total_seconds() * 1000
        if waited_ms < rematch_wait_ms:
            return []
    races: list[list[int]] = []
    for size in split_sizes(len(queue)):
        seed, rest = queue[0], queue[1:]
        nearest = sorted(
            rest,
            key=lambda w: (abs(w.score - seed.score), abs(w.rating - seed.rating), w.since),
        )
        picked = {w.player_id for w in nearest[: size - 1]}
        races.append([seed.player_id, *(w.player_id for w in rest if w.player_id in picked)])
        queue = [w for w in rest if w.player_id not in picked]
    return races


# --- points ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class RaceResult:
    """One player's result in one arena race, as the points see it: their place among the
    racers who took part (None when they did not), how many took part, and whether the player
    took part (a reveal or chord of their own after the opening) and whether they left the race
    or resigned their game (both are leaving, RULES.md, Races)."""

    place: int | None
    takers: int
    took_part: bool
    left: bool = False


def places_among_takers(places: Sequence[int], took_part: Sequence[bool]) -> list[int | None]:
    """Each racer's place among the racers who took part (None for the others), from their
    places in the race (games.races.rules.places).

    >>> places_among_takers([1, 2, 3, 3], [False, True, True, True])
    [None, 1, 2, 2]
    """
    taken = ranks([p for p, t in zip(places, took_part, strict=True) if t])
    it = iter(taken)
    return [next(it) if t else None for t in took_part]


def size_factor(takers: int) -> int:
    """Points are doubled in a race of BIG_RACE or more racers who took part.

    >>> size_factor(2), size_factor(4), size_factor(5), size_factor(8)
    (1, 1, 2, 2)
    """
    return 2 if takers >= BIG_RACE else 1


def base_points(result: RaceResult) -> int:
    """The points of one race before the streak: 0 for a race left or untouched; SOLO_POINTS
    when nobody else took part; else by place among the racers who took part: first
    WIN_POINTS, the top half TOP_HALF_POINTS, anyone else OTHER_POINTS (nothing), times
    `size_factor`.

    >>> base_points(RaceResult(1, 2, True)), base_points(RaceResult(2, 2, True))
    (4, 0)
    >>> [base_points(RaceResult(p, 8, True)) for p in range(1, 9)]
    [8, 4, 4, 4, 0, 0, 0, 0]
    >>> base_points(RaceResult(None, 3, False)), base_points(RaceResult(1, 3, True, left=True))
    (0, 0)
    >>> base_points(RaceResult(1, 1, True))
    1
    """
    if is_void(result):
        return 0
    assert result.place is not None
    if result.takers < MIN_RACERS:
        return SOLO_POINTS
    if result.place == 1:
        base = WIN_POINTS
    elif result.place <= result.takers // 2:
        base = TOP_HALF_POINTS
    else:
        base = OTHER_POINTS
    return base * size_factor(result.takers)


def is_void(result: RaceResult) -> bool:
    """A race the player left, or in which they made no move of their own: no points, and
    it ends their streak."""
    return result.left or not result.took_part or result.place is None


def is_win(result: RaceResult) -> bool:
    """A first place (shared or not) among two or more racers who took part."""
    return not is_void(result) and result.takers >= MIN_RACERS and result.place == 1


@dataclass(frozen=True)
class Standing:
    """A player's arena standing from their races in the order they started: the points of each
    race, the total, races, wins, the current run of wins (`streak`) and whether the next win
    scores double (`fire`)."""

    points: tuple[int, ...]
    score: int
    races: int
    wins: int
    streak: int

    @property
    def fire(self) -> bool:
        return self.streak >= STREAK_FIRE


def standing(results: Sequence[RaceResult]) -> Standing:
    """Fold a player's races, in the order they started, into their standing. Two wins in a
    row light the fire: each next win scores double, until a race is not won. A race with
    nobody else taking part scores SOLO_POINTS and neither wins nor breaks the run.

    >>> w = RaceResult(1, 2, True)
    >>> lost = RaceResult(2, 2, True)
    >>> s = standing([w, w, w, w, lost, w])
    >>> s.points, s.score, s.wins, s.streak, s.fire
    ((4, 4, 8, 8, 0, 4), 28, 5, 1, False)
    >>> standing([w, w]).fire
    True
    >>> standing([w, w, RaceResult(None, 2, False), w]).points
    (4, 4, 0, 4)
    >>> standing([w, w, RaceResult(1, 1, True), w]).points  # alone: the fire stays lit
    (4, 4, 1, 8)
    """
    points: list[int] = []
    streak = wins = 0
    for result in results:
        base = base_points(result)
        if is_win(result):
            points.append(base * 2 if streak >= STREAK_FIRE else base)
            streak += 1
            wins += 1
        elif not is_void(result) and result.takers < MIN_RACERS:
            points.append(base)  # alone in the race: no contest, the run goes on
        else:
            points.append(base)
            streak = 0
    return Standing(
        points=tuple(points), score=sum(points), races=len(points), wins=wins, streak=streak
    )


def pairing_open(*, now: datetime, starts_at: datetime, ends_at: datetime) -> bool:
    """Whether races may form now: from the start until PAIRING_STOP_MS before the end.

    >>> from datetime import datetime, timedelta
    >>> t = datetime(2026, 1, 1)
    >>> end = t + timedelta(minutes=20)
    >>> pairing_open(now=t, starts_at=t, ends_at=end)
    True
    >>> pairing_open(now=end - timedelta(seconds=29), starts_at=t, ends_at=end)
    False
    """
    return starts_at <= now and (ends_at - now).total_seconds() * 1000 >= PAIRING_STOP_MS


def pool_may_pair(*, waiting: int, min_players: int, paired_before: bool) -> bool:
    """Whether the pool may be paired: an arena with a minimum of players forms its first races
    only once that many wait at once (one round for all of them); after that, as usual.

    >>> pool_may_pair(waiting=5, min_players=8, paired_before=False)
    False
    >>> pool_may_pair(waiting=8, min_players=8, paired_before=False)
    True
    >>> pool_may_pair(waiting=2, min_players=8, paired_before=True)
    True
    """
    return paired_before or waiting >= min_players
