"""The pure rules of arenas (docs/ARENAS.md): how a pool is split into races, who races whom,
the points of a race by place and size, and the streak."""

from __future__ import annotations

import doctest
from datetime import UTC, datetime, timedelta

import pytest

from games.arenas import rules
from games.arenas.rules import RaceResult, Waiting, pair, split_sizes, standing

T0 = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)


def pool(n: int, *, scores: list[int] | None = None) -> list[Waiting]:
    scores = scores or [0] * n
    return [Waiting(i, T0 + timedelta(seconds=i), scores[i], 1500.0) for i in range(n)]


def test_the_doctests_hold() -> None:
    failed, attempted = doctest.testmod(rules)
    assert attempted > 10 and failed == 0


def test_a_pool_of_one_waits() -> None:
    assert pair(pool(1), now=T0 + timedelta(minutes=5)) == []
    assert pair([], now=T0) == []


@pytest.mark.parametrize("n", range(2, 9))
def test_two_to_eight_form_one_race_with_everyone(n: int) -> None:
    races = pair(pool(n), now=T0)
    assert len(races) == 1
    assert sorted(races[0]) == list(range(n))
    assert races[0][0] == 0  # the longest-waiting player first


@pytest.mark.parametrize("n", [9, 10, 15, 16, 17, 24, 25, 200])
def test_nine_or_more_split_into_races_of_two_to_eight_holding_everyone(n: int) -> None:
    races = pair(pool(n), now=T0)
    sizes = [len(r) for r in races]
    assert len(races) == -(-n // 8)  # as few races as hold everyone
    assert all(2 <= s <= 8 for s in sizes)
    assert max(sizes) - min(sizes) <= 1  # as equal as can be
    everyone = [p for r in races for p in r]
    assert sorted(everyone) == list(range(n))  # each player in exactly one race


def test_split_sizes_never_leave_a_player_alone() -> None:
    for n in range(2, 300):
        sizes = split_sizes(n)
        assert sum(sizes) == n and min(sizes) >= 2 and max(sizes) <= 8


def test_each_race_is_the_longest_waiting_player_with_the_nearest_in_arena_score() -> None:
    # 0 waited longest (score 10); nearest: 3 (11) and 7 (9), then 1 (12), then 4 (38).
    scores = [10, 12, 40, 11, 38, 41, 39, 9, 42]
    races = pair(pool(9, scores=scores), now=T0)
    assert races == [[0, 1, 3, 4, 7], [2, 5, 6, 8]]  # 5 + 4, each in the order they waited


def test_rating_breaks_ties_of_arena_score() -> None:
    waiting = [
        Waiting(1, T0, 0, 1500.0),
        Waiting(2, T0 + timedelta(seconds=1), 0, 2400.0),
        Waiting(3, T0 + timedelta(seconds=2), 0, 1520.0),
        *(Waiting(10 + i, T0 + timedelta(seconds=3 + i), 50, 1500.0) for i in range(7)),
    ]
    first, second = pair(waiting, now=T0)
    # 1's race of five: its arena score is 0 like 2 and 3; then the nearest in rating first.
    assert 2 in first and 3 in first
    assert len(first) == 5 and len(second) == 5


def test_the_same_two_alone_again_wait_for_a_third() -> None:
    last = frozenset({1, 2})
    two = [Waiting(1, T0, 4, 1500.0, last), Waiting(2, T0 + timedelta(seconds=1), 1, 1500.0, last)]
    assert pair(two, now=T0 + timedelta(seconds=3)) == []
    # a third comes back: a race of three at once
    three = [*two, Waiting(3, T0 + timedelta(seconds=2), 0, 1500.0, frozenset({3, 4}))]
    assert sorted(pair(three, now=T0 + timedelta(seconds=3))[0]) == [1, 2, 3]
    # nobody else: after the wait they race again
    assert pair(two, now=T0 + timedelta(milliseconds=rules.REMATCH_WAIT_MS)) == [[1, 2]]
    # two who raced with others last time are not a rematch
    other = frozenset({1, 2, 5})
    mixed = [Waiting(1, T0, 0, 1500.0, other), Waiting(2, T0, 0, 1500.0, other)]
    assert pair(mixed, now=T0) == [[1, 2]]


# --- points -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("place", "takers", "points"),
    [
        (1, 2, 4),
        (2, 2, 0),
        (1, 3, 4),
        (2, 3, 0),
        (3, 3, 0),
        (1, 4, 4),
        (2, 4, 2),
        (3, 4, 0),
        (1, 5, 8),
        (2, 5, 4),
        (3, 5, 0),
        (1, 8, 8),
        (4, 8, 4),
        (5, 8, 0),
        (8, 8, 0),
    ],
)
def test_the_points_table_by_place_and_race_size(place: int, takers: int, points: int) -> None:
    assert rules.base_points(RaceResult(place, takers, True)) == points


def test_a_race_left_or_untouched_scores_nothing_and_ends_the_streak() -> None:
    win = RaceResult(1, 3, True)
    left = RaceResult(1, 3, True, left=True)
    untouched = RaceResult(None, 3, False)
    for void in (left, untouched):
        after = standing([win, win, void])
        assert after.points == (4, 4, 0)
        assert after.streak == 0 and not after.fire
        assert after.races == 3 and after.wins == 2


def test_two_wins_light_the_fire_and_each_next_win_doubles_until_a_race_is_not_won() -> None:
    win2, win8, second = RaceResult(1, 2, True), RaceResult(1, 8, True), RaceResult(2, 8, True)
    s = standing([win2, win2, win8, win2, second, win2, win2, win2])
    assert s.points == (4, 4, 16, 8, 4, 4, 4, 8)
    assert s.score == sum(s.points) == 52
    assert standing([win2, win2, RaceResult(2, 2, True), win2]).points == (4, 4, 0, 4)
    assert s.wins == 7 and s.races == 8
    assert s.streak == 3 and s.fire


def test_a_shared_first_place_is_a_win() -> None:
    places = rules.places_among_takers([1, 1, 3], [True, True, True])
    assert places == [1, 1, 3]
    assert all(rules.is_win(RaceResult(p, 3, True)) for p in places[:2])


def test_places_count_only_the_racers_who_took_part() -> None:
    # A throwaway who never moved but "lasted longer" does not push a racer down.
    among = rules.places_among_takers([2, 1, 3], [True, False, True])
    assert among == [1, None, 2]
    assert rules.base_points(RaceResult(among[0], 2, True)) == rules.WIN_POINTS


def test_alone_among_takers_scores_one_and_keeps_the_streak() -> None:
    win, alone = RaceResult(1, 2, True), RaceResult(1, 1, True)
    s = standing([win, win, alone, win])
    assert s.points == (4, 4, 1, 8)
    assert s.wins == 3 and s.streak == 3


def test_pairing_is_open_from_the_start_until_thirty_seconds_before_the_end() -> None:
    end = T0 + timedelta(minutes=20)
    assert not rules.pairing_open(now=T0 - timedelta(seconds=1), starts_at=T0, ends_at=end)
    assert rules.pairing_open(now=T0, starts_at=T0, ends_at=end)
    assert rules.pairing_open(now=end - timedelta(seconds=30), starts_at=T0, ends_at=end)
    assert not rules.pairing_open(now=end - timedelta(seconds=29), starts_at=T0, ends_at=end)
