"""Test-side helpers: read a game's hidden layout straight from the database and play it.

Only tests may do this; the API never shows a closed cell before the end."""

from __future__ import annotations

from typing import Any

from rest_framework.test import APIClient

from games.engine import Board
from games.models import Game

SAFE_BOARD_CHARS = set("#F012345678")


def layout(game_id: str) -> list[str]:
    """The layout in engine ASCII: '*' mine, 'M' flagged mine, '.', 'F', 'o' and 'X' as the engine."""
    return Board.decode(bytes(Game.objects.get(pk=game_id).board)).to_ascii()


def mines(game_id: str) -> set[tuple[int, int]]:
    return {
        (x, y) for y, row in enumerate(layout(game_id)) for x, ch in enumerate(row) if ch in "*MX"
    }


def safe_closed(game_id: str) -> list[tuple[int, int]]:
    return [
        (x, y) for y, row in enumerate(layout(game_id)) for x, ch in enumerate(row) if ch in ".F"
    ]


def new_game(api: APIClient, level: str = "beginner") -> dict[str, Any]:
    response = api.post("/api/games", {"level": level}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def post(api: APIClient, game_id: str, action: str, body: dict[str, Any] | None = None) -> Any:
    return api.post(f"/api/games/{game_id}/{action}", body or {}, format="json")


def start(api: APIClient, level: str = "beginner", at: tuple[int, int] = (4, 4)) -> dict[str, Any]:
    """A started game: created and first-tapped at `at`."""
    game = new_game(api, level)
    response = post(api, game["id"], "reveal", {"x": at[0], "y": at[1]})
    assert response.status_code == 200, response.content
    return response.json()["game"]


def win(api: APIClient, game_id: str) -> dict[str, Any]:
    """Reveal every closed safe cell until the game is won; returns the final Game."""
    result: dict[str, Any] = {}
    for x, y in safe_closed(game_id):
        response = post(api, game_id, "reveal", {"x": x, "y": y})
        assert response.status_code in (200, 409), response.content
        if response.status_code == 200:
            result = response.json()["game"]
            if result["state"] == "won":
                return result
    return api.get(f"/api/games/{game_id}").json()


def assert_error(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, (response.status_code, response.content)
    body = response.json()
    assert set(body) == {"error"}
    assert body["error"]["code"] == code
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]
    assert isinstance(body["error"]["details"], dict)
    return body


def game_from_ascii(api: APIClient, rows: list[str]) -> dict[str, Any]:
    """A started custom game whose hidden layout is drawn in engine ASCII (test set-up only:
    it writes the stored board directly, as if the first tap had produced this layout)."""
    from django.utils import timezone

    board = Board.from_ascii(rows)
    response = api.post(
        "/api/games",
        {"width": board.width, "height": board.height, "mines": board.mines},
        format="json",
    )
    assert response.status_code == 201, response.content
    game = Game.objects.get(pk=response.json()["id"])
    game.board = board.encode()
    game.state = "playing"
    game.started_at = timezone.now()
    game.bbbv = board.bbbv()
    game.mines_left = board.mines_left
    game.save()
    return api.get(f"/api/games/{game.id}").json()
