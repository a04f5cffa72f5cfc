"""The pure arithmetic of statistics (accounts.standings.records): streaks, best times and record chains,
as tables. No database: these functions take the state before a game end and return the one
after it (RULES.md, Statistics)."""

from __future__ import annotations

import itertools
import uuid
from datetime import UTC, datetime, timedelta

import pytest

from accounts.standings.models import CHAIN_START
from accounts.standings.records import (
    GameEnd,
    Link,
    Streaks,
    Summary,
    best_times_after,
    chain_after,
    stats_after,
    streaks_after,
)

T0 = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)

# A game end as written in the tables: (level, result). Every result other than "win" is a
# loss for the statistics: a mine, a resignation, or a game abandoned (a new game of the same
# level, or 24 hours untouched).
LOSSES = {"mine", "resign", "abandon"}

STREAK_TABLE = [
    # (name, games, expected {level: (current, best)} after the last game)
    ("one win starts a streak", [("beginner", "win")], {"beginner": (1, 1)}),
    ("wins add up", [("beginner", "win")] * 3, {"beginner": (3, 3)}),
    (
        "a mine resets the current streak, the best stays",
        [("beginner", "win")] * 2 + [("beginner", "mine")],
        {"beginner": (0, 2)},
    ),
    ("resigning is a loss", [("beginner", "win"), ("beginner", "resign")], {"beginner": (0, 1)}),
    ("abandoning is a loss", [("beginner", "win"), ("beginner", "abandon")], {"beginner": (0, 1)}),
    (
        "a new run must pass the best to replace it",
        [("expert", "win"), ("expert", "win"), ("expert", "mine"), ("expert", "win")],
        {"expert": (1, 2)},
    ),
    (
        "a longer new run becomes the best",
        [("expert", "win"), ("expert", "mine"), ("expert", "win"), ("expert", "win")],
        {"expert": (2, 2)},
    ),
    (
        "levels keep their own streaks when interleaved",
        [
            ("beginner", "win"),
            ("expert", "win"),
            ("beginner", "win"),
            ("expert", "mine"),
            ("beginner", "win"),
        ],
        {"beginner": (3, 3), "expert": (0, 1)},
    ),
    (
        "a loss at one level leaves the other's streak alone",
        [("hard", "win"), ("hard", "win"), ("marathon", "abandon"), ("hard", "win")],
        {"hard": (3, 3), "marathon": (0, 0)},
    ),
    (
        "custom boards have their own bucket",
        [("custom", "win"), ("beginner", "resign"), ("custom", "win")],
        {"custom": (2, 2), "beginner": (0, 0)},
    ),
    (
        "only losses: no streak",
        [("intermediate", "mine"), ("intermediate", "abandon")],
        {"intermediate": (0, 0)},
    ),
]


def play(games: list[tuple[str, str]]) -> dict[str, Streaks]:
    state: dict[str, Streaks] = {}
    for i, (level, result) in enumerate(games):
        assert result == "win" or result in LOSSES
        state[level] = streaks_after(
            state.get(level, Streaks()),
            won=result == "win",
            game_id=uuid.UUID(int=i + 1),
            ended_at=T0 + timedelta(minutes=i),
        )
    return state


@pytest.mark.parametrize(
    ("name", "games", "expected"), STREAK_TABLE, ids=[row[0] for row in STREAK_TABLE]
)
def test_streak_arithmetic(name, games, expected):
    state = play(games)
    assert {level: (s.current, s.best) for level, s in state.items()} == expected


def test_a_streak_remembers_the_games_where_it_began_and_ended():
    # games 1..5 at beginner: win, win, mine, win, win, win (ids 1..6)
    state = play([("beginner", r) for r in ("win", "win", "mine", "win", "win", "win")])["beginner"]
    assert (state.current, state.current_first, state.current_last) == (
        3,
        uuid.UUID(int=4),
        uuid.UUID(int=6),
    )
    assert (state.best, state.best_first, state.best_last) == (
        3,
        uuid.UUID(int=4),
        uuid.UUID(int=6),
    )
    assert state.best_at == T0 + timedelta(minutes=5)


def test_an_equal_run_does_not_take_the_best_from_the_earlier_one():
    state = play([("beginner", r) for r in ("win", "win", "mine", "win", "win")])["beginner"]
    assert (state.best, state.best_first, state.best_last) == (
        2,
        uuid.UUID(int=1),
        uuid.UUID(int=2),
    )
    assert state.best_at == T0 + timedelta(minutes=1)


def test_a_loss_clears_the_current_streak_games():
    state = play([("beginner", "win"), ("beginner", "mine")])["beginner"]
    assert (state.current_first, state.current_last, state.current_at) == (None, None, None)


BEST_TIMES_TABLE = [
    ("kept fastest first", [30_000, 10_000, 20_000], [10_000, 20_000, 30_000]),
    ("only five are kept", [9, 8, 7, 6, 5, 4, 3], [3, 4, 5, 6, 7]),
    ("a slow time does not enter a full list", [1, 2, 3, 4, 5, 99], [1, 2, 3, 4, 5]),
    ("an equal time ranks after the earlier one", [5, 5], [5, 5]),
]


@pytest.mark.parametrize(
    ("name", "times", "expected"), BEST_TIMES_TABLE, ids=[r[0] for r in BEST_TIMES_TABLE]
)
def test_best_times(name, times, expected):
    rows: list = []
    for i, t in enumerate(times):
        rows = best_times_after(
            rows, time_ms=t, game_id=uuid.UUID(int=i + 1), achieved_at=T0 + timedelta(seconds=i)
        )
    assert [r["time_ms"] for r in rows] == expected
    if name.startswith("an equal"):
        assert [r["game_id"] for r in rows] == [str(uuid.UUID(int=1)), str(uuid.UUID(int=2))]
    assert all(r["achieved_at"].endswith("Z") for r in rows)


def end(i: int, *, won: bool, ms: int = 10_000, speed: float | None = 2.0) -> GameEnd:
    return GameEnd(
        won=won,
        game_id=uuid.UUID(int=i),
        elapsed_ms=ms,
        bbbv_per_s=speed if won else None,
        ended_at=T0 + timedelta(minutes=i),
    )


def test_stats_after_counts_played_won_average_and_personal_bests():
    s = Summary()
    s, r1 = stats_after(s, end(1, won=True, ms=20_000, speed=1.5))
    s, r2 = stats_after(s, end(2, won=False))
    s, r3 = stats_after(s, end(3, won=True, ms=10_000, speed=1.2))
    s, r4 = stats_after(s, end(4, won=True, ms=30_000, speed=2.5))
    assert (s.played, s.won, s.total_win_ms) == (4, 3, 60_000)
    assert (s.best_time_ms, s.best_time_game) == (10_000, uuid.UUID(int=3))
    assert (s.best_bbbv_per_s, s.best_bbbv_per_s_game) == (2.5, uuid.UUID(int=4))
    assert [(r.best_time, r.best_speed) for r in (r1, r2, r3, r4)] == [
        (True, True),
        (False, False),
        (True, False),
        (False, True),
    ]
    assert not r2  # nothing to announce


def test_a_win_by_the_first_tap_has_a_time_but_no_speed():
    s, result = stats_after(Summary(), end(1, won=True, ms=0, speed=None))
    assert (s.best_time_ms, s.best_bbbv_per_s, result.best_time, result.best_speed) == (
        0,
        None,
        True,
        False,
    )


# --- record chains: each player's best in any rolling period, without grouping ---------------


def link(score: float, minute: int, n: int) -> Link:
    return Link(score=score, achieved_at=T0 + timedelta(minutes=minute), game_id=uuid.UUID(int=n))


def build(scores: list[tuple[float, int]]) -> list[Link]:
    chain: list[Link] = []
    for n, (score, minute) in enumerate(scores, 1):
        chain = chain_after(chain, link(score, minute, n), now=T0 + timedelta(minutes=minute))
    return chain


def best_in_period(chain: list[Link], start: datetime) -> Link | None:
    """What the leaderboard query selects: achieved_at >= start AND prev_at < start."""
    found = [ln for ln in chain if ln.achieved_at >= start and ln.prev_at < start]
    assert len(found) <= 1
    return found[0] if found else None


CHAIN_TABLE = [
    # (name, (score, minute) in play order, expected (score, minute) links)
    ("improving player: only the latest best remains", [(30, 1), (20, 2), (10, 3)], [(10, 3)]),
    (
        "worsening player: every game stays (each is the best since)",
        [(10, 1), (20, 2), (30, 3)],
        [(10, 1), (20, 2), (30, 3)],
    ),
    (
        "a new best removes the worse links before it",
        [(10, 1), (30, 2), (20, 3), (15, 4)],
        [(10, 1), (15, 4)],
    ),
    ("an equal later time stays after the earlier one", [(10, 1), (10, 2)], [(10, 1), (10, 2)]),
    ("recorded out of order: beaten by a later link already there", [(10, 5), (20, 3)], [(10, 5)]),
    (
        "recorded out of order: slots in before a worse later link",
        [(30, 5), (20, 3)],
        [(20, 3), (30, 5)],
    ),
]


@pytest.mark.parametrize(
    ("name", "scores", "expected"), CHAIN_TABLE, ids=[r[0] for r in CHAIN_TABLE]
)
def test_record_chain(name, scores, expected):
    chain = build(scores)
    assert [
        (ln.score, int((ln.achieved_at - T0).total_seconds() // 60)) for ln in chain
    ] == expected
    assert chain[0].prev_at == CHAIN_START
    for before, after in itertools.pairwise(chain):
        assert after.prev_at == before.achieved_at
        assert before.score <= after.score


def test_every_period_start_selects_the_best_game_in_the_period():
    games = [(50, 1), (40, 2), (45, 3), (60, 4), (42, 5), (70, 6), (41, 7)]
    chain = build(games)
    for start_minute in range(0, 9):
        start = T0 + timedelta(minutes=start_minute)
        in_period = [(s, m) for s, m in games if m >= start_minute]
        got = best_in_period(chain, start)
        if not in_period:
            assert got is None
        else:
            best = min(in_period)  # lowest score, then earliest
            assert got is not None
            assert (got.score, int((got.achieved_at - T0).total_seconds() // 60)) == best


def test_links_older_than_a_year_are_dropped_except_the_all_time_head():
    old = [(10, 0), (20, 1), (30, 2)]
    chain = build(old)
    later = T0 + timedelta(days=400)
    chain = chain_after(
        chain, Link(score=40, achieved_at=later, game_id=uuid.UUID(int=99)), now=later
    )
    assert [ln.score for ln in chain] == [10, 40]
    assert chain[1].prev_at < later - timedelta(days=365)  # still older than any period start
