"""The abandonment rule through the API (RULES.md, Statistics): a started game left unfinished
counts as a loss -- resigned, replaced by a new game of the same level, or untouched for 24
hours -- so a streak cannot be protected by walking away; an untapped game is discarded and
counts nowhere."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO
from unittest import mock

import pytest
from django.core.management import call_command
from django.utils import timezone

from games.play.models import Game, Move
from tests.support.boards import win
from tests.support.http import assert_error, assert_gone, new_game, post, start

pytestmark = pytest.mark.django_db


def beginner_stats(api):
    return api.get("/api/me").json()["stats"]["beginner"]


def won_games(api, n, level="beginner"):
    for _ in range(n):
        game = start(api, level)
        assert win(api, game["id"])["state"] == "won"


def age(game_id, hours):
    """Make a game look untouched for `hours` (the clock is the database's last_action_at)."""
    Game.objects.filter(pk=game_id).update(last_action_at=timezone.now() - timedelta(hours=hours))


def test_resigning_counts_as_a_loss_and_ends_the_streak(alice_api):
    won_games(alice_api, 2)
    game = start(alice_api)
    assert post(alice_api, game["id"], "resign").json()["end_reason"] == "resigned"
    s = beginner_stats(alice_api)
    assert (s["played"], s["won"], s["current_streak"], s["best_streak"]) == (3, 2, 0, 2)


def test_a_new_game_of_the_same_level_abandons_the_started_one_as_a_loss(alice_api):
    won_games(alice_api, 2)
    about_to_go_wrong = start(alice_api)
    new_game(alice_api, "beginner")
    old = alice_api.get(f"/api/games/{about_to_go_wrong['id']}").json()
    assert (old["state"], old["end_reason"]) == ("lost", "abandoned")
    s = beginner_stats(alice_api)
    assert (s["played"], s["won"], s["current_streak"], s["best_streak"]) == (3, 2, 0, 2)
    moves = alice_api.get(f"/api/games/{about_to_go_wrong['id']}/moves").json()["results"]
    assert moves[-1]["action"] == "abandon" and moves[-1]["x"] is None


def test_abandoning_a_paused_game_to_protect_a_streak_does_not_work(alice_api):
    won_games(alice_api, 3)
    risky = start(alice_api)
    post(alice_api, risky["id"], "pause")
    new_game(alice_api, "beginner")
    s = beginner_stats(alice_api)
    assert (s["current_streak"], s["best_streak"], s["played"]) == (0, 3, 4)
    streaks = alice_api.get("/api/leaderboards/beginner/streaks?sort=current").json()
    assert streaks["results"] == [] and streaks["me"] is None


def test_a_new_game_of_another_level_leaves_the_started_one_alone(alice_api):
    game = start(alice_api, "beginner")
    new_game(alice_api, "expert")
    assert alice_api.get(f"/api/games/{game['id']}").json()["state"] == "playing"
    assert beginner_stats(alice_api)["played"] == 0


def test_an_untapped_game_replaced_by_a_new_one_is_discarded_and_counts_nowhere(alice_api):
    won_games(alice_api, 1)
    untapped = new_game(alice_api, "beginner")
    new_game(alice_api, "beginner")
    assert alice_api.get(f"/api/games/{untapped['id']}").status_code == 404
    s = beginner_stats(alice_api)
    assert (s["played"], s["current_streak"]) == (1, 1)


def test_the_command_closes_games_untouched_for_24_hours(alice_api, bob_api):
    won_games(alice_api, 2)
    idle = start(alice_api)
    idle_paused = start(alice_api, "expert")
    post(alice_api, idle_paused["id"], "pause")
    idle_untapped = new_game(bob_api, "beginner")
    fresh = start(bob_api, "hard")
    for game in (idle, idle_paused, idle_untapped):
        age(game["id"], 24)
    age(fresh["id"], 23)
    out = StringIO()
    call_command("close_idle_games", stdout=out)
    assert out.getvalue().strip() == "closed 3 idle game(s)"
    for game in (idle, idle_paused):
        closed = alice_api.get(f"/api/games/{game['id']}").json()
        assert (closed["state"], closed["end_reason"]) == ("lost", "abandoned")
    assert alice_api.get(f"/api/games/{idle_untapped['id']}").status_code == 404
    assert bob_api.get(f"/api/games/{fresh['id']}").json()["state"] == "playing"
    stats = alice_api.get("/api/me").json()["stats"]
    assert (
        stats["beginner"]["played"],
        stats["beginner"]["current_streak"],
        stats["beginner"]["best_streak"],
    ) == (
        3,
        0,
        2,
    )
    assert stats["expert"]["played"] == 1
    assert bob_api.get("/api/me").json()["stats"]["beginner"]["played"] == 0


def test_the_command_with_a_frozen_clock_a_day_later(alice_api):
    game = start(alice_api)
    later = timezone.now() + timedelta(hours=24, seconds=1)
    with mock.patch("django.utils.timezone.now", return_value=later):
        out = StringIO()
        call_command("close_idle_games", stdout=out)
    assert "closed 1" in out.getvalue()
    closed = alice_api.get(f"/api/games/{game['id']}").json()
    assert (closed["end_reason"], closed["ended_at"][:19]) == ("abandoned", later.isoformat()[:19])


def test_running_the_command_twice_closes_nothing_more(alice_api):
    game = start(alice_api)
    age(game["id"], 30)
    assert call_command_output() == "closed 1 idle game(s)"
    assert call_command_output() == "closed 0 idle game(s)"
    assert beginner_stats(alice_api)["played"] == 1


def call_command_output() -> str:
    out = StringIO()
    call_command("close_idle_games", stdout=out)
    return out.getvalue().strip()


def test_the_players_next_game_closes_their_idle_games_of_any_level(alice_api):
    idle = start(alice_api, "expert")
    age(idle["id"], 25)
    new_game(alice_api, "beginner")
    closed = alice_api.get(f"/api/games/{idle['id']}").json()
    assert (closed["state"], closed["end_reason"]) == ("lost", "abandoned")
    assert alice_api.get("/api/me").json()["stats"]["expert"]["played"] == 1


def test_acting_on_a_game_idle_for_24_hours_finds_it_abandoned(alice_api):
    won_games(alice_api, 1)
    idle = start(alice_api)
    age(idle["id"], 25)
    response = post(alice_api, idle["id"], "reveal", {"x": 0, "y": 0})
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "game_over"
    closed = alice_api.get(f"/api/games/{idle['id']}").json()
    assert (closed["state"], closed["end_reason"]) == ("lost", "abandoned")
    s = beginner_stats(alice_api)
    assert (s["played"], s["current_streak"]) == (2, 0)


def test_an_untapped_game_left_24_hours_is_discarded_when_its_player_acts_on_it(alice_api):
    game = new_game(alice_api, "expert")
    age(game["id"], 24)
    assert_error(post(alice_api, game["id"], "reveal", {"x": 4, "y": 4}), 404, "not_found")
    assert not Game.objects.filter(pk=game["id"]).exists()
    assert_gone(alice_api, game["id"])
    stats = alice_api.get("/api/me").json()["stats"]["expert"]
    assert stats["played"] == 0


def test_an_untapped_game_younger_than_24_hours_is_played_normally(alice_api):
    game = new_game(alice_api, "expert")
    age(game["id"], 23.9)
    answer = post(alice_api, game["id"], "reveal", {"x": 4, "y": 4})
    assert answer.status_code == 200 and answer.json()["game"]["state"] == "playing"


def test_a_started_game_left_24_hours_is_abandoned_when_its_player_acts_on_it(alice_api):
    game = start(alice_api, "expert")
    age(game["id"], 24)
    assert_error(post(alice_api, game["id"], "pause"), 409, "game_over")
    ended = alice_api.get(f"/api/games/{game['id']}").json()
    assert (ended["state"], ended["end_reason"]) == ("lost", "abandoned")
    assert Move.objects.filter(game_id=game["id"]).order_by("-seq").first().action == "abandon"
