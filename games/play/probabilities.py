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

    def update(self, view: bytes, opened: list[int]) -> None:
        """Move to `view`, where the cells `opened` were opened by the last move."""
        self.view = view
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


# A polynomial in the count of mines: (its lowest degree, its coefficients from there).
Poly = tuple[int, list[int]]


def _poly(counts: dict[int, int]) -> Poly:
    lo = min(counts)
    return lo, [counts.get(k, 0) for k in range(lo, max(counts) + 1)]


def _times(a: Poly, b: Poly) -> Poly:
    out = [0] * (len(a[1]) + len(b[1]) - 1)
    for i, x in enumerate(a[1]):
        if x:
            for j, y in enumerate(b[1]):
                out[i + j] += x * y
    return a[0] + b[0], out


def _over(t: Poly, c: Poly) -> Poly:
    """t / c where c divides t exactly (t is a product c is a factor of): long division from
    the lowest degree, whose coefficient in c is never 0."""
    cs, rest = c[1], list(t[1])
    out = [0] * (len(rest) - len(cs) + 1)
    for j in range(len(out)):
        q = out[j] = rest[j] // cs[0]
        if q:
            for s in range(1, len(cs)):
                rest[j + s] -= q * cs[s]
    return t[0] - c[0], out


def _combine(
    solved: list[Solved], u: int, mines: int
) -> tuple[dict[int, float], float | None] | None:
    """The components' solutions combined by the count of mines (docs/ANALYSIS.md, Method 2):
    a frontier with K mines leaves C(u, mines - K) ways to the `u` other closed cells.

    The frontier's ways per K are the product of the components' polynomials; the ways of the
    others than component i are that product divided by i's (exact in integers), which costs
    one pass per component where the analysis's prefix and suffix products cost a square."""
    if any(not s.counts for s in solved):
        return None
    polys = [_poly(s.counts) for s in solved]
    whole: Poly = (0, [1])
    for poly in polys:
        whole = _times(whole, poly)
    ways = _ways(u, mines, mines - (whole[0] + len(whole[1]) - 1))
    lo, total = whole
    weight = sum(d * ways.get(mines - lo - k, 0) for k, d in enumerate(total) if d)
    if weight == 0:
        return None
    p: dict[int, float] = {}
    for s, poly in zip(solved, polys, strict=True):
        rlo, rest = _over(whole, poly)
        g = {
            k: sum(d * ways.get(mines - k - rlo - j, 0) for j, d in enumerate(rest) if d)
            for k in s.counts
        }
        for h, cells in enumerate(s.classes):
            chance = sum(s.mines[k][h] * g[k] for k in s.counts) / (weight * len(cells))
            for c in cells:
                p[c] = chance
    rest_p = None
    if u:
        # C(u-1, r-1) = C(u, r) * r / u: a given other cell holds one of the r mines left
        num = sum(d * ways.get(mines - lo - k, 0) * (mines - lo - k) for k, d in enumerate(total))
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
            if move.action == "reveal" or (move.action == "chord" and not closed):
                done = board.reveal(x, y) if move.action == "reveal" else board.chord(x, y)
                # The cells the move opened, from the engine's own account of it: a flag, a
                # no-op, a resign open nothing, and their steps keep the chances.
                changed = [int(c["y"]) * width + int(c["x"]) for c in done.change_dicts()]
                view = "".join(board.render(layout=False)).encode()
                opened = [i for i in changed if view[i] not in _CLOSED]
                if opened:
                    tracker.update(view, opened)
                    grid = _grid(view, *tracker.chances())
            elif move.action == "flag" and closed:
                board.flag(x, y, move.flagged)
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
