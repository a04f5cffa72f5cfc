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


class _OverBudget(Exception):
    """A frontier too tangled to enumerate within the solver's budget."""


class PuzzleSolver:
    """Only what is proved, never a guess: in a puzzle the first opening the numbers (and the
    count of mines left) do not prove safe fails it, even a lucky one (RULES.md, Puzzles).

    The DeductionSolver's rules first, which are cheap and sound; when they prove nothing, every
    layout of each frontier component is enumerated and the components are combined under the
    count of mines left with the closed cells no number touches, so a cell is safe exactly when
    it holds no mine in any layout the numbers and the count allow. A component needing more
    than `budget` steps proves nothing (the bot stops rather than guess)."""

    def __init__(self, budget: int = 200_000) -> None:
        self.budget = budget
        self.rules = DeductionSolver()

    def decide(self, board: Sequence[str], mines: int) -> Decision:
        quick = self.rules.decide(board, mines)
        if quick.reveal:
            return Decision(reveal=quick.reveal, flag=quick.flag)
        try:
            safe, mined = self._exact(board, mines)
        except _OverBudget:
            return Decision(flag=quick.flag)
        return Decision(reveal=frozenset(safe), flag=frozenset(mined) | quick.flag)

    def _exact(self, board: Sequence[str], mines: int) -> tuple[set[Cell], set[Cell]]:
        rules = constraints(board)
        closed = {(x, y) for y, row in enumerate(board) for x, c in enumerate(row) if c == "#"}
        left = mines - sum(row.count("F") for row in board)
        frontier = set().union(*(cells for cells, _ in rules)) if rules else set()
        interior = closed - frontier
        components = _components(rules)
        # per component: for each count of mines it can hold, the cells that are a mine in
        # some layout with that count, and those that are safe in some layout
        counts = [
            _layouts(cells, comp_rules, left, self.budget) for cells, comp_rules in components
        ]
        if any(not c for c in counts):
            return set(), set()  # numbers that contradict each other prove nothing
        sums = [frozenset(c) for c in counts]
        safe: set[Cell] = set()
        mined: set[Cell] = set()
        for i, ((cells, _), by_count) in enumerate(zip(components, counts, strict=True)):
            others = _sums(sums[:i] + sums[i + 1 :])
            maybe_mine: set[Cell] = set()
            maybe_safe: set[Cell] = set()
            for k, (mine_in, safe_in) in by_count.items():
                if any(0 <= left - k - s <= len(interior) for s in others):
                    maybe_mine |= mine_in
                    maybe_safe |= safe_in
            if not maybe_mine and not maybe_safe:
                return set(), set()  # no layout agrees with the count: nothing is proved
            safe |= set(cells) - maybe_mine
            mined |= set(cells) - maybe_safe
        if interior:
            rest = [left - s for s in _sums(sums) if 0 <= left - s <= len(interior)]
            if rest and max(rest) == 0:
                safe |= interior
            elif rest and min(rest) == len(interior):
                mined |= interior
        return safe, mined


def _components(
    rules: list[tuple[frozenset[Cell], int]],
) -> list[tuple[list[Cell], list[tuple[frozenset[Cell], int]]]]:
    """The frontier split into parts no number links, each with its cells in an order where
    neighbours come together (so that the enumeration closes constraints early) and its rules."""
    by_cell: dict[Cell, list[int]] = {}
    for r, (cells, _) in enumerate(rules):
        for cell in cells:
            by_cell.setdefault(cell, []).append(r)
    seen: set[Cell] = set()
    out: list[tuple[list[Cell], list[tuple[frozenset[Cell], int]]]] = []
    for start in sorted(by_cell):
        if start in seen:
            continue
        order: list[Cell] = []
        taken: set[int] = set()
        queue = [start]
        seen.add(start)
        while queue:
            cell = queue.pop(0)
            order.append(cell)
            for r in by_cell[cell]:
                taken.add(r)
                for other in sorted(rules[r][0] - seen):
                    seen.add(other)
                    queue.append(other)
        out.append((order, [rules[r] for r in sorted(taken)]))
    return out


def _layouts(
    cells: list[Cell], rules: list[tuple[frozenset[Cell], int]], left: int, budget: int
) -> dict[int, tuple[set[Cell], set[Cell]]]:
    """For each count k of mines the component can hold (at most `left`): the cells a mine in
    some layout of k mines, and those safe in some. Raises _OverBudget past `budget` steps."""
    index = {cell: i for i, cell in enumerate(cells)}
    of_cell: list[list[int]] = [[] for _ in cells]
    for r, (members, _) in enumerate(rules):
        for cell in members:
            of_cell[index[cell]].append(r)
    need = [n for _, n in rules]
    mines_in = [0] * len(rules)
    unset = [len(members) for members, _ in rules]
    full = (1 << len(cells)) - 1
    found: dict[int, list[int]] = {}
    steps = 0

    def place(i: int, k: int, mask: int) -> None:
        nonlocal steps
        steps += 1
        if steps > budget:
            raise _OverBudget
        if i == len(cells):
            seen = found.setdefault(k, [0, 0])
            seen[0] |= mask
            seen[1] |= full & ~mask
            return
        for mine in (0, 1):
            if k + mine > left:
                break
            fits = True
            for r in of_cell[i]:
                unset[r] -= 1
                mines_in[r] += mine
                if mines_in[r] > need[r] or mines_in[r] + unset[r] < need[r]:
                    fits = False
            if fits:
                place(i + 1, k + mine, mask | (mine << i))
            for r in of_cell[i]:
                unset[r] += 1
                mines_in[r] -= mine

    place(0, 0, 0)

    def cells_of(mask: int) -> set[Cell]:
        return {cell for i, cell in enumerate(cells) if mask >> i & 1}

    return {k: (cells_of(m), cells_of(s)) for k, (m, s) in found.items()}


def _sums(options: list[frozenset[int]]) -> set[int]:
    """Every total of one choice from each set (the mines the components hold together)."""
    totals = {0}
    for choice in options:
        totals = {t + k for t in totals for k in choice}
    return totals
