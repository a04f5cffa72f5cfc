"""The replay's probability overlay (docs/ANALYSIS.md, The probability overlay): every closed
cell's chance of being a mine at each step of a finished game, as the numbers open then and
the count of mines say. Pure: no Django, no I/O.

A step is the position after the game's first k moves, pauses and resumes left out (the
replay page's steps): step 0 is the untouched board, the last one the end. The chances are
games.play.analysis's (exact enumeration by components and classes of equal cells, combined
by the count of mines; ms-toollib's routine past its budget), with two savings that make a
whole Marathon game affordable:

- **Only steps that open cells are computed.** Flags are the player's opinion, not
  information (a flagged cell is a closed cell like any other), so a flag, a move that opens
  nothing, a resign keep the previous step's chances.
- **The position is kept, not rebuilt.** The numbers next to a closed cell (the constraints),
  the cells they touch and their independent components are updated from the cells a step
  opened; only the components those cells touch are solved again (the others keep their
  solutions), and the whole board is never scanned in Python.

A step is stored as one byte per cell (:data:`OPEN` for an opened cell, else the chance in
:data:`SCALE` ths: half percentage points, 0 and :data:`SCALE` only for a provably safe and a
provable mine), steps packed in chunks of :data:`CHUNK` and each chunk zlib-compressed, so a
request for one step inflates one chunk.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from math import comb

from games.engine import Board
from games.play.analysis import (
    BudgetExceeded,
    MoveIn,
    Position,
    Solved,
    linked,
    neighbours,
    probabilities,
    solve,
)

SCALE = 200  # a chance is stored to the half percentage point
OPEN = 255  # an opened cell (or an opened mine): no chance
CHUNK = 32  # steps a chunk; a step's request inflates one chunk (32 x 3,200 B on Marathon)

_CLOSED = b"#F"
_NO_MOVE = ("pause", "resume")  # not steps of the replay


def quantise(p: float) -> int:
    """A chance as a byte: 0 and SCALE only for a certainty, everything else between."""
    if p <= 0.0:
        return 0
    if p >= 1.0:
        return SCALE
    return min(SCALE - 1, max(1, round(p * SCALE)))


@dataclass(frozen=True)
class Overlay:
    """The overlay of one game: `steps` grids of width x height bytes, `chunks` of CHUNK
    steps each compressed; `exact` False when ms-toollib's routine answered a step."""

    width: int
    height: int
    steps: int
    exact: bool
    chunks: tuple[bytes, ...]

    def grid(self, step: int) -> bytes:
        """The bytes of one step (row-major, one a cell)."""
        if not 0 <= step < self.steps:
            raise IndexError(step)
        return step_grid(self.chunks[step // CHUNK], step % CHUNK, self.width * self.height)

    @property
    def size(self) -> int:
        return sum(len(c) for c in self.chunks)


def step_grid(chunk: bytes, index: int, cells: int) -> bytes:
    """Step `index` of a compressed chunk of steps of `cells` bytes each."""
    raw = zlib.decompressobj().decompress(chunk, (index + 1) * cells)
    return raw[index * cells : (index + 1) * cells]


def chances(grid: bytes, width: int) -> list[list[float | None]]:
    """The rows of a step's grid as API.md's numbers: a closed cell's chance, null if open."""
    rows: list[list[float | None]] = []
    for y in range(len(grid) // width):
        rows.append([None if b == OPEN else b / SCALE for b in grid[y * width : (y + 1) * width]])
    return rows


# --------------------------------------------------------------------------- the position


class _Tracker:
    """The position the player saw, updated step by step: its constraints (each number next to
    a closed cell: those cells, the number), which constraints touch each closed cell, and the
    independent components with their solutions."""

    def __init__(self, width: int, height: int, mines: int) -> None:
        self.width, self.height, self.mines = width, height, mines
        self.nbrs = neighbours(width, height)
        self.view = b"#" * (width * height)
        self.cons: dict[int, tuple[frozenset[int], int]] = {}
        self.by_cell: dict[int, set[int]] = {}
        self.comp_of: dict[int, int] = {}  # constraint -> component id
        self.comps: dict[int, list[int]] = {}  # component id -> its constraints
        self.solved: dict[int, Solved] = {}
        self._next = 0
        self.exact = True

    def _drop(self, key: int) -> None:
        cells, _ = self.cons.pop(key)
        for c in cells:
            keys = self.by_cell[c]
            keys.discard(key)
            if not keys:
                del self.by_cell[c]

    def _add(self, key: int) -> None:
        view = self.view
        ch = view[key]
        if not 0x31 <= ch <= 0x38:  # only the numbers 1-8 constrain
            return
        cells = frozenset(j for j in self.nbrs[key] if view[j] in _CLOSED)
        if cells:
            # a mine opened at the end (X) is one of the number's, known now
            known = sum(1 for j in self.nbrs[key] if view[j] == 0x58)
            self.cons[key] = (cells, ch - 0x30 - known)
            for c in cells:
                self.by_cell.setdefault(c, set()).add(key)

    def update(self, view: bytes) -> bool:
        """Move to `view`; False when it opened nothing (the chances stay)."""
        old = self.view
        opened = [i for i, (a, b) in enumerate(zip(old, view, strict=True)) if a != b]
        opened = [i for i in opened if view[i] not in _CLOSED]
        self.view = view
        if not opened:
            return False
        dirty: set[int] = set()
        for c in opened:
            dirty.add(c)
            dirty.update(j for j in self.nbrs[c] if j in self.cons)
        touched = {self.comp_of[k] for k in dirty if k in self.comp_of}
        for k in dirty:
            if k in self.cons:
                self._drop(k)
            self._add(k)
        start = [k for comp in touched for k in self.comps[comp] if k in self.cons]
        start += [k for k in dirty if k in self.cons]
        for comp in touched:
            for k in self.comps.pop(comp):
                self.comp_of.pop(k, None)
            self.solved.pop(comp, None)
        seen: set[int] = set()
        for key in start:
            if key in seen:
                continue
            group = linked(self.cons, self.by_cell, [key], seen)  # type: ignore[arg-type]
            # A new number can join components no opened cell touched: theirs are rebuilt.
            for k in group:
                other = self.comp_of.pop(k, None)
                if other is not None and other in self.comps:
                    del self.comps[other]
                    self.solved.pop(other, None)
            cid = self._next
            self._next += 1
            self.comps[cid] = group
            for k in group:
                self.comp_of[k] = cid
        return True

    def chances(self) -> tuple[dict[int, float], float | None]:
        """The chances of the frontier's cells, and the one chance of every other closed cell
        (None: the dict has every closed cell, from ms-toollib's routine)."""
        mines = self.mines - self.view.count(b"X")
        try:
            for cid, keys in self.comps.items():
                if cid not in self.solved:
                    self.solved[cid] = solve([self.cons[k] for k in keys])
        except BudgetExceeded:
            return self._fallback(), None
        solved = list(self.solved.values())
        closed = self.view.count(b"#") + self.view.count(b"F")
        frontier = len(self.by_cell)
        u = closed - frontier
        out = _combine(solved, u, mines)
        if out is None:  # no layout agrees: leave it to ms-toollib's routine
            return self._fallback(), None
        return out

    def _fallback(self) -> dict[int, float]:
        self.exact = False
        # ms-toollib's routine reads numbers and closed cells only: a mine opened at the end
        # goes to it as a closed cell, counted in the board's mines, and is left out after.
        view = self.view.decode()
        pos = Position(self.width, self.height, self.mines, view.replace("X", "#"), self.nbrs)
        return {c: p for c, p in probabilities(pos).p.items() if view[c] != "X"}


def _convolve(a: dict[int, int], b: dict[int, int]) -> dict[int, int]:
    out: dict[int, int] = {}
    for i, x in a.items():
        for j, y in b.items():
            out[i + j] = out.get(i + j, 0) + x * y
    return out


def _combine(
    solved: list[Solved], u: int, mines: int
) -> tuple[dict[int, float], float | None] | None:
    """The components' solutions combined by the count of mines (docs/ANALYSIS.md, Method 2):
    a frontier with K mines leaves C(u, mines - K) ways to the `u` other closed cells."""
    n = len(solved)
    prefix: list[dict[int, int]] = [{0: 1}]
    for s in solved:
        prefix.append(_convolve(prefix[-1], s.counts))
    suffix: list[dict[int, int]] = [{0: 1}] * (n + 1)
    for i in range(n - 1, -1, -1):
        suffix[i] = _convolve(solved[i].counts, suffix[i + 1])
    ways = _ways(u, mines, mines - sum(max(s.counts, default=0) for s in solved))
    whole = prefix[n]
    weight = sum(d * ways.get(mines - k, 0) for k, d in whole.items())
    if weight == 0:
        return None
    p: dict[int, float] = {}
    for i, s in enumerate(solved):
        rest = _convolve(prefix[i], suffix[i + 1])
        g = {k: sum(d * ways.get(mines - k - j, 0) for j, d in rest.items()) for k in s.counts}
        for h, cells in enumerate(s.classes):
            chance = sum(s.mines[k][h] * g[k] for k in s.counts) / (weight * len(cells))
            for c in cells:
                p[c] = chance
    rest_p = None
    if u:
        # C(u-1, r-1) = C(u, r) * r / u: a given other cell holds one of the r mines left
        num = sum(d * ways.get(mines - k, 0) * (mines - k) for k, d in whole.items())
        rest_p = num / (weight * u)
    return p, rest_p


def _ways(u: int, mines: int, low: int) -> dict[int, int]:
    """C(u, r) for r from `low` to `mines` (one binomial, then a product and a division a step:
    the other cells number in the thousands on Marathon, the r in the hundreds)."""
    low = max(0, low)
    top = min(u, mines)
    out: dict[int, int] = {}
    if low > top:
        return out
    w = comb(u, low)
    for r in range(low, top + 1):
        out[r] = w
        w = w * (u - r) // (r + 1)
    return out


# --------------------------------------------------------------------------- the replay


def overlay(*, width: int, height: int, layout: Sequence[str], moves: Iterable[MoveIn]) -> Overlay:
    """Replay `moves` on `layout` (engine ASCII rows) and keep every step's chances."""
    mine_rows = ["".join("*" if ch in "*MX" else "." for ch in row) for row in layout]
    board = Board.from_ascii(mine_rows)
    tracker = _Tracker(width, height, board.mines)
    cells = width * height
    chunks: list[bytes] = []
    pending = bytearray()
    steps = 0
    grid = _grid(tracker.view, {}, board.mines / cells if cells else None)

    def keep(g: bytes) -> None:
        nonlocal pending, steps
        pending += g
        steps += 1
        if steps % CHUNK == 0:
            chunks.append(zlib.compress(bytes(pending), 6))
            pending = bytearray()

    keep(grid)
    for move in moves:
        if move.action in _NO_MOVE:
            continue
        x, y = move.x, move.y
        if (
            not board.ended
            and x is not None
            and y is not None
            and 0 <= x < width
            and 0 <= y < height
        ):
            closed = tracker.view[y * width + x] in _CLOSED
            if move.action == "reveal":
                board.reveal(x, y)
            elif move.action == "chord" and not closed:
                board.chord(x, y)
            elif move.action == "flag" and closed:
                board.flag(x, y, move.flagged)
        view = "".join(board.render(layout=False)).encode()
        if tracker.update(view):
            grid = _grid(view, *tracker.chances())
        keep(grid)
    if pending:
        chunks.append(zlib.compress(bytes(pending), 6))
    return Overlay(width, height, steps, tracker.exact, tuple(chunks))


def _grid(view: bytes, p: dict[int, float], rest: float | None) -> bytes:
    table = bytearray([OPEN]) * 256
    if rest is not None:
        table[ord("#")] = table[ord("F")] = quantise(rest)
    out = bytearray(view.translate(table))
    for c, chance in p.items():
        out[c] = quantise(chance)
    return bytes(out)


__all__ = ["CHUNK", "OPEN", "SCALE", "Overlay", "chances", "overlay", "quantise", "step_grid"]
