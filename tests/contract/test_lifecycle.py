"""RULES.md, Statistics and API.md, Games + Fine points: a new game of the same level ends a
started one as abandoned and discards an untapped one (404 from then on); custom games share
the level `custom` whatever their size; a game left 24 hours is closed the same way."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games.models import Game, Move
from tests.support.http import assert_error, new_game, post, start

pytestmark = pytest.mark.django_db


def _custom(api, width: int, height: int, count: int) -> dict:
    response = api.post(
        "/api/games", {"width": width, "height": height, "mines": count}, format="json"
    )
    assert response.status_code == 201, response.content
    return response.json()


def _age(game_id: str, hours: float) -> None:
    Game.objects.filter(pk=game_id).update(last_action_at=timezone.now() - timedelta(hours=hours))


def _assert_gone(api, game_id: str) -> None:
    assert_error(api.get(f"/api/games/{game_id}"), 404, "not_found")
    assert_error(api.get(f"/api/games/{game_id}/moves"), 404, "not_found")
    for action, body in (("reveal", {"x": 1, "y": 1}), ("resume", {})):
        assert_error(post(api, game_id, action, body), 404, "not_found")


def test_a_discarded_never_tapped_game_is_404_everywhere(alice_api, anon_api):
    untapped = new_game(alice_api, "hard")
    replacement = new_game(alice_api, "hard")
    _assert_gone(alice_api, untapped["id"])
    assert untapped["id"] not in str(anon_api.get("/api/games").json())
    assert anon_api.get(f"/api/games/{replacement['id']}").json()["state"] == "new"
    assert anon_api.get("/api/users/alice").json()["stats"]["hard"]["played"] == 0


def test_a_new_custom_game_abandons_a_started_custom_game_of_any_size(alice_api, anon_api):
    small = _custom(alice_api, 8, 8, 54)  # cannot be won by the first tap
    post(alice_api, small["id"], "reveal", {"x": 3, "y": 3})
    untapped = _custom(alice_api, 30, 30, 100)
    old = anon_api.get(f"/api/games/{small['id']}").json()
    assert (old["state"], old["end_reason"], old["level"]) == ("lost", "abandoned", "custom")
    moves = anon_api.get(f"/api/games/{small['id']}/moves").json()["results"]
    assert (moves[-1]["action"], moves[-1]["x"], moves[-1]["y"]) == ("abandon", None, None)
    _custom(alice_api, 5, 20, 3)  # a third size discards the untapped second one
    _assert_gone(alice_api, untapped["id"])
    custom = anon_api.get("/api/users/alice").json()["stats"]["custom"]
    assert (custom["played"], custom["won"]) == (1, 0)


def test_a_new_ranked_game_leaves_a_custom_game_alone(alice_api):
    custom = _custom(alice_api, 8, 8, 54)
    post(alice_api, custom["id"], "reveal", {"x": 3, "y": 3})
    new_game(alice_api, "beginner")
    assert alice_api.get(f"/api/games/{custom['id']}").json()["state"] == "playing"


def test_an_untapped_game_left_24_hours_is_discarded_when_its_player_acts_on_it(alice_api):
    game = new_game(alice_api, "expert")
    _age(game["id"], 24)
    assert_error(post(alice_api, game["id"], "reveal", {"x": 4, "y": 4}), 404, "not_found")
    assert not Game.objects.filter(pk=game["id"]).exists()
    _assert_gone(alice_api, game["id"])
    stats = alice_api.get("/api/me").json()["stats"]["expert"]
    assert stats["played"] == 0


def test_an_untapped_game_younger_than_24_hours_is_played_normally(alice_api):
    game = new_game(alice_api, "expert")
    _age(game["id"], 23.9)
    answer = post(alice_api, game["id"], "reveal", {"x": 4, "y": 4})
    assert answer.status_code == 200 and answer.json()["game"]["state"] == "playing"


def test_a_started_game_left_24_hours_is_abandoned_when_its_player_acts_on_it(alice_api):
    game = start(alice_api, "expert")
    _age(game["id"], 24)
    assert_error(post(alice_api, game["id"], "pause"), 409, "game_over")
    ended = alice_api.get(f"/api/games/{game['id']}").json()
    assert (ended["state"], ended["end_reason"]) == ("lost", "abandoned")
    assert Move.objects.filter(game_id=game["id"]).order_by("-seq").first().action == "abandon"
