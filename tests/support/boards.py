"""Hidden layouts, for the tests that may look at them (never tests/contract/).

A layout is engine ASCII, one string a row: `*` mine, `M` flagged mine, `.` closed safe cell,
`F` flag on a safe cell, `o` opened, `X` the mine that exploded."""

from __future__ import annotations

import random

from games import services
from games.engine import Board
from games.models import Game

MINE_CHARS = "*MX"


def layout(game: Game | str) -> list[str]:
    """The stored board of a game (or of a game id), read straight from the database."""
    game_id = game.id if isinstance(game, Game) else game
    return Board.decode(bytes(Game.objects.get(pk=game_id).board)).to_ascii()


def cells(rows: list[str], chars: str) -> list[tuple[int, int]]:
    """The (x, y) of every cell of `rows` whose character is one of `chars`, row by row."""
    return [(x, y) for y, row in enumerate(rows) for x, ch in enumerate(row) if ch in chars]


def mines(game_id: str) -> set[tuple[int, int]]:
    return set(cells(layout(game_id), MINE_CHARS))


def safe_closed(game_id: str) -> list[tuple[int, int]]:
    return cells(layout(game_id), ".F")


def mines_of(board: Board) -> set[tuple[int, int]]:
    return set(cells(board.to_ascii(), MINE_CHARS))


def neighbours(x: int, y: int, width: int, height: int) -> list[tuple[int, int]]:
    """The up to eight cells around (x, y) on a width x height board."""
    return [
        (x + dx, y + dy)
        for dy in (-1, 0, 1)
        for dx in (-1, 0, 1)
        if (dx or dy) and 0 <= x + dx < width and 0 <= y + dy < height
    ]


def seeded_rng(seed: str, width: int, height: int, mines: int) -> random.Random:
    """The generator the server places mines with while GAME_TEST_SEED is `seed`."""
    return services.seeded_rng(seed, width, height, mines)


def layout_after_first_tap(seed: str, width: int, height: int, mines: int, x: int, y: int) -> Board:
    """The board the server builds for a first tap at (x, y) while GAME_TEST_SEED is `seed`."""
    board = Board.new(width, height, mines)
    board.reveal(x, y, seeded_rng(seed, width, height, mines))
    return board
