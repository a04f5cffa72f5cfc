"""A puzzle's position, pure (no Django, no I/O): what is provably safe in it, what reasoning
proves it, and its key up to the board's symmetries (docs/PUZZLES.md).

A position is a board's size, its total of mines and its `view`: one character a cell,
row-major, `#` closed and `0`-`8` opened. Flags are never part of a puzzle, so every mine
is among the closed cells and the count of mines left is the board's total.

Safe means safe in every layout that agrees with the numbers and the count: the exact
probabilities of games.play.analysis decide it (a cell is safe when its chance is exactly
0), and a position whose answer that solver could not compute exactly is refused (None).

How a safe cell is proved is measured on the *reduced* position: a number with exactly as
many closed neighbours as its value proves them all mines by itself (an "obvious" mine, what
a player flags without thinking), so those mines are taken out of every other number (its
value drops by one per obvious mine around it). Then a cell's **depth** is the smallest
number of (reduced) numbers whose constraints, taken alone, prove it safe; the count of
mines left, when it is needed, counts as one more number. Its **theme**:

- `single`: one number alone, its obvious mines counted (depth 1);
- `pattern`: three or four numbers in a straight line reading 1-2-1 or 1-2-2-1 whose closed
  cells all lie in the one line of cells beside them (a wall or opened cells on the other
  side), and those numbers prove the cell;
- `subset`: two numbers (one number's cells inside another's: 1-1, 1-2);
- `chain`: three numbers or more, not a pattern;
- `mines_left`: no set of numbers proves it without the count of mines left.

A puzzle's themes are its cells' themes, without `single` when a harder one is there; its
depth is its deepest cell's. A position whose every safe cell is a `single` around one number
(that number's obvious neighbours) is *trivial*.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from games.engine import Board, neighbours
from games.play.analysis import (
    BudgetExceeded,
    Position,
    Solved,
    constraints_by_cell,
    linked,
    locally_safe,
    probabilities,
    solve,
)

CLOSED = "#"
DIGITS = "012345678"

SINGLE = "single"
SUBSET = "subset"
PATTERN = "pattern"
CHAIN = "chain"
MINES_LEFT = "mines_left"
THEMES = (SINGLE, SUBSET, PATTERN, CHAIN, MINES_LEFT)  # the easiest first

# Numbers a local proof may combine before a cell counts as deeper than that (its depth is
# then MAX_LOCAL + 1), and the sets of numbers tried for one cell before giving up the same way.
MAX_LOCAL = 4
MAX_SUBSETS = 800
# Search nodes one local proof may take (games.play.analysis.solve's budget).
LOCAL_NODES = 20_000
# The shapes of the patterns, read along their line.
PATTERNS = ((1, 2, 1), (1, 2, 2, 1))

Constraint = tuple[frozenset[int], int]


def check_view(width: int, height: int, view: str) -> None:
    """Refuse a view that is not a position: wrong length, or a character but `#` and digits."""
    if len(view) != width * height:
        raise ValueError(f"a {width}x{height} view has {width * height} cells, not {len(view)}")
    bad = set(view) - set(CLOSED + DIGITS)
    if bad:
        raise ValueError(f"unknown view characters {sorted(bad)}")


def rows_of(width: int, view: str) -> list[str]:
    return [view[k : k + width] for k in range(0, len(view), width)]


# --------------------------------------------------------------------------- what is safe


def safe_cells(width: int, height: int, mines: int, view: str) -> frozenset[int] | None:
    """Every closed cell that no layout agreeing with the numbers and the count can hold a
    mine in; None when the exact solver could not answer (too big, or no layout agrees)."""
    check_view(width, height, view)
    probs = probabilities(Position(width, height, mines, view))
    if not probs.exact:
        return None
    return frozenset(c for c, p in probs.p.items() if p == 0.0)


def provably_safe(width: int, height: int, mines: int, view: str, cell: int) -> bool:
    """Whether the numbers of `view` (and the count) prove `cell` safe: the numbers around it
    first (a sub-system proves no more than the whole), then every layout. When the exact
    enumeration is too big, ms-toollib's enumeration answers (games.play.analysis)."""
    if view[cell] != CLOSED:
        return False
    pos = Position(width, height, mines, view)
    if locally_safe(pos, cell):
        return True
    return probabilities(pos).p.get(cell) == 0.0


# --------------------------------------------------------------------------- opening cells


def numbers(width: int, height: int, layout: str) -> str:
    """Each cell's number (`*` for a mine) from a layout of `*` mines and `.` safe cells."""
    nbrs = neighbours(width, height)
    return "".join(
        "*" if ch == "*" else str(sum(1 for j in nbrs[i] if layout[j] == "*"))
        for i, ch in enumerate(layout)
    )


def open_cell(width: int, height: int, layout: str, view: str, cell: int) -> list[int]:
    """The cells opening a closed safe `cell` opens, in order: the engine's reveal on the
    puzzle's layout with the view's cells open (the cell, and when it is a zero every cell its
    cascade reaches: RULES.md, Cascade opening)."""
    if view[cell] != CLOSED or layout[cell] == "*":
        return []
    drawn = "".join("o" if v != CLOSED else m for v, m in zip(view, layout, strict=True))
    board = Board.from_ascii(rows_of(width, drawn))
    return [c.y * width + c.x for c in board.reveal(cell % width, cell // width).changes]


def with_opened(view: str, opened: Iterable[tuple[int, str]]) -> str:
    """`view` with each (cell, number) of `opened` shown."""
    cells = list(view)
    for cell, number in opened:
        cells[cell] = number
    return "".join(cells)


# --------------------------------------------------------------------------- how it is proved


@dataclass(frozen=True)
class Proof:
    theme: str
    depth: int


@dataclass(frozen=True)
class Classification:
    """How a position's safe cells are proved (see the module's docstring)."""

    proofs: dict[int, Proof]
    trivial: bool

    @property
    def themes(self) -> tuple[str, ...]:
        found = {p.theme for p in self.proofs.values()}
        if found - {SINGLE}:
            found.discard(SINGLE)
        return tuple(t for t in THEMES if t in found)

    @property
    def theme(self) -> str:
        """The hardest reasoning the position needs."""
        return self.themes[-1]

    @property
    def depth(self) -> int:
        return max(p.depth for p in self.proofs.values())


@dataclass(frozen=True)
class _Reduced:
    """The position with its obvious mines taken out: each number (by its cell) with its
    unknown closed neighbours and the mines among them."""

    cons: dict[int, Constraint]
    obvious: frozenset[int]
    closed: int  # closed cells that are not obvious mines
    mines: int  # mines among them


def _reduce(width: int, height: int, mines: int, view: str) -> _Reduced:
    nbrs = neighbours(width, height)
    raw: dict[int, Constraint] = {}
    for i, ch in enumerate(view):
        if ch in "12345678":
            cells = frozenset(j for j in nbrs[i] if view[j] == CLOSED)
            if cells:
                raw[i] = (cells, int(ch))
    obvious = frozenset(c for cells, n in raw.values() if n == len(cells) for c in cells)
    cons: dict[int, Constraint] = {}
    for i, (cells, n) in raw.items():
        left = cells - obvious
        if left:
            cons[i] = (left, n - len(cells & obvious))
    closed = view.count(CLOSED) - len(obvious)
    return _Reduced(cons, obvious, closed, mines - len(obvious))


def _safe_in(solved: Solved, keep: Callable[[int], bool]) -> frozenset[int]:
    """The cells of `solved` without a mine in every solution whose total `keep` accepts."""
    totals = [k for k in solved.counts if keep(k)]
    if not totals:
        return frozenset()
    return frozenset(
        c
        for h, cells in enumerate(solved.classes)
        if all(solved.mines[k][h] == 0 for k in totals)
        for c in cells
    )


class _Proofs:
    """What each set of numbers proves, computed once per set for all the cells asking."""

    def __init__(self, red: _Reduced) -> None:
        self.red = red
        self.by_cell: dict[int, list[int]] = {}
        for key, (cells, _) in red.cons.items():
            for c in cells:
                self.by_cell.setdefault(c, []).append(key)
        self.plain: dict[frozenset[int], frozenset[int]] = {}
        self.counted: dict[frozenset[int], tuple[frozenset[int], bool]] = {}

    def proves(self, subset: frozenset[int], cell: int) -> bool:
        """The numbers of `subset` alone (no count) leave `cell` without a mine."""
        found = self.plain.get(subset)
        if found is None:
            solved = solve([self.red.cons[k] for k in sorted(subset)], budget=LOCAL_NODES)
            found = self.plain[subset] = _safe_in(solved, lambda _k: True)
        return cell in found

    def proves_counting(self, subset: frozenset[int], cell: int) -> bool:
        """The numbers of `subset` and the count of mines left leave `cell` without a mine."""
        found = self.counted.get(subset)
        if found is None:
            red = self.red
            cons = [red.cons[k] for k in sorted(subset)]
            solved = solve(cons, budget=LOCAL_NODES)
            rest = red.closed - len({c for cells, _ in cons for c in cells})

            def fits(k: int) -> bool:  # the mines left outside fit the cells outside
                return 0 <= red.mines - k <= rest

            outside_empty = all(red.mines == k for k in solved.counts if fits(k)) and any(
                fits(k) for k in solved.counts
            )
            found = self.counted[subset] = (_safe_in(solved, fits), outside_empty)
        inside, outside_empty = found
        touched = any(cell in self.red.cons[k][0] for k in subset)
        return cell in inside if touched else outside_empty

    def smallest(self, cell: int, *, counting: bool) -> int | None:
        """The fewest numbers, grown one neighbouring number at a time from those around
        `cell` (from any number for a cell no number touches, with the count), that prove it;
        None past MAX_LOCAL numbers or MAX_SUBSETS sets tried."""
        test = self.proves_counting if counting else self.proves
        if counting and test(frozenset(), cell):
            return 0
        starts = self.by_cell.get(cell) or (list(self.red.cons) if counting else [])
        level = {frozenset([k]) for k in starts}
        seen = set(level)
        tried = 0
        for size in range(1, MAX_LOCAL + 1):
            for subset in sorted(level, key=sorted):
                tried += 1
                if tried > MAX_SUBSETS:
                    return None
                try:
                    if test(subset, cell):
                        return size
                except BudgetExceeded:
                    continue
            grown: set[frozenset[int]] = set()
            for subset in level:
                for c in {c for k in subset for c in self.red.cons[k][0]}:
                    for other in self.by_cell[c]:
                        bigger = subset | {other}
                        if other not in subset and bigger not in seen:
                            seen.add(bigger)
                            grown.add(bigger)
            level = grown
        return None


def _proves(cons: list[Constraint], cell: int, *, budget: int = LOCAL_NODES) -> bool:
    """The constraints alone (no count) leave `cell` without a mine in every solution."""
    return cell in _safe_in(solve(cons, budget=budget), lambda _k: True)


def _component(cons: dict[int, Constraint], cell: int) -> list[Constraint]:
    """The numbers linked to `cell` through shared closed cells."""
    by_cell = constraints_by_cell(cons)
    return [cons[k] for k in sorted(linked(cons, by_cell, by_cell.get(cell, []), set()))]


def _pattern_cells(width: int, height: int, red: _Reduced) -> frozenset[int]:
    """The cells a 1-2-1 or 1-2-2-1 proves safe: numbers in a line whose unknown cells all lie
    in the one line of cells beside them."""
    cons = red.cons
    found: set[int] = set()
    for length, shape in ((len(s), s) for s in PATTERNS):
        for horizontal in (True, False):
            steps = width if horizontal else height
            lines = height if horizontal else width
            for line in range(lines):
                for first in range(steps - length + 1):
                    cells = [
                        line * width + first + k if horizontal else (first + k) * width + line
                        for k in range(length)
                    ]
                    if any(
                        c not in cons or cons[c][1] != v for c, v in zip(cells, shape, strict=True)
                    ):
                        continue
                    members = [cons[c] for c in cells]
                    for side in (-1, 1):
                        beside = line + side
                        if not 0 <= beside < lines:
                            continue
                        strip = {
                            beside * width + s if horizontal else s * width + beside
                            for s in range(max(0, first - 1), min(steps, first + length + 1))
                        }
                        if all(m <= strip for m, _ in members):
                            found |= {c for c in strip if _proves(members, c)}
    return frozenset(found)


def classify(
    width: int, height: int, mines: int, view: str, safe: Iterable[int]
) -> Classification | None:
    """How each cell of `safe` (the position's safe cells) is proved; None when a proof
    cannot be computed within the budgets (the position is refused)."""
    red = _reduce(width, height, mines, view)
    safe = sorted(safe)
    if not safe:
        return None
    patterns = _pattern_cells(width, height, red)
    found = _Proofs(red)
    proofs: dict[int, Proof] = {}
    for cell in safe:
        if any(n == 0 and cell in cells for cells, n in red.cons.values()):
            proofs[cell] = Proof(SINGLE, 1)
            continue
        # The numbers linked to the cell, all of them, first: when even they do not prove it,
        # only the count does, and no smaller set of numbers needs trying.
        try:
            by_numbers = _proves(_component(red.cons, cell), cell, budget=200_000)
        except BudgetExceeded:
            return None
        if not by_numbers:
            counted = found.smallest(cell, counting=True)
            proofs[cell] = Proof(MINES_LEFT, MAX_LOCAL + 1 if counted is None else counted + 1)
            continue
        depth = found.smallest(cell, counting=False) or MAX_LOCAL + 1
        theme = PATTERN if cell in patterns else SUBSET if depth == 2 else CHAIN
        proofs[cell] = Proof(theme, depth)
    trivial = all(p.theme == SINGLE for p in proofs.values()) and any(
        n == 0 and set(safe) <= cells for cells, n in red.cons.values()
    )
    return Classification(proofs, trivial)


# --------------------------------------------------------------------------- the key


def canonical_key(width: int, height: int, mines: int, view: str) -> str:
    """The same for a position and its mirror images and turns (8 for a square board, 4
    otherwise): the SHA-256 of the smallest of their texts."""
    rows = rows_of(width, view)
    shapes = [rows]
    if width == height:
        shapes.append(["".join(col) for col in zip(*rows, strict=True)])
    texts = []
    for shape in shapes:
        for variant in (
            shape,
            [r[::-1] for r in shape],
            shape[::-1],
            [r[::-1] for r in shape[::-1]],
        ):
            texts.append(f"{len(variant[0])}x{len(variant)}:{mines}:{'/'.join(variant)}")
    return hashlib.sha256(min(texts).encode()).hexdigest()


__all__ = [
    "CHAIN",
    "CLOSED",
    "MINES_LEFT",
    "PATTERN",
    "SINGLE",
    "SUBSET",
    "THEMES",
    "Classification",
    "Proof",
    "canonical_key",
    "check_view",
    "classify",
    "neighbours",
    "numbers",
    "open_cell",
    "provably_safe",
    "rows_of",
    "safe_cells",
    "with_opened",
]
