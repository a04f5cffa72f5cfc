"""A move's REST answer carries that move's clock: `game.elapsed_ms` in a MoveResult is the move's
`at_ms` in /moves, as the socket's `move` frame is, however long the server takes between the move
and its answer. The delay here is real (a step of the answer is made to sleep), not a mocked clock:
under load that gap was 57-150 ms, and a first tap answered `elapsed_ms` 64 with `at_ms` 0."""

from __future__ import annotations

import time
from typing import Any

import pytest
from rest_framework.test import APIClient

from games.engine import Board
from games.play import api as game_api
from tests.support.boards import safe_closed
from tests.support.http import new_game, post

pytestmark = pytest.mark.django_db

DELAY_S = 0.05
SEED = "move-clock"


@pytest.fixture(autouse=True)
def layout(settings: Any) -> None:
    """A known layout (tests/support/boards.layout_after_first_tap): the first tap at (4, 4)
    opens part of the board and leaves safe cells closed, so the game goes on after it."""
    settings.GAME_TEST_SEED = SEED


@pytest.fixture(params=["after the move", "while presenting"])
def slow_server(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The server sleeps between the move's transaction and its answer: once the service has
    returned, or inside the presenter (rendering the board)."""
    if request.param == "after the move":
        game_move = game_api.services.game_move

        def slow_move(**kwargs: Any) -> Any:
            result = game_move(**kwargs)
            time.sleep(DELAY_S)
            return result

        monkeypatch.setattr(game_api.services, "game_move", slow_move)
    else:
        render = Board.render

        def slow_render(self: Board, **kwargs: Any) -> list[str]:
            time.sleep(DELAY_S)
            return render(self, **kwargs)

        monkeypatch.setattr(Board, "render", slow_render)
    return str(request.param)


def _clock_of_moves(api: APIClient, game_id: str) -> dict[int, int]:
    rows = api.get(f"/api/games/{game_id}/moves").json()["results"]
    return {row["seq"]: row["at_ms"] for row in rows}


def test_every_answer_carries_its_moves_clock_on_a_slow_server(
    alice_api: APIClient, slow_server: str
) -> None:
    game = new_game(alice_api)
    answers: list[dict[str, Any]] = []
    first = post(alice_api, game["id"], "reveal", {"x": 4, "y": 4})
    assert first.status_code == 200, first.content
    answers.append(first.json())
    assert first.json()["game"]["state"] == "playing"
    x, y = safe_closed(game["id"])[0]
    for action, body in (("flag", {"x": x, "y": y}), ("flag", {"x": x, "y": y})):
        response = post(alice_api, game["id"], action, body)
        assert response.status_code == 200, response.content
        answers.append(response.json())
    for x, y in safe_closed(game["id"]):  # on to the win: the last answer is the ended game
        response = post(alice_api, game["id"], "reveal", {"x": x, "y": y})
        if response.status_code == 200:
            answers.append(response.json())
            if response.json()["game"]["state"] == "won":
                break
    assert answers[-1]["game"]["state"] == "won"
    clock = _clock_of_moves(alice_api, game["id"])
    assert answers[0]["seq"] == 1 and answers[0]["game"]["elapsed_ms"] == clock[1] == 0
    assert [(a["seq"], a["game"]["elapsed_ms"]) for a in answers] == [
        (a["seq"], clock[a["seq"]]) for a in answers
    ]
    # The ended game, read again later, still shows the winning move's clock.
    final = alice_api.get(f"/api/games/{game['id']}").json()
    assert final["elapsed_ms"] == clock[answers[-1]["seq"]]


def test_a_replayed_move_answers_the_original_seq_and_the_game_as_it_is_now(
    alice_api: APIClient,
) -> None:
    """API.md: a replay answers with the original `changes` and `seq` and the game as it is
    now; its clock is the game's now, not the original move's (nothing changed there)."""
    game = new_game(alice_api)
    body = {"x": 4, "y": 4, "client_move_id": "tap-1"}
    first = post(alice_api, game["id"], "reveal", body).json()
    time.sleep(DELAY_S)
    again = post(alice_api, game["id"], "reveal", body).json()
    assert (again["seq"], again["changes"]) == (first["seq"], first["changes"])
    assert again["game"]["state"] == "playing"
    assert again["game"]["elapsed_ms"] >= DELAY_S * 1000 > _clock_of_moves(alice_api, game["id"])[1]
