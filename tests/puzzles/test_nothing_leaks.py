"""Nothing leaks (RULES.md, Puzzles): no answer names which cells are safe before the caller's
attempt ends, nor the game the puzzle came from (its id, its player); afterwards both are shown,
to that caller. The layout itself never leaves the server."""

from __future__ import annotations

import json
from typing import Any

import pytest
from rest_framework.test import APIClient

from accounts.models import User
from games.puzzles import generator
from games.puzzles.models import Puzzle
from tests.support import puzzles as drawings
from tests.support.boards import game_from_ascii
from tests.support.http import post
from tests.support.personas import client_for

pytestmark = pytest.mark.django_db

LAYOUT = ["......", "......", "......", "......", "..*.*."]


@pytest.fixture
def from_bobs_game(bob: User) -> Puzzle:
    """A puzzle from a game bob lost on an avoidable guess."""
    api = client_for(bob)
    game = game_from_ascii(api, LAYOUT)
    for x, y in ((0, 0), (2, 4)):
        post(api, game["id"], "reveal", {"x": x, "y": y})
    assert generator.generate_for_game(game["id"]) == 1
    return Puzzle.objects.get()


def _secrets(puzzle: Puzzle) -> list[str]:
    return [str(puzzle.source_game_id), "bob", puzzle.layout, '"layout"', "*"]


def _assert_sealed(answer: Any, puzzle: Puzzle) -> None:
    assert answer.status_code in (200, 201), answer.content
    text = json.dumps(answer.json())
    for secret in _secrets(puzzle):
        assert secret not in text, (secret, text)
    for found in _puzzles_in(answer.json()):
        if found["id"] == str(puzzle.id):
            assert found["solution"] is None and found["source_game"] is None
            assert found["depth"] is None
            assert found["attempt"] is None or found["attempt"]["wrong"] is None


def _puzzles_in(body: Any) -> list[dict[str, Any]]:
    """Every Puzzle object inside an answer."""
    if isinstance(body, dict):
        found = [body] if {"board", "solution", "source_game"} <= set(body) else []
        return found + [p for v in body.values() for p in _puzzles_in(v)]
    if isinstance(body, list):
        return [p for v in body for p in _puzzles_in(v)]
    return []


def test_no_answer_shows_the_answer_or_the_source_before_the_end(
    from_bobs_game: Puzzle, alice_api: APIClient, anon_api: APIClient
) -> None:
    puzzle = from_bobs_game
    path = f"/api/puzzles/{puzzle.id}"
    _assert_sealed(anon_api.get(path), puzzle)
    _assert_sealed(alice_api.get(path), puzzle)
    _assert_sealed(alice_api.get("/api/puzzles/next"), puzzle)
    _assert_sealed(alice_api.get("/api/puzzles/daily"), puzzle)
    opened = alice_api.post(f"{path}/open", {"x": 3, "y": 4}, format="json")
    assert opened.json()["correct"] is True
    _assert_sealed(opened, puzzle)
    _assert_sealed(alice_api.get(path), puzzle)
    _assert_sealed(alice_api.get("/api/puzzles/dashboard"), puzzle)
    drawings.store(drawings.CHAIN)  # for the storm: the puzzle in play is never handed out
    _assert_sealed(alice_api.post("/api/puzzles/storm"), puzzle)
    _assert_sealed(alice_api.get("/api/puzzles/storm"), puzzle)


def test_the_end_shows_the_answer_and_the_source_to_that_player_only(
    from_bobs_game: Puzzle, alice_api: APIClient, anon_api: APIClient, carol: User
) -> None:
    puzzle = from_bobs_game
    path = f"/api/puzzles/{puzzle.id}"
    alice_api.post(f"{path}/open", {"x": 3, "y": 4}, format="json")
    done = alice_api.post(f"{path}/open", {"x": 5, "y": 4}, format="json").json()["puzzle"]
    assert done["attempt"]["state"] == "solved"
    assert {(c["x"], c["y"]) for c in done["solution"]} == {(3, 4), (5, 4)}
    assert done["source_game"] == str(puzzle.source_game_id)
    assert done["depth"] == puzzle.depth
    assert alice_api.get(path).json()["source_game"] == str(puzzle.source_game_id)
    # another caller's attempt has not ended: nothing for them
    _assert_sealed(client_for(carol).get(path), puzzle)
    _assert_sealed(anon_api.get(path), puzzle)
    # and the layout never leaves, even after the end
    assert puzzle.layout not in json.dumps(alice_api.get(path).json())
