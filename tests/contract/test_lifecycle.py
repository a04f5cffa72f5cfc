"""RULES.md, Statistics and API.md, Games + Fine points: a new game of the same level ends a
started one as abandoned and discards an untapped one (404 from then on); custom games share
the level `custom` whatever their size. A game left 24 hours is closed the same way
(tests/play/test_abandonment.py: the test moves its clock)."""

from __future__ import annotations

import pytest

from tests.support.http import assert_gone, new_game, post

pytestmark = pytest.mark.django_db


def _custom(api, width: int, height: int, count: int) -> dict:
    response = api.post(
        "/api/games", {"width": width, "height": height, "mines": count}, format="json"
    )
    assert response.status_code == 201, response.content
    return response.json()


def test_a_discarded_never_tapped_game_is_404_everywhere(alice_api, anon_api):
    untapped = new_game(alice_api, "hard")
    replacement = new_game(alice_api, "hard")
    assert_gone(alice_api, untapped["id"])
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
    assert_gone(alice_api, untapped["id"])
    custom = anon_api.get("/api/users/alice").json()["stats"]["custom"]
    assert (custom["played"], custom["won"]) == (1, 0)


def test_a_new_ranked_game_leaves_a_custom_game_alone(alice_api):
    custom = _custom(alice_api, 8, 8, 54)
    post(alice_api, custom["id"], "reveal", {"x": 3, "y": 3})
    new_game(alice_api, "beginner")
    assert alice_api.get(f"/api/games/{custom['id']}").json()["state"] == "playing"
