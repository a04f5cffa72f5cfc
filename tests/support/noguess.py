"""No-guess helpers: a no-guess game started through the API, and its layout and opening as the
independent solver (tests/support/deduction.py) reads them. Not for tests/contract/."""

from __future__ import annotations

from typing import Any

from rest_framework.test import APIClient

from games.engine import Board
from games.play.models import Game, Move
from tests.support.boards import board_of, cells
from tests.support.http import post


def start_no_guess(
    api: APIClient, level: str = "beginner", at: tuple[int, int] = (4, 4)
) -> dict[str, Any]:
    """A no-guess game created and first-tapped at `at` through the API."""
    created = api.post("/api/games", {"level": level, "no_guess": True}, format="json")
    assert created.status_code == 201, created.content
    assert created.json()["no_guess"] is True
    tapped = post(api, created.json()["id"], "reveal", {"x": at[0], "y": at[1]})
    assert tapped.status_code == 200, tapped.content
    return dict(tapped.json()["game"])


def mine_indexes(board: Board) -> list[int]:
    """The mines of a board as flat indexes (y * width + x)."""
    return [y * board.width + x for x, y in cells(board.to_ascii(), "*MX")]


def layout_and_opening(game_id: str) -> tuple[Board, list[int], tuple[int, int]]:
    """A game's stored board, its mines and its recorded opening (Move 1's cell)."""
    first = Move.objects.get(game_id=game_id, seq=1)
    assert first.x is not None and first.y is not None
    board = board_of(game_id)
    return board, mine_indexes(board), (first.x, first.y)


def game_no_guess(game_id: str) -> bool:
    return bool(Game.objects.values_list("no_guess", flat=True).get(pk=game_id))
