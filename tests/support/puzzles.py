"""Puzzle helpers: positions drawn in ASCII, a quick player that makes real games with a move
log, and puzzles stored straight from a drawing (tests/puzzles, tests/api).

A drawing is engine ASCII, one string a row: `*` a mine, `.` a closed safe cell, `o` an opened
cell (its number is the layout's). A drawing must be a position a game can show: no opened zero
beside a closed cell (its cascade would have opened it)."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from games.engine import Board
from games.play.analysis import MoveIn
from games.puzzles import positions
from games.puzzles.models import Puzzle


@dataclass(frozen=True)
class Drawn:
    width: int
    height: int
    mines: int
    view: str  # `#` closed, `0`-`8` opened
    layout: str  # `*` a mine, `.` safe

    def cell(self, x: int, y: int) -> int:
        return y * self.width + x

    def xy(self, cells: Any) -> set[tuple[int, int]]:
        return {(c % self.width, c // self.width) for c in cells}


def drawn(rows: list[str]) -> Drawn:
    """The position a drawing shows; refused when a game could not show it (an opened mine,
    or an opened zero beside a closed cell: its cascade would have opened it)."""
    rows = [r.strip() for r in rows if r.strip()]
    width, height = len(rows[0]), len(rows)
    text = "".join(rows)
    layout = "".join("*" if ch == "*" else "." for ch in text)
    numbers = positions.numbers(width, height, layout)
    view = "".join(numbers[i] if ch == "o" else positions.CLOSED for i, ch in enumerate(text))
    nbrs = positions.neighbours(width, height)
    assert not any(
        ch == "0" and any(view[j] == positions.CLOSED for j in nbrs[i]) for i, ch in enumerate(view)
    ), "an opened zero beside a closed cell"
    return Drawn(width, height, layout.count("*"), view, layout)


def store(rows: list[str], *, level: str = "custom", source_game: Any = None) -> Puzzle:
    """A Puzzle row from a drawing, its answer computed and kept as the generator keeps one
    (but for the generator's refusals: a drawing may be trivial)."""
    from games.puzzles import generator

    d = drawn(rows)
    safe = positions.safe_cells(d.width, d.height, d.mines, d.view)
    assert safe, "a puzzle proves at least one cell safe"
    found = positions.classify(d.width, d.height, d.mines, d.view, safe)
    assert found is not None
    spec = generator.spec_of(
        d.width, d.height, d.mines, d.view, safe, found, seq=0, origin=generator.ORIGIN_DEDUCTION
    )
    return generator.store(spec, level=level, layout=d.layout, source_game=source_game)


# One drawing per theme (docs/PUZZLES.md, Themes), each a position a game can show.
# single: the 1 at (0, 2) has one closed neighbour, (0, 1): a mine, which is all the 1 at
# (1, 0) has, so (0, 0) is safe; the same in the far corner around (4, 4). Two numbers' worth
# of safe cells, far apart: not trivial.
SINGLE = [
    ".ooooo",
    "*ooooo",
    "oooooo",
    "oooooo",
    "oooo*.",
]
# trivial: the 1 at (3, 0) shows the mine at (2, 0), which is all the 1 at (2, 1) has:
# (1, 0) is safe, and that is all, around one number.
TRIVIAL = [
    "*.*ooo",
    "oooooo",
    "oooooo",
    "oooooo",
    "oooooo",
]
# subset: the 1 at (1, 3) sees one closed cell, (2, 4): a mine, so the 2 at (3, 3) has one mine
# left in (3, 4) and (4, 4), both among the 1 at (4, 3)'s cells: (5, 4) is safe (a 1-1 once the
# obvious mine is counted). (3, 4) is a single: the 1 at (2, 3) has (2, 4).
SUBSET = [
    "oooooo",
    "oooooo",
    "oooooo",
    "oooooo",
    "oo*.*.",
]
# pattern: 1-2-1 along the top row against the walls, and 1-2-2-1.
PATTERN_121 = [
    ".*.*.",
    "ooooo",
    "ooooo",
]
PATTERN_1221 = [
    ".**.",
    "oooo",
    "oooo",
]
# chain: three numbers are needed for each of (0, 0) and (2, 0).
CHAIN = [
    ".*.*oo",
    "o*oooo",
    "oooooo",
    "oooooo",
    "oooooo",
]
# mines_left: the 2 at (0, 2) shows both mines; only the count says the corner has no third.
MINES_LEFT = [
    "..oooo",
    "**oooo",
    "oooooo",
    "oooooo",
    "oooooo",
]


# Solving (RULES.md, Puzzles, Solving): (2, 0), (3, 1) and (4, 1) are provable at the start;
# (3, 0) once (2, 0) shows its number; (5, 0) is safe but never provable; (4, 0) is a mine.
FLOW = [
    "oo..*.",
    "oo*..*",
    "oooooo",
    "oooooo",
    "oooooo",
]


def quick_game(
    width: int, height: int, mines: int, rng: random.Random
) -> tuple[list[str], list[MoveIn]]:
    """A game played to its end by a quick player: it opens what one number proves (flags
    being free, it counts the obvious mines), and otherwise guesses a closed cell at random.
    Its layout (engine ASCII) and its move log."""
    board = Board.new(width, height, mines)
    moves: list[MoveIn] = []
    first = (rng.randrange(width), rng.randrange(height))
    board.reveal(*first, rng)
    moves.append(MoveIn(1, "reveal", *first))
    layout = board.to_ascii()
    nbrs = positions.neighbours(width, height)
    while not board.ended:
        view = "".join(board.render(layout=False))
        closed = [i for i, ch in enumerate(view) if ch == positions.CLOSED]
        obvious: set[int] = set()
        for i, ch in enumerate(view):
            if ch in "12345678":
                around = [j for j in nbrs[i] if view[j] == positions.CLOSED]
                if len(around) == int(ch):
                    obvious.update(around)
        safe = None
        for i, ch in enumerate(view):
            if ch in "12345678":
                around = [j for j in nbrs[i] if view[j] == positions.CLOSED]
                if sum(1 for j in around if j in obvious) == int(ch):
                    safe = next((j for j in around if j not in obvious), None)
                    if safe is not None:
                        break
        cell = (
            safe
            if safe is not None
            else rng.choice([c for c in closed if c not in obvious] or closed)
        )
        board.reveal(cell % width, cell // width)
        moves.append(MoveIn(len(moves) + 1, "reveal", cell % width, cell // width))
    return layout, moves


def generated(count: int, *, seed: int = 7, ratings: list[float] | None = None) -> list[Puzzle]:
    """`count` different puzzles from quick Beginner games, stored (with `ratings`, in order,
    when given), as the generator keeps them."""
    from games.puzzles import generator

    rng = random.Random(seed)
    made: list[Puzzle] = []
    keys: set[str] = set()
    while len(made) < count:
        layout, moves = quick_game(9, 9, 10, rng)
        mines = generator.mines_text(layout)
        for spec in generator.candidates(width=9, height=9, layout=layout, moves=moves):
            if spec.key in keys or len(made) == count:
                continue
            keys.add(spec.key)
            rating = ratings[len(made)] if ratings is not None else None
            made.append(generator.store(spec, level="beginner", layout=mines, rating=rating))
    return made


def solution_cells(puzzle: Puzzle) -> list[tuple[int, int]]:
    return [(c % puzzle.width, c // puzzle.width) for c in puzzle.solution]


def a_mine(puzzle: Puzzle, view: str | None = None) -> tuple[int, int]:
    """A closed mine of the puzzle's position: opening it fails."""
    view = view or puzzle.view
    cell = next(
        i for i, ch in enumerate(puzzle.layout) if ch == "*" and view[i] == positions.CLOSED
    )
    return cell % puzzle.width, cell // puzzle.width
