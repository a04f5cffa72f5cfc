"""Luck, measured (docs/STATS.md): a game's forced guesses as coin flips (the chance of having
survived them, flips won and lost), a player's luck against expectation per level and month,
and the luck-adjusted streak; every value below is worked out by hand from the board drawn."""

from __future__ import annotations

import io
from datetime import UTC, datetime

import pytest
from django.core.management import call_command

from accounts.standings.models import PlayerStats
from games.play.analysis import MoveIn, analyse
from games.play.analysis_jobs import analyse_game
from games.play.models import Game
from tests.play.analysed import ORDERS, analyse_in

# That file's taps on COIN: WIN survives the flip of 1/2 at (0, 4), UNLUCKY loses it at (1, 4),
# CARELESS opens the certain mine (2, 4): an avoidable guess, no flip.
from tests.play.test_analysis_after_the_end import CARELESS, UNLUCKY, WIN
from tests.support.boards import COIN, game_from_ascii
from tests.support.http import post

# The tap at (0, 4) opens rows 1 to 7. Under 1 2 2 2 1, each edge row holds three mines:
# (2, y) for certain and one of two mirror pairs, (0, y) + (3, y) or (1, y) + (4, y): two flips
# of 1/2, independent of each other. Opening (0, y) safe shows a 1, which settles its pair.
TWO_COINS = [
    ".**.*",
    ".....",
    ".....",
    ".....",
    ".....",
    ".....",
    ".....",
    ".....",
    ".**.*",
]
BOTH_WON = [(0, 4), (0, 0), (3, 0), (0, 8), (3, 8)]  # both flips survived: a win
SECOND_LOST = [(0, 4), (0, 0), (3, 0), (1, 8)]  # the second flip opened a mine


def _analysed(rows: list[str], taps: list[tuple[int, int]]):
    moves = [MoveIn(seq, "reveal", x, y) for seq, (x, y) in enumerate(taps, 1)]
    return analyse(width=len(rows[0]), height=len(rows), layout=rows, moves=moves)


def test_two_flips_of_a_half_won_survive_with_a_chance_of_a_quarter():
    luck = _analysed(TWO_COINS, BOTH_WON).luck
    # (1 - 1/2) x (1 - 1/2) = 1/4; expected survivals 1/2 + 1/2 = 1; won 2, so luck 2 - 1 = +1
    assert (luck.coin_flips_won, luck.coin_flips_lost) == (2, 0)
    assert luck.survival_chance == pytest.approx(0.25)
    assert luck.expected_survivals == pytest.approx(1.0)
    assert luck.luck == pytest.approx(1.0)


def test_the_losing_flip_counts_in_the_chance_and_as_a_flip_lost():
    result = _analysed(TWO_COINS, SECOND_LOST)
    assert result.unlucky_loss
    luck = result.luck
    # the same two flips of 1/2: chance 1/4, expected 1; one survived: luck 1 - 1 = 0
    assert (luck.coin_flips_won, luck.coin_flips_lost) == (1, 1)
    assert luck.survival_chance == pytest.approx(0.25)
    assert luck.luck == pytest.approx(0.0)


def test_a_game_without_a_forced_guess_had_nothing_to_survive():
    luck = _analysed(COIN, CARELESS).luck  # lost, but on an avoidable guess
    assert (luck.coin_flips_won, luck.coin_flips_lost) == (0, 0)
    assert (luck.survival_chance, luck.expected_survivals, luck.luck) == (1.0, 0.0, 0.0)


def play(api, rows, taps) -> str:
    game = game_from_ascii(api, rows)
    for x, y in taps:
        assert post(api, game["id"], "reveal", {"x": x, "y": y}).status_code == 200
    return game["id"]


@pytest.mark.django_db
def test_the_games_answer_carries_its_luck_once_analysed(alice_api, anon_api):
    game_id = play(alice_api, TWO_COINS, SECOND_LOST)
    assert alice_api.get(f"/api/games/{game_id}").json()["analysis"] is None  # not yet
    assert analyse_game(game_id)
    for api in (alice_api, anon_api):
        luck = api.get(f"/api/games/{game_id}").json()["analysis"]["luck"]
        assert luck == {
            "coin_flips_won": 1,
            "coin_flips_lost": 1,
            "survival_chance": pytest.approx(0.25),
            "expected_survivals": 1.0,
            "luck": 0.0,
        }


def _ended_in(game_id: str, month: int, day: int) -> None:
    Game.objects.filter(pk=game_id).update(ended_at=datetime(2026, month, day, 12, tzinfo=UTC))


# Custom games, in end order: October: WIN (1 flip won of 1/2), UNLUCKY (1 flip lost of 1/2);
# November: BOTH_WON (2 won of 1/2 each), CARELESS (no flip), WIN.
SEASON = [
    (COIN, WIN, 10, 3),
    (COIN, UNLUCKY, 10, 9),
    (TWO_COINS, BOTH_WON, 11, 2),
    (COIN, CARELESS, 11, 5),
    (COIN, WIN, 11, 20),
]
OCTOBER = {
    "month": "2026-10",
    "coin_flips_won": 1,
    "coin_flips_lost": 1,
    "expected_survivals": 1.0,  # 1/2 + 1/2
    "luck": 0.0,  # 1 - 1
    "cumulative_luck": 0.0,
}
NOVEMBER = {
    "month": "2026-11",
    "coin_flips_won": 3,  # 2 + 0 + 1
    "coin_flips_lost": 0,
    "expected_survivals": 1.5,  # 1/2 + 1/2 + 1/2
    "luck": 1.5,  # 3 - 1.5
    "cumulative_luck": 1.5,  # 0 + 1.5
}


def _play_the_season(api) -> list[str]:
    ids = []
    for rows, taps, month, day in SEASON:
        ids.append(play(api, rows, taps))
        _ended_in(ids[-1], month, day)
    return ids


def _check_the_season(api) -> None:
    answer = api.get("/api/users/alice/luck").json()
    assert (answer["username"], answer["mode"]) == ("alice", "classic")
    custom = answer["levels"]["custom"]
    assert custom["months"] == [OCTOBER, NOVEMBER]
    totals = {k: custom[k] for k in ("coin_flips_won", "coin_flips_lost", "luck")}
    assert totals == {"coin_flips_won": 4, "coin_flips_lost": 1, "luck": 1.5}  # 4 - 2.5
    assert answer["levels"]["beginner"]["months"] == []  # nothing played there
    stats = api.get("/api/users/alice").json()["stats"]["custom"]
    assert (stats["expected_survivals"], stats["luck"]) == (2.5, 1.5)
    # win, unlucky (counted as the win it would have been), win: 3; careless breaks; win: 1
    assert (stats["adjusted_streak"], stats["best_adjusted_streak"]) == (1, 3)
    # the skill streak skips the unlucky loss instead: win, win: 2; careless breaks; win: 1
    assert (stats["skill_streak"], stats["best_skill_streak"]) == (1, 2)


@pytest.mark.django_db
@pytest.mark.parametrize("order", ORDERS)
def test_a_players_luck_per_month_and_the_luck_adjusted_streak(alice_api, anon_api, order):
    ids = _play_the_season(alice_api)
    analyse_in(order, ids)
    _check_the_season(anon_api)
    no_guess = anon_api.get("/api/users/alice/luck?mode=no_guess").json()
    assert no_guess["mode"] == "no_guess" and no_guess["levels"]["custom"]["months"] == []
    odd = anon_api.get("/api/users/alice/luck?mode=odd")
    assert (odd.status_code, odd.json()["error"]["code"]) == (400, "invalid_mode")
    assert anon_api.get("/api/users/nobody/luck").status_code == 404


@pytest.mark.django_db
def test_the_adjusted_streak_counts_an_unlucky_loss_where_the_skill_streak_skips_it(
    alice, alice_api
):
    for taps in (WIN, UNLUCKY, UNLUCKY):
        assert analyse_game(play(alice_api, COIN, taps))
    row = PlayerStats.objects.get(user=alice, level="custom")
    assert (row.skill_streak, row.best_skill_streak) == (1, 1)  # the two unlucky skipped
    assert (row.adjusted_streak, row.best_adjusted_streak) == (3, 3)  # counted as wins
    assert (row.current_streak, row.best_streak) == (0, 1)  # the plain streak: broken


@pytest.mark.django_db
def test_refold_all_counts_the_luck_of_games_analysed_before_it_was_kept(alice, alice_api):
    ids = _play_the_season(alice_api)
    for game_id in ids:
        assert analyse_game(game_id)
    # As the rows of a player whose games were analysed before luck was kept (accounts 0004).
    PlayerStats.objects.filter(user=alice).update(
        luck_months={}, adjusted_streak=0, best_adjusted_streak=0
    )
    call_command("analyse_games", "--refold-all", stdout=io.StringIO(), stderr=io.StringIO())
    _check_the_season(alice_api)
