"""The stable error codes of a game action (API.md). Each code has one HTTP status."""

from __future__ import annotations

from typing import Any

from demineur_site.api_errors import ApiError

STATUS_BY_CODE: dict[str, int] = {
    "invalid": 400,
    "out_of_bounds": 400,
    "invalid_board": 400,
    "not_authenticated": 401,
    "not_your_game": 403,
    "not_found": 404,
    "game_not_started": 409,
    "game_paused": 409,
    "game_over": 409,
    "cell_open": 409,
    "cell_closed": 409,
    "idempotency_conflict": 409,
}


class GameError(ApiError):
    """A refused game action. Nothing was stored and no `seq` was taken."""

    def __init__(self, code: str, message: str, details: dict[str, Any] | None = None) -> None:
        super().__init__(STATUS_BY_CODE[code], code, message, details)
