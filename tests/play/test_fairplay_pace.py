"""A paced solver must not rank first on the human board, nor a Beginner win of 12 moves about
8 ms apart (94 ms) rank unheld. Played through the services against a server clock the test
drives, so every `at_ms` is exactly the pace given (tests/play/pacing.py); the limits are
the shipped ones."""

from __future__ import annotations

import random
from typing import Any

import pytest

from accounts.models import User
from games.play import fairplay
from games.play.models import Game, Review
from tests.play.pacing import model_hand, paced_solver, play_win, server_clock

pytestmark = pytest.mark.usefixtures("shipped_limits")

# Forty different first taps: with GAME_TEST_SEED the layout follows from the first tap, so
# forty wins are forty boards, the same on every run.
TAPS = [(x, y) for y in (1, 2, 4, 6, 7) for x in (1, 2, 3, 4, 5, 6, 7, 8)]


def checks_of(game: Game) -> list[str]:
    review = Review.objects.filter(game=game).first()
    return [f["check"] for f in review.findings] if review else []


def play_wins(
    player: User, pace_for: Any, *, efficient: bool = False, n: int = 40, level: str = "beginner"
) -> list[Game]:
    """`n` wins in a row at the given pace."""
    games = []
    with server_clock() as clock:
        for i, tap in enumerate(TAPS[:n]):
            clock.advance(60_000)
            games.append(
                play_win(
                    player,
                    clock,
                    pace_for,
                    level=level,
                    first_tap=tap,
                    efficient=efficient,
                    rng=random.Random(i),
                )
            )
    return games


def test_a_beginner_win_of_twelve_moves_8_ms_apart_is_held(alice: User, settings: Any) -> None:
    # The finding: 12 moves about 8 ms apart, 94 ms, 3BV 9 (below Beginner's 3BV/s floor).
    settings.GAME_TEST_SEED = "flurry65"
    rng = random.Random(6)
    with server_clock() as clock:
        game = play_win(alice, clock, paced_solver(rng, 7, 10))
    assert (game.clicks, game.bbbv) == (12, 9)
    assert game.elapsed_ms is not None and game.elapsed_ms < 120
    assert (game.ranked, game.unranked_reason) == (False, "review")
    assert checks_of(game) == ["flurry"]


def test_the_paced_solver_of_the_finding_is_held_once_it_has_played_enough(
    alice: User, settings: Any
) -> None:
    settings.GAME_TEST_SEED = "paced"
    games = play_wins(alice, paced_solver(random.Random(20)), level="expert", n=14)
    # No single game of it is beyond a hand: every one passes the per-game checks...
    per_game = {"bbbv_per_s", "burst", "flurry", "rhythm", "metronome"}
    assert not any(set(checks_of(g)) & per_game for g in games)
    # ...but its think time ignores the board, and its wins are held once there are enough
    # moves to tell (FAIRPLAY_PACE_MIN_INTERVALS: about five Expert wins). One seeded run;
    # how often a paced solver is held is measured in docs/FAIRPLAY.md.
    held = [i for i, g in enumerate(games) if "blind_pace" in checks_of(g)]
    assert held and held[0] >= 4 and held[-1] == len(games) - 1, held
    assert games[-1].unranked_reason == "review"
    finding = Review.objects.get(game=games[-1]).findings[0]
    assert finding["check"] == "blind_pace" and finding["value"] < finding["limit"]


def test_a_hand_whose_think_time_follows_its_travel_is_never_held(
    alice: User, settings: Any
) -> None:
    settings.GAME_TEST_SEED = "paced"
    games = play_wins(alice, model_hand(random.Random(20)))
    assert [checks_of(g) for g in games if checks_of(g)] == []
    assert all(g.ranked for g in games)


def test_perfect_efficiency_on_every_one_of_twenty_wins_is_held(alice: User, settings: Any) -> None:
    # A hand's pace, but the minimum of clicks every time (cascades first, never a flag).
    settings.GAME_TEST_SEED = "paced"
    games = play_wins(alice, model_hand(random.Random(21)), efficient=True, n=20)
    assert all(g.clicks == g.bbbv for g in games)
    assert [checks_of(g) for g in games[:-1]] == [[]] * 19
    assert checks_of(games[-1]) == ["perfect_efficiency"]
    assert Review.objects.get(game=games[-1]).findings == [
        {"check": "perfect_efficiency", "value": 20, "limit": 20}
    ]


def test_once_staff_clear_an_account_check_it_does_not_hold_that_account_again(
    alice: User, staff: User, settings: Any
) -> None:
    settings.GAME_TEST_SEED = "paced"
    settings.FAIRPLAY_PERFECT_WINS = 5  # five efficient wins are enough to raise it here
    games = play_wins(alice, model_hand(random.Random(22)), efficient=True, n=10)
    first = next(g for g in games if checks_of(g))
    assert checks_of(first) == ["perfect_efficiency"] and first == games[4]
    # While the review waits for staff, the account's later wins are held too.
    assert all(checks_of(g) == ["perfect_efficiency"] for g in games[5:])
    fairplay.review_clear(review_id=Review.objects.get(game=first).pk, staff=staff)
    with server_clock() as clock:
        clock.advance(10**9)
        after = play_win(alice, clock, model_hand(random.Random(23)), efficient=True)
    assert checks_of(after) == [] and after.ranked
