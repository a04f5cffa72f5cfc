"""A deduction solver for the bot runner: from what a client sees (API.md's `board` strings:
`#` closed, `F` flag, `0`-`8` opened), the cells that are surely safe and surely mines, and,
when none is sure, the closed cell least likely to be a mine.

Deduction: every opened number is a constraint "these closed neighbours hold n minus the
flags around it". A constraint with 0 left makes its cells safe; one with as many left as
cells makes them mines; and for two constraints where one's cells contain the other's, the
difference is a constraint of its own (the subset rule), repeated until nothing changes.
That clears most boards a person would call logical; what it cannot prove, it guesses."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

Cell = tuple[int, int]


@dataclass(frozen=True)
class Decision:
    """What to do next: `reveal` these safe cells (`flag` says the mines it proved); when no
    cell is proved safe, `guess` is the least likely closed cell that is not a proved mine
    (None: nothing left to open)."""

    reveal: frozenset[Cell] = field(default_factory=frozenset)
    flag: frozenset[Cell] = field(default_factory=frozenset)
    guess: Cell | None = None


class Solver(Protocol):
    """What the bot runner asks of a solver; plug in your own."""

    def decide(self, board: Sequence[str], mines: int) -> Decision: ...


def neighbours(x: int, y: int, width: int, height: int) -> list[Cell]:
    return [
        (x + dx, y + dy)
        for dy in (-1, 0, 1)
        for dx in (-1, 0, 1)
        if (dx or dy) and 0 <= x + dx < width and 0 <= y + dy < height
    ]


def constraints(board: Sequence[str]) -> list[tuple[frozenset[Cell], int]]:
    """One (closed cells, mines among them) per opened number that touches a closed cell."""
    height, width = len(board), len(board[0]) if board else 0
    out: dict[frozenset[Cell], int] = {}
    for y, row in enumerate(board):
        for x, char in enumerate(row):
            if not char.isdigit():
                continue
            around = neighbours(x, y, width, height)
            closed = frozenset(c for c in around if board[c[1]][c[0]] == "#")
            if closed:
                flags = sum(1 for c in around if board[c[1]][c[0]] == "F")
                out[closed] = int(char) - flags
    return list(out.items())


class DeductionSolver:
    """The single-cell and subset rules, then the least likely cell (Solver)."""

    def __init__(self, max_rounds: int = 50) -> None:
        self.max_rounds = max_rounds

    def decide(self, board: Sequence[str], mines: int) -> Decision:
        rules = constraints(board)
        safe: set[Cell] = set()
        mined: set[Cell] = set()
        for _ in range(self.max_rounds):
            known = len(safe) + len(mined)
            rules = self._settle(rules, safe, mined)
            derived: dict[frozenset[Cell], int] = dict(rules)
            for a, na in rules:
                for b, nb in rules:
                    if a is not b and a < b:
                        derived.setdefault(b - a, nb - na)
            rules = list(derived.items())
            rules = self._settle(rules, safe, mined)
            if len(safe) + len(mined) == known:
                break
        # The count of mines left decides the rest when it is 0, or when every unknown
        # closed cell must be a mine.
        closed = {(x, y) for y, row in enumerate(board) for x, c in enumerate(row) if c == "#"}
        unknown = closed - safe - mined
        left = mines - sum(row.count("F") for row in board) - len(mined)
        if unknown and left == 0:
            safe |= unknown
        elif unknown and left == len(unknown):
            mined |= unknown
        guess = None
        if not safe:
            guess = self._least_likely(board, rules, mines, avoid=mined)
        return Decision(reveal=frozenset(safe), flag=frozenset(mined), guess=guess)

    @staticmethod
    def _settle(
        rules: list[tuple[frozenset[Cell], int]], safe: set[Cell], mined: set[Cell]
    ) -> list[tuple[frozenset[Cell], int]]:
        left: list[tuple[frozenset[Cell], int]] = []
        for cells, n in rules:
            n -= len(cells & mined)
            cells = cells - safe - mined
            if not cells:
                continue
            if n == 0:
                safe |= cells
            elif n == len(cells):
                mined |= cells
            else:
                left.append((cells, n))
        return left

    @staticmethod
    def _least_likely(
        board: Sequence[str],
        rules: list[tuple[frozenset[Cell], int]],
        mines: int,
        avoid: set[Cell] | None = None,
    ) -> Cell | None:
        closed = [
            (x, y)
            for y, row in enumerate(board)
            for x, c in enumerate(row)
            if c == "#" and (x, y) not in (avoid or set())
        ]
        if not closed:
            return None
        flags = sum(row.count("F") for row in board)
        density = max(0.0, mines - flags - len(avoid or ())) / len(closed)
        risk = dict.fromkeys(closed, density)
        touched: set[Cell] = set()
        for cells, n in rules:
            for cell in cells:
                p = n / len(cells)
                if cell in risk:
                    risk[cell] = max(risk[cell], p) if cell in touched else p
                touched.add(cell)
        # Corners open more when they are safe; among equals, prefer them, then the top left.
        height, width = len(board), len(board[0])

        def key(cell: Cell) -> tuple[float, int, int, int]:
            edges = (cell[0] in (0, width - 1)) + (cell[1] in (0, height - 1))
            return (risk[cell], -edges, cell[1], cell[0])

        return min(closed, key=key)
