"""Hidden layouts, for the tests that may look at them (never tests/contract/).

A layout is engine ASCII, one string a row: `*` mine, `M` flagged mine, `.` closed safe cell,
`F` flag on a safe cell, `o` opened, `X` the mine that exploded."""

from __future__ import annotations

import random
from typing import Any

from django.utils import timezone
from rest_framework.test import APIClient

from games.engine import Board
from games.play import services
from games.play.models import Game
from tests.support.http import post

MINE_CHARS = "*MX"

# A 5 x 5 board with one coin flip: the first tap at (0, 0) opens the top four rows, and the
# bottom row reads 1 2 2 2 1. Its three mines are (2, 4), for certain, and one of two mirror
# pairs, (1, 4) + (4, 4) (drawn here) or (0, 4) + (3, 4): the numbers allow both, so each of
# the other four cells of that row is a mine at 50 %.
COIN = [
    ".....",
    ".....",
    ".....",
    ".....",
    ".**.*",
]


def board_of(game: Game | str) -> Board:
    """The stored board of a game (or of a game id), read straight from the database: tests
    know the mines, no client ever does."""
    game_id = game.id if isinstance(game, Game) else game
    return Board.decode(bytes(Game.objects.get(pk=game_id).board))


def layout(game: Game | str) -> list[str]:
    """The stored layout of a game (or of a game id), in engine ASCII."""
    return board_of(game).to_ascii()


def cells(rows: list[str], chars: str) -> list[tuple[int, int]]:
    """The (x, y) of every cell of `rows` whose character is one of `chars`, row by row."""
    return [(x, y) for y, row in enumerate(rows) for x, ch in enumerate(row) if ch in chars]


def mines(game_id: str) -> set[tuple[int, int]]:
    return set(cells(layout(game_id), MINE_CHARS))


def safe_closed(game_id: str) -> list[tuple[int, int]]:
    return cells(layout(game_id), ".F")


def mines_of(board: Board) -> set[tuple[int, int]]:
    return set(cells(board.to_ascii(), MINE_CHARS))


def safe_cells(board: Board) -> list[tuple[int, int]]:
    """Every safe cell of `board` still closed and unflagged ('.'), row by row."""
    return cells(board.to_ascii(), ".")


def mine_cell(board: Board) -> tuple[int, int]:
    """The first mine of `board` not yet opened (flagged or not), row by row."""
    return cells(board.to_ascii(), "*M")[0]


def neighbours(x: int, y: int, width: int, height: int) -> list[tuple[int, int]]:
    """The up to eight cells around (x, y) on a width x height board."""
    return [
        (x + dx, y + dy)
        for dy in (-1, 0, 1)
        for dx in (-1, 0, 1)
        if (dx or dy) and 0 <= x + dx < width and 0 <= y + dy < height
    ]


def chord_target(
    board: Board, mines: set[tuple[int, int]]
) -> tuple[tuple[int, int], list[tuple[int, int]]]:
    """An opened number with 1 to 3 mines around it and a closed safe neighbour: flag its
    mines (one per way of flagging) and tapping it chords (RULES.md, Chord)."""
    rows = board.render()
    for y, row in enumerate(rows):
        for x, v in enumerate(row):
            if v in "123":
                around = neighbours(x, y, board.width, board.height)
                its_mines = [c for c in around if c in mines]
                closed_safe = [c for c in around if c not in mines and rows[c[1]][c[0]] == "#"]
                if len(its_mines) == int(v) and closed_safe:
                    return (x, y), its_mines
    raise AssertionError("no chord candidate on this layout")


def seeded_rng(seed: str, width: int, height: int, mines: int) -> random.Random:
    """The generator the server places mines with while GAME_TEST_SEED is `seed`."""
    return services.seeded_rng(seed, width, height, mines)


def layout_after_first_tap(seed: str, width: int, height: int, mines: int, x: int, y: int) -> Board:
    """The board the server builds for a first tap at (x, y) while GAME_TEST_SEED is `seed`."""
    board = Board.new(width, height, mines)
    board.reveal(x, y, seeded_rng(seed, width, height, mines))
    return board


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


def game_from_ascii(api: APIClient, rows: list[str]) -> dict[str, Any]:
    """A started custom game whose hidden layout is drawn in engine ASCII (test set-up only:
    it writes the stored board directly, as if the first tap had produced this layout)."""
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
