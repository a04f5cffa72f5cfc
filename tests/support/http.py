"""Black-box HTTP helpers: what any API client can do (tests/contract/ may use these)."""

from __future__ import annotations

import uuid
from typing import Any

from rest_framework.test import APIClient

SAFE_BOARD_CHARS = set("#F012345678")
# A well-formed id that names no game: fixed, not uuid4(), so that test parameters built from
# it are the same in every pytest-xdist worker (they must all collect the same tests).
UNKNOWN_ID = uuid.UUID("5e1f0000-0000-4000-8000-000000000000")


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


def assert_error(response: Any, status: int, code: str) -> dict[str, Any]:
    """`response` is the API.md error body with this status and code."""
    assert response.status_code == status, (response.status_code, response.content)
    body = response.json()
    assert set(body) == {"error"}
    assert body["error"]["code"] == code
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]
    assert isinstance(body["error"]["details"], dict)
    return body


def assert_gone(api: APIClient, game_id: str) -> None:
    """The game `game_id` is 404 on every path a client may try: read, moves, a move."""
    assert_error(api.get(f"/api/games/{game_id}"), 404, "not_found")
    assert_error(api.get(f"/api/games/{game_id}/moves"), 404, "not_found")
    for action, body in (("reveal", {"x": 1, "y": 1}), ("resume", {})):
        assert_error(post(api, game_id, action, body), 404, "not_found")
