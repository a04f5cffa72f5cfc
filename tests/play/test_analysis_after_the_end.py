"""The analysis of a finished game through the service: made by the worker after the end,
shown in the Game's answers only then, and folded into the player's luck statistics (the
skill streak of RULES.md) in end order, whatever order the analyses land in."""

from __future__ import annotations

import io
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from accounts.standings.models import PlayerStats
from games.play.analysis_jobs import AnalysisWorker, analyse_game
from games.play.models import GameAnalysis
from tests.play.analysed import ORDERS, analyse_in
from tests.support.boards import COIN, board_of, game_from_ascii, mine_cell
from tests.support.http import post
from tests.support.races import racing, tick

WIN = [(0, 0), (0, 4), (3, 4)]  # the coin (0, 4) survived, then (3, 4) deduced
UNLUCKY = [(0, 0), (1, 4)]  # lost on the coin
CARELESS = [(0, 0), (2, 4)]  # lost on the certain mine


def play(api, taps) -> str:
    game = game_from_ascii(api, COIN)
    for x, y in taps:
        response = post(api, game["id"], "reveal", {"x": x, "y": y})
        assert response.status_code == 200, response.content
    return game["id"]


def stats_of(user) -> PlayerStats:
    return PlayerStats.objects.get(user=user, level="custom")


@pytest.mark.django_db
def test_a_game_lost_on_the_coin_is_analysed_after_its_end_as_an_unlucky_loss(alice, alice_api):
    game_id = play(alice_api, UNLUCKY)
    before = alice_api.get(f"/api/games/{game_id}").json()
    assert before["state"] == "lost" and before["analysis"] is None  # not analysed yet

    assert AnalysisWorker().run_once() == 1
    assert AnalysisWorker().run_once() == 0  # once

    analysis = alice_api.get(f"/api/games/{game_id}").json()["analysis"]
    assert analysis["unlucky_loss"] is True
    assert (analysis["forced_guesses"], analysis["avoidable_guesses"]) == (1, 0)
    assert [(m["seq"], m["label"]) for m in analysis["moves"]] == [
        (1, "deduced"),
        (2, "forced_guess"),
    ]
    assert analysis["moves"][1]["p_mine"] == 0.5
    row = stats_of(alice)
    assert (row.unlucky_losses, row.guesses_survived, row.skill_streak) == (1, 0, 0)
    for path in ("/api/users/alice", "/api/me"):
        custom = alice_api.get(path).json()["stats"]["custom"]
        assert (custom["unlucky_losses"], custom["skill_streak"], custom["best_skill_streak"]) == (
            1,
            0,
            0,
        )


@pytest.mark.django_db
def test_a_running_game_shows_no_analysis_even_if_one_were_stored(alice, alice_api, anon_api):
    game = game_from_ascii(alice_api, COIN)
    post(alice_api, game["id"], "reveal", {"x": 0, "y": 0})
    GameAnalysis.objects.create(game_id=game["id"], moves=[{"seq": 1, "label": "deduced"}])
    assert not analyse_game(game["id"])  # the worker never takes a running game
    for api in (alice_api, anon_api):
        assert api.get(f"/api/games/{game['id']}").json()["analysis"] is None
        listed = api.get("/api/games?state=playing").json()["results"]
        assert [g["analysis"] for g in listed if g["id"] == game["id"]] == [None]


SEQUENCE = [WIN, UNLUCKY, WIN, CARELESS, WIN]


@pytest.mark.django_db
@pytest.mark.parametrize("order", ORDERS)
def test_the_skill_streak_skips_the_unlucky_loss_and_breaks_on_the_other(alice, alice_api, order):
    ids = [play(alice_api, taps) for taps in SEQUENCE]
    analyse_in(order, ids)
    row = stats_of(alice)
    # win, unlucky (neither counts nor breaks), win: 2; the careless loss breaks; win: 1
    assert (row.skill_streak, row.best_skill_streak) == (1, 2)
    assert (row.current_streak, row.best_streak) == (1, 1)  # the plain streak: broken twice
    assert (row.unlucky_losses, row.guesses_survived) == (1, 3)
    shown = alice_api.get("/api/users/alice").json()["stats"]["custom"]
    assert (shown["skill_streak"], shown["best_skill_streak"], shown["unlucky_losses"]) == (1, 2, 1)
    assert GameAnalysis.objects.filter(folded=True).count() == len(ids)


@pytest.mark.django_db
def test_the_skill_streak_waits_for_an_earlier_game_still_unanalysed(alice, alice_api):
    first, second = play(alice_api, WIN), play(alice_api, UNLUCKY)
    third = play(alice_api, WIN)
    assert analyse_game(first) and analyse_game(third)
    assert stats_of(alice).skill_streak == 1  # the second game's fate is not known yet
    assert analyse_game(second)  # unlucky: the run goes on through it
    assert (stats_of(alice).skill_streak, stats_of(alice).best_skill_streak) == (2, 2)


@pytest.mark.django_db
def test_a_race_games_analysis_waits_for_the_race_and_skips_the_servers_opening(
    alice, alice_api, bob_api
):
    race = racing(alice_api, [bob_api])
    games = [r["game"] for r in race["racers"]]
    for api, game_id in zip((alice_api, bob_api), games, strict=True):
        x, y = mine_cell(board_of(game_id))
        assert post(api, game_id, "reveal", {"x": x, "y": y}).json()["game"]["state"] == "lost"
        assert AnalysisWorker().run_once() == 0  # sealed while the race runs
        assert api.get(f"/api/games/{game_id}").json()["analysis"] is None
    tick(timezone.now())  # every racer is done: the race ends and its games unseal
    assert alice_api.get(f"/api/races/{race['id']}").json()["state"] == "finished"
    assert AnalysisWorker().run_once() == 2
    analysis = alice_api.get(f"/api/games/{games[0]}").json()["analysis"]
    assert [m["seq"] for m in analysis["moves"]] == [2]  # Move 1 was the server's opening
    # Race games count in race statistics only: no luck in the solo buckets.
    assert not PlayerStats.objects.filter(user=alice).exclude(unlucky_losses=0).exists()


@pytest.mark.django_db
def test_the_backlog_command_analyses_old_games_and_refolds_the_skill_streak(alice, alice_api):
    ids = [play(alice_api, taps) for taps in (WIN, UNLUCKY, WIN)]
    # Games that ended before any worker looked (older than its look-back)
    assert AnalysisWorker(now=timezone.now() + timedelta(days=2)).run_once() == 0
    out = io.StringIO()
    call_command("analyse_games", stdout=out, stderr=io.StringIO())
    assert "3 analysed, 1 skill streaks refolded" in out.getvalue()
    assert GameAnalysis.objects.filter(game_id__in=ids, folded=True).count() == 3
    row = stats_of(alice)
    assert (row.skill_streak, row.best_skill_streak, row.unlucky_losses) == (2, 2, 1)
