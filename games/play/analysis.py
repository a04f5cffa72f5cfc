"""The analysis of a finished game (RULES.md, No-guess boards, Analysis; docs/ANALYSIS.md).

Pure: no Django, no I/O. :func:`analyse` replays a game's moves on its layout and, before
each reveal and chord, looks only at what was open then (the numbers; flags are the
player's opinion, not information) and labels the move:

- ``deduced``: every cell it opened was provably safe;
- ``forced_guess``: no closed cell was provably safe, and the move's chance of opening a
  mine was within :data:`TOLERANCE` of the least likely closed cell's;
- ``avoidable_guess``: a provably safe cell was there, or a less likely one.

"Provably safe" and the probabilities both use the count of mines left (the player sees
it): a cell is provably safe when it holds no mine in any layout that agrees with the
numbers and the count. (No-guess boards are built to need no count; a count deduction is
still a deduction here.)

Probabilities are exact: the closed cells next to a number (the frontier) split into
independent components (cells linked by a shared number), each enumerated over classes of
interchangeable cells (the cells next to exactly the same numbers) with binomial weights,
and the components are combined by the count of mines left for the other closed cells:
a component solution with ``k`` mines weighs ``C(u, M - k - rest)`` summed over the rest.
Python integers keep the weights exact. A component whose enumeration would pass
:data:`NODE_BUDGET` is handed to ms-toollib's ``cal_probability_onboard`` for the whole
position (Rust; its own enumeration), and the analysis says ``exact: false``.

The cheap path first: most moves open a cell that the numbers around it already prove
safe. A move is checked against the numbers within two steps of it (a sub-system: fewer
constraints, more solutions, so a cell safe there is safe everywhere) before any global
computation, which runs only for the moves that are not proven that way.

Over 400 lines on purpose: the replay, the proofs, the enumeration and the combination are
one method (docs/ANALYSIS.md) over one position's private tables, kept in one pure module.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from math import comb
from typing import Any

from games.engine import Board

DEDUCED = "deduced"
FORCED_GUESS = "forced_guess"
AVOIDABLE_GUESS = "avoidable_guess"

# A guess within this much of the least likely closed cell's chance counts as one of the
# least likely (exact ties are the rule; the tolerance absorbs rounding and the fallback).
TOLERANCE = 0.005
# Search nodes one component may take before the fallback takes the position.
NODE_BUDGET = 200_000
# Search nodes the cheap local proof may take before the global computation takes over.
LOCAL_BUDGET = 4_000

_CLOSED = "#"
_FLAG = "F"


class BudgetExceeded(Exception):
    pass


@dataclass(frozen=True)
class MoveIn:
    """One recorded move, as the store keeps it."""

    seq: int
    action: str
    x: int | None = None
    y: int | None = None
    flagged: bool | None = None


@dataclass(frozen=True)
class MoveLabel:
    seq: int
    label: str
    p_mine: float
    safest_p_mine: float
    safest: tuple[int, int] | None  # the safest closed cell then (None: the move was it)
    lost: bool = False  # this move opened a mine

    def as_dict(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "label": self.label,
            "p_mine": round(self.p_mine, 4),
            "safest_p_mine": round(self.safest_p_mine, 4),
            "safest": list(self.safest) if self.safest is not None else None,
        }


@dataclass(frozen=True)
class Analysis:
    moves: tuple[MoveLabel, ...]
    exact: bool

    @property
    def forced_guesses(self) -> int:
        return sum(1 for m in self.moves if m.label == FORCED_GUESS)

    @property
    def avoidable_guesses(self) -> int:
        return sum(1 for m in self.moves if m.label == AVOIDABLE_GUESS)

    @property
    def unlucky_loss(self) -> bool:
        """The game was lost on a forced guess."""
        return any(m.lost and m.label == FORCED_GUESS for m in self.moves)

    @property
    def guesses_survived(self) -> int:
        return sum(1 for m in self.moves if m.label == FORCED_GUESS and not m.lost)

    @property
    def luck(self) -> Luck:
        """The luck of the game's forced guesses (docs/STATS.md, Luck, measured)."""
        return Luck.of([(m.p_mine, m.lost) for m in self.moves if m.label == FORCED_GUESS])

    def as_dict(self) -> dict[str, Any]:
        """API.md's `analysis` object (with `safest`, the cell to highlight, `exact` and
        `luck`)."""
        return {
            "moves": [m.as_dict() for m in self.moves],
            "forced_guesses": self.forced_guesses,
            "avoidable_guesses": self.avoidable_guesses,
            "unlucky_loss": self.unlucky_loss,
            "exact": self.exact,
            "luck": self.luck.as_dict(),
        }


@dataclass(frozen=True)
class Luck:
    """The coin flips of one game: its forced guesses, each with `p`, its chance of a mine.

    `survival_chance` is the product of (1 - p) over them (the losing one too): how likely it
    was to come through all of them. `expected_survivals` is the sum of (1 - p): how many of
    them a player survives on average. `luck` is the forced guesses survived minus that."""

    coin_flips_won: int
    coin_flips_lost: int
    survival_chance: float
    expected_survivals: float

    @classmethod
    def of(cls, guesses: Iterable[tuple[float, bool]]) -> Luck:
        """From (p, lost) of each forced guess, in any order."""
        won = lost = 0
        chance, expected = 1.0, 0.0
        for p, hit in guesses:
            chance *= 1.0 - p
            expected += 1.0 - p
            lost += int(hit)
            won += int(not hit)
        return cls(won, lost, chance, expected)

    @property
    def luck(self) -> float:
        return self.coin_flips_won - self.expected_survivals

    def as_dict(self) -> dict[str, Any]:
        return {
            "coin_flips_won": self.coin_flips_won,
            "coin_flips_lost": self.coin_flips_lost,
            # Not rounded: a game of many flips survives them with a very small chance.
            "survival_chance": self.survival_chance,
            "expected_survivals": round(self.expected_survivals, 4),
            "luck": round(self.luck, 4),
        }


# --------------------------------------------------------------------------- a position


@dataclass
class Position:
    """What the player saw: `view` one character a cell (`#` closed, `F` flag, `0`-`8`),
    row-major, and the board's total of mines."""

    width: int
    height: int
    mines: int
    view: Sequence[str]
    _nbrs: list[list[int]] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self._nbrs:
            self._nbrs = _neighbours(self.width, self.height)

    def closed(self, i: int) -> bool:
        return self.view[i] in (_CLOSED, _FLAG)

    def constraints(self) -> dict[int, tuple[frozenset[int], int]]:
        """Each opened number with closed neighbours: (those neighbours, the number)."""
        out: dict[int, tuple[frozenset[int], int]] = {}
        for i, c in enumerate(self.view):
            if c.isdigit() and c != "0":
                cells = frozenset(j for j in self._nbrs[i] if self.closed(j))
                if cells:
                    out[i] = (cells, int(c))
        return out


@cache
def _neighbours(width: int, height: int) -> list[list[int]]:
    """Each cell's neighbours (row-major indexes), computed once per board size; never
    mutated by its users."""
    out = []
    for y in range(height):
        for x in range(width):
            out.append(
                [
                    (y + dy) * width + x + dx
                    for dy in (-1, 0, 1)
                    for dx in (-1, 0, 1)
                    if (dx or dy) and 0 <= x + dx < width and 0 <= y + dy < height
                ]
            )
    return out


neighbours = _neighbours  # the replay's probability overlay keeps a position of its own


# --------------------------------------------------------------------------- enumeration


@dataclass(frozen=True)
class Solved:
    """A component's solutions: `counts[k]` the weighted number of solutions with k mines,
    `mines[k][g]` the weighted sum of mines in class `g` over them."""

    classes: tuple[tuple[int, ...], ...]
    counts: dict[int, int]
    mines: dict[int, list[int]]


def _classes(cons: list[tuple[frozenset[int], int]]) -> list[tuple[int, ...]]:
    """Cells grouped by the set of constraints they touch, in a search-friendly order
    (breadth first through shared constraints)."""
    touching: dict[int, list[int]] = {}
    for ci, (cells, _) in enumerate(cons):
        for c in cells:
            touching.setdefault(c, []).append(ci)
    by_key: dict[tuple[int, ...], list[int]] = {}
    for c, cis in touching.items():
        by_key.setdefault(tuple(cis), []).append(c)
    keys = list(by_key)
    # breadth-first over constraints so each constraint closes early in the search
    order: list[tuple[int, ...]] = []
    seen_keys: set[tuple[int, ...]] = set()
    key_of_con: dict[int, list[tuple[int, ...]]] = {}
    for k in keys:
        for ci in k:
            key_of_con.setdefault(ci, []).append(k)
    seen_cons: set[int] = set()
    for start in range(len(cons)):
        if start in seen_cons:
            continue
        queue = [start]
        seen_cons.add(start)
        for ci in queue:
            for k in sorted(key_of_con.get(ci, ())):
                if k not in seen_keys:
                    seen_keys.add(k)
                    order.append(k)
                    for cj in k:
                        if cj not in seen_cons:
                            seen_cons.add(cj)
                            queue.append(cj)
    return [tuple(sorted(by_key[k])) for k in order]


def solve(cons: list[tuple[frozenset[int], int]], *, budget: int = NODE_BUDGET) -> Solved:
    """Every assignment of mines to the cells of `cons` meeting every constraint (a cell
    set and its mine count), counted per total of mines, by classes of equal cells."""
    classes = _classes(cons)
    ncls = len(classes)
    cls_of: dict[int, int] = {c: g for g, cells in enumerate(classes) for c in cells}
    sizes = [len(c) for c in classes]
    con_cls: list[list[int]] = []  # each constraint's classes
    for cells, _ in cons:
        con_cls.append(sorted({cls_of[c] for c in cells}))
    need = [n for _, n in cons]
    room = [sum(sizes[g] for g in gs) for gs in con_cls]  # cells not yet assigned
    cls_cons: list[list[int]] = [[] for _ in range(ncls)]
    for ci, gs in enumerate(con_cls):
        for g in gs:
            cls_cons[g].append(ci)
    counts: dict[int, int] = {}
    mines: dict[int, list[int]] = {}
    assign = [0] * ncls
    nodes = 0
    binoms = [[comb(s, m) for m in range(s + 1)] for s in sizes]

    def rec(g: int, k: int, w: int) -> None:
        nonlocal nodes
        nodes += 1
        if nodes > budget:
            raise BudgetExceeded
        if g == ncls:
            counts[k] = counts.get(k, 0) + w
            acc = mines.get(k)
            if acc is None:
                acc = mines[k] = [0] * ncls
            for h in range(ncls):
                if assign[h]:
                    acc[h] += w * assign[h]
            return
        s = sizes[g]
        cs = cls_cons[g]
        lo, hi = 0, s
        for ci in cs:
            # after this class, room shrinks by s: need - m <= room - s and m <= need
            lo = max(lo, need[ci] - (room[ci] - s))
            hi = min(hi, need[ci])
        if lo > hi:
            return
        for ci in cs:
            room[ci] -= s
        for m in range(lo, hi + 1):
            for ci in cs:
                need[ci] -= m
            assign[g] = m
            rec(g + 1, k + m, w * binoms[g][m])
            for ci in cs:
                need[ci] += m
        assign[g] = 0
        for ci in cs:
            room[ci] += s

    if any(n < 0 or n > r for n, r in zip(need, room, strict=True)):
        return Solved(tuple(classes), {}, {})
    rec(0, 0, 1)
    return Solved(tuple(classes), counts, mines)


def _components(
    cons: dict[int, tuple[frozenset[int], int]],
) -> list[list[tuple[frozenset[int], int]]]:
    """The constraints split into groups that share no cell."""
    by_cell = constraints_by_cell(cons)
    seen: set[int] = set()
    return [
        [cons[k] for k in linked(cons, by_cell, [start], seen)]
        for start in cons
        if start not in seen
    ]


def constraints_by_cell(cons: Mapping[int, tuple[frozenset[int], int]]) -> dict[int, list[int]]:
    """Each closed cell's constraints, by their keys in `cons`."""
    by_cell: dict[int, list[int]] = {}
    for key, (cells, _) in cons.items():
        for c in cells:
            by_cell.setdefault(c, []).append(key)
    return by_cell


def linked(
    cons: Mapping[int, tuple[frozenset[int], int]],
    by_cell: Mapping[int, list[int]],
    start: Iterable[int],
    seen: set[int],
) -> list[int]:
    """The keys of the constraints linked to `start`'s through shared cells, breadth first and
    `start`'s first, leaving out (and adding to) `seen`: the keys already walked."""
    queue = [key for key in start if key not in seen]
    seen.update(queue)
    for key in queue:
        for c in cons[key][0]:
            for other in by_cell[c]:
                if other not in seen:
                    seen.add(other)
                    queue.append(other)
    return queue


def _convolve(a: dict[int, int], b: dict[int, int]) -> dict[int, int]:
    out: dict[int, int] = {}
    for i, x in a.items():
        for j, y in b.items():
            out[i + j] = out.get(i + j, 0) + x * y
    return out


@dataclass(frozen=True)
class Probabilities:
    """Every closed cell's chance of being a mine, and how to ask about a set of cells."""

    p: dict[int, float]
    exact: bool
    _safe_chance: Any = None  # cells -> chance that none of them is a mine

    def none_mined(self, cells: Iterable[int]) -> float:
        cells = list(cells)
        if self._safe_chance is not None:
            return float(self._safe_chance(cells))
        out = 1.0
        for c in cells:
            out *= 1.0 - self.p[c]
        return out

    def safest(self) -> tuple[int | None, float]:
        """The least likely closed cell (the first in reading order among equals)."""
        best, best_p = None, 2.0
        for c in sorted(self.p):
            if self.p[c] < best_p - 1e-12:
                best, best_p = c, self.p[c]
        return best, (best_p if best is not None else 0.0)


class _Cache:
    """Component solutions by their constraints: between two moves most of them stay."""

    def __init__(self) -> None:
        self.solved: dict[frozenset[tuple[frozenset[int], int]], Solved] = {}
        self.inexact = False  # the fallback answered at least once

    def get(self, comp: list[tuple[frozenset[int], int]]) -> Solved:
        key = frozenset(comp)
        hit = self.solved.get(key)
        if hit is None:
            hit = self.solved[key] = solve(comp)
            if len(self.solved) > 4096:
                self.solved.clear()
                self.solved[key] = hit
        return hit


def probabilities(pos: Position, *, cache: _Cache | None = None) -> Probabilities:
    """Each closed cell's exact chance of being a mine, given the numbers and the count;
    ms-toollib's routine when a component is too big to enumerate."""
    cache = cache or _Cache()
    cons = pos.constraints()
    comps = _components(cons)
    try:
        solved = [cache.get(c) for c in comps]
    except BudgetExceeded:
        return _fallback(pos)
    frontier = {c for s in solved for cls in s.classes for c in cls}
    closed = [i for i in range(len(pos.view)) if pos.closed(i)]
    u = len(closed) - len(frontier)
    total = pos.mines
    n = len(solved)
    prefix: list[dict[int, int]] = [{0: 1}]
    for s in solved:
        prefix.append(_convolve(prefix[-1], s.counts))
    suffix: list[dict[int, int]] = [{0: 1}] * (n + 1)
    for i in range(n - 1, -1, -1):
        suffix[i] = _convolve(solved[i].counts, suffix[i + 1])
    whole = prefix[n]
    weight = sum(d * comb(u, total - k) for k, d in whole.items() if 0 <= total - k <= u)
    p: dict[int, float] = {}
    if weight == 0:  # no layout agrees (a position the analysis cannot explain)
        return _fallback(pos)
    g_of: list[dict[int, int]] = []
    for i, s in enumerate(solved):
        rest = _convolve(prefix[i], suffix[i + 1])
        g = {
            k: sum(d * comb(u, total - k - j) for j, d in rest.items() if 0 <= total - k - j <= u)
            for k in s.counts
        }
        g_of.append(g)
        for h, cells in enumerate(s.classes):
            num = sum(s.mines[k][h] * g[k] for k in s.counts)
            chance = num / (weight * len(cells))
            for c in cells:
                p[c] = chance
    if u:
        num = sum(d * comb(u - 1, total - k - 1) for k, d in whole.items() if 1 <= total - k <= u)
        for c in closed:
            if c not in frontier:
                p[c] = num / weight

    comp_of = {c: i for i, s in enumerate(solved) for cls in s.classes for c in cls}

    def none_mined(cells: list[int]) -> float:
        if not cells:
            return 1.0
        if any(c not in comp_of for c in cells) or len({comp_of[c] for c in cells}) > 1:
            out = 1.0
            for c in cells:
                out *= 1.0 - p[c]
            return out
        i = comp_of[cells[0]]
        forced = [*comps[i], (frozenset(cells), 0)]
        zero = solve(forced)
        return sum(d * g_of[i][k] for k, d in zero.counts.items()) / weight

    return Probabilities(p, True, none_mined)


def _fallback(pos: Position) -> Probabilities:
    import ms_toollib  # a pinned dependency (pyproject.toml); docs/ANALYSIS.md

    w = pos.width
    grid = [
        [
            10 if pos.view[y * w + x] in (_CLOSED, _FLAG) else int(pos.view[y * w + x])
            for x in range(w)
        ]
        for y in range(pos.height)
    ]
    try:
        probs, _ = ms_toollib.cal_probability_onboard(grid, float(pos.mines))
    except Exception:  # no layout agrees: every closed cell alike
        closed = [i for i in range(len(pos.view)) if pos.closed(i)]
        share = pos.mines / len(closed) if closed else 0.0
        return Probabilities({i: share for i in closed}, False)
    p = {
        y * w + x: float(probs[y][x])
        for y in range(pos.height)
        for x in range(w)
        if pos.view[y * w + x] in (_CLOSED, _FLAG)
    }
    return Probabilities(p, False)


def _pair_proof(pos: Position, cell: int, cons: dict[int, tuple[frozenset[int], int]]) -> bool:
    """The commonest proof, without a search: a number B next to `cell` and a number A
    whose closed cells all lie among B's others, with as many mines as B. A's cells hold
    all of B's mines, so the rest of B's cells, `cell` included, are safe (the 1-1 pattern)."""
    nbrs = pos._nbrs
    for b in nbrs[cell]:
        if b not in cons:
            continue
        b_cells, b_n = cons[b]
        rest = b_cells - {cell}
        for c in b_cells:
            for a in nbrs[c]:
                if a != b and a in cons:
                    a_cells, a_n = cons[a]
                    if a_n == b_n and a_cells <= rest:
                        return True
    return False


def locally_safe(pos: Position, cell: int) -> bool:
    """True when the numbers within two steps of `cell` already prove it safe."""
    nbrs, view = pos._nbrs, pos.view
    cons: dict[int, tuple[frozenset[int], int]] = {}

    def constraint(j: int) -> bool:
        if j not in cons:
            c = view[j]
            if not c.isdigit() or c == "0":
                return False
            cells = frozenset(k for k in nbrs[j] if view[k] in (_CLOSED, _FLAG))
            if not cells:
                return False
            cons[j] = (cells, int(c))
        return True

    near = [j for j in nbrs[cell] if constraint(j)]
    if not near:
        return False
    for j in near:
        for c in cons[j][0]:
            for k in nbrs[c]:
                constraint(k)
    if _pair_proof(pos, cell, cons):
        return True
    try:
        solved = solve([cons[j] for j in sorted(cons)], budget=LOCAL_BUDGET)
    except BudgetExceeded:
        return False
    if not solved.counts:
        return False
    for h, cells in enumerate(solved.classes):
        if cell in cells:
            return all(solved.mines[k][h] == 0 for k in solved.counts)
    return False


# --------------------------------------------------------------------------- the replay


def _label(p_move: float, safe_exists: bool, safest_p: float) -> str:
    if p_move == 0.0:
        return DEDUCED
    if safe_exists:
        return AVOIDABLE_GUESS
    return FORCED_GUESS if p_move <= safest_p + TOLERANCE else AVOIDABLE_GUESS


def analyse(
    *,
    width: int,
    height: int,
    layout: Sequence[str],
    moves: Iterable[MoveIn],
    server_moves: int = 0,
) -> Analysis:
    """Replay `moves` on `layout` (engine ASCII rows: `*` a mine, anything else safe) and
    label every reveal and chord. The first `server_moves` moves were the server's (a
    race's opening) and get no label. The first tap of a game is safe by the rules (the
    mines are placed around it): deduced."""
    mine_rows = ["".join("*" if ch in "*MX" else "." for ch in row) for row in layout]
    board = Board.from_ascii(mine_rows)
    mines = board.mines
    is_mine = "".join(mine_rows)
    nbrs = _neighbours(width, height)
    cache = _Cache()
    labels: list[MoveLabel] = []
    opened_any = False
    for index, move in enumerate(moves):
        if board.ended:
            break
        if move.action not in ("reveal", "chord", "flag") or move.x is None or move.y is None:
            continue
        if not (0 <= move.x < width and 0 <= move.y < height):
            continue
        i = move.y * width + move.x
        view = "".join(board.render(layout=False))
        if move.action == "flag":
            if view[i] in (_CLOSED, _FLAG):
                board.flag(move.x, move.y, move.flagged)
            continue
        targets = _targets(view, i, move.action, nbrs)
        mine_hit = any(is_mine[t] == "*" for t in targets)
        if move.action == "reveal":
            board.reveal(move.x, move.y)
        elif view[i] not in (_CLOSED, _FLAG):
            board.chord(move.x, move.y)
        if index < server_moves:
            opened_any = opened_any or bool(targets)
            continue
        if not targets or not opened_any:
            # nothing opened (a no-op), or the first tap (safe by the rules)
            opened_any = opened_any or bool(targets)
            labels.append(MoveLabel(move.seq, DEDUCED, 0.0, 0.0, None, mine_hit))
            continue
        opened_any = True
        labels.append(_judge(move.seq, width, height, mines, view, targets, mine_hit, cache, nbrs))
    return Analysis(tuple(labels), not cache.inexact)


def label_position(rows: Sequence[str], action: str, x: int, y: int) -> MoveLabel:
    """The label of one move on a position drawn in engine ASCII (`o` opened, `.` closed
    safe, `*` mine, `F`/`M` flags): for tests and docs/ANALYSIS.md's examples."""
    board = Board.from_ascii(list(rows))
    w, h = board.width, board.height
    view = "".join(board.render(layout=False))
    is_mine = "".join("".join("*" if ch in "*MX" else "." for ch in row.strip()) for row in rows)
    nbrs = _neighbours(w, h)
    targets = _targets(view, y * w + x, action, nbrs)
    hit = any(is_mine[t] == "*" for t in targets)
    if not targets:
        return MoveLabel(0, DEDUCED, 0.0, 0.0, None, hit)
    return _judge(0, w, h, board.mines, view, targets, hit, _Cache(), nbrs)


def _targets(view: str, i: int, action: str, nbrs: list[list[int]]) -> list[int]:
    """The closed, unflagged cells a reveal or a chord at `i` opens by itself (a cascade
    from them only opens cells their zero proves safe)."""
    c = view[i]
    if action == "reveal":
        return [i] if c == _CLOSED else []
    if not c.isdigit() or c == "0":
        return []
    around = nbrs[i]
    if sum(1 for j in around if view[j] == _FLAG) != int(c):
        return []
    return [j for j in around if view[j] == _CLOSED]


def _judge(
    seq: int,
    width: int,
    height: int,
    mines: int,
    view: str,
    targets: list[int],
    mine_hit: bool,
    cache: _Cache,
    nbrs: list[list[int]],
) -> MoveLabel:
    pos = Position(width, height, mines, view, nbrs)
    if all(locally_safe(pos, t) for t in targets):
        return MoveLabel(seq, DEDUCED, 0.0, 0.0, None, mine_hit)
    probs = probabilities(pos, cache=cache)
    if not probs.exact:
        cache.inexact = True
    p_move = 1.0 - probs.none_mined(targets)
    p_move = min(1.0, max(0.0, p_move))
    if p_move < 1e-12:
        p_move = 0.0
    best, best_p = probs.safest()
    safe_exists = best is not None and best_p == 0.0
    label = _label(p_move, safe_exists, best_p)
    if label == DEDUCED:
        return MoveLabel(seq, label, 0.0, 0.0, None, mine_hit)
    safest = (best % width, best // width) if best is not None else None
    return MoveLabel(seq, label, p_move, best_p, safest, mine_hit)


__all__ = [
    "AVOIDABLE_GUESS",
    "DEDUCED",
    "FORCED_GUESS",
    "TOLERANCE",
    "Analysis",
    "BudgetExceeded",
    "Luck",
    "MoveIn",
    "MoveLabel",
    "Position",
    "Solved",
    "analyse",
    "constraints_by_cell",
    "label_position",
    "linked",
    "neighbours",
    "probabilities",
    "solve",
]
