"""An independent Minesweeper deduction solver, for the no-guess tests (docs/NOGUESS.md).

It knows nothing of ms-toollib (the generator's checker) nor of the engine's cascade: given a
layout and an opening cell, it opens what a player who only deduces from the numbers can prove
safe, until it is stuck or every safe cell is open. The count of mines left is never used.

Deduction is exact: the closed cells next to an opened number (the frontier) are split into
components linked by shared numbers; a cell is proven safe (or a mine) when no assignment of
its component that satisfies every number of the component makes it a mine (or safe).
Components are independent (no mine count ties them), so this is every deduction the numbers
allow. A cheap propagation (a number already met, or needing all its closed cells) runs first;
the exact test, a backtracking search per frontier cell, only when the propagation is stuck.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

Cell = int


@cache
def neighbours(width: int, height: int) -> tuple[tuple[Cell, ...], ...]:
    """Each cell's up to eight neighbours, as flat indexes (one table per board size)."""
    out: list[tuple[Cell, ...]] = []
    for y in range(height):
        for x in range(width):
            out.append(
                tuple(
                    (y + dy) * width + (x + dx)
                    for dy in (-1, 0, 1)
                    for dx in (-1, 0, 1)
                    if (dx or dy) and 0 <= x + dx < width and 0 <= y + dy < height
                )
            )
    return tuple(out)


@dataclass
class Result:
    cleared: bool  # every safe cell opened by deduction alone
    opened: int  # safe cells opened
    safe: int  # safe cells on the board
    rounds: int  # how many times the exact search was needed


class _Constraints:
    """Numbers as (closed cells, mines among them) over the cells still unknown."""

    def __init__(self, rules: list[tuple[tuple[Cell, ...], int]]) -> None:
        self.rules = rules
        self.by_cell: dict[Cell, list[int]] = {}
        for i, (cells, _) in enumerate(rules):
            for c in cells:
                self.by_cell.setdefault(c, []).append(i)

    def satisfiable(self, fixed: dict[Cell, int], cells: list[Cell]) -> dict[Cell, int] | None:
        """An assignment of `cells` (0 safe, 1 mine) extending `fixed` that meets every rule
        touching them, or None. Backtracking with propagation."""
        value = dict(fixed)
        if not self._propagate(value, list(value)):
            return None
        return self._search(value, cells)

    def _search(self, value: dict[Cell, int], cells: list[Cell]) -> dict[Cell, int] | None:
        free = [c for c in cells if c not in value]
        if not free:
            return value
        # Branch on a cell of the tightest rule: few choices, early contradictions.
        best = free[0]
        best_slack = 99
        for c in free[:64]:
            for i in self.by_cell.get(c, ()):
                cells_i, need = self.rules[i]
                open_i = sum(1 for d in cells_i if d not in value)
                mines_i = sum(value.get(d, 0) for d in cells_i)
                slack = min(need - mines_i, open_i - (need - mines_i))
                if slack < best_slack:
                    best, best_slack = c, slack
        for v in (0, 1):
            trial = dict(value)
            trial[best] = v
            if self._propagate(trial, [best]):
                found = self._search(trial, cells)
                if found is not None:
                    return found
        return None

    def _propagate(self, value: dict[Cell, int], changed: list[Cell]) -> bool:
        todo = {i for c in changed for i in self.by_cell.get(c, ())}
        if not changed:
            todo = set(range(len(self.rules)))
        while todo:
            i = todo.pop()
            cells_i, need = self.rules[i]
            mines_i = 0
            unknown: list[Cell] = []
            for d in cells_i:
                v = value.get(d)
                if v is None:
                    unknown.append(d)
                else:
                    mines_i += v
            left = need - mines_i
            if left < 0 or left > len(unknown):
                return False
            if unknown and (left == 0 or left == len(unknown)):
                fill = 0 if left == 0 else 1
                for d in unknown:
                    value[d] = fill
                    todo.update(self.by_cell.get(d, ()))
        return True


def solve(width: int, height: int, mines: Iterable[Cell], start: tuple[int, int]) -> Result:
    """Play the board from `start` (x, y) by deduction alone."""
    mine_set = set(mines)
    nbrs = neighbours(width, height)
    number = [sum(1 for n in nbrs[c] if n in mine_set) for c in range(width * height)]
    safe = width * height - len(mine_set)
    opened: set[Cell] = set()
    known_mines: set[Cell] = set()
    fresh: list[Cell] = []  # opened since the last round

    def open_cell(c: Cell) -> None:
        stack = [c]
        while stack:
            d = stack.pop()
            if d in opened:
                continue
            assert d not in mine_set, "the solver opened a mine: a bug in the solver"
            opened.add(d)
            fresh.append(d)
            if number[d] == 0:
                stack.extend(n for n in nbrs[d] if n not in opened)

    sx, sy = start
    open_cell(sy * width + sx)
    rounds = 0
    # The opened numbers that may still touch a closed cell (a number once surrounded by
    # opened cells and known mines never matters again).
    active: set[Cell] = set()
    while len(opened) < safe:
        active.update(c for c in fresh if number[c])
        fresh.clear()
        rules: list[tuple[tuple[Cell, ...], int]] = []
        frontier: set[Cell] = set()
        for c in list(active):
            closed = tuple(n for n in nbrs[c] if n not in opened and n not in known_mines)
            if not closed:
                active.discard(c)
                continue
            need = number[c] - sum(1 for n in nbrs[c] if n in known_mines)
            rules.append((closed, need))
            frontier.update(closed)
        if not frontier:
            break
        constraints = _Constraints(rules)
        # Propagation first.
        forced: dict[Cell, int] = {}
        if not constraints._propagate(forced, []):
            raise AssertionError("the numbers contradict each other: a bug in the solver")
        if not forced:
            rounds += 1
            forced = _exact(constraints, frontier)
        if not forced:
            break
        for c, v in forced.items():
            if v == 1:
                assert c in mine_set, "the solver proved a safe cell a mine: a bug"
                known_mines.add(c)
        for c, v in forced.items():
            if v == 0:
                open_cell(c)
    return Result(cleared=len(opened) == safe, opened=len(opened), safe=safe, rounds=rounds)


def _components(constraints: _Constraints, frontier: set[Cell]) -> list[list[Cell]]:
    seen: set[Cell] = set()
    out: list[list[Cell]] = []
    for c in frontier:
        if c in seen:
            continue
        part: list[Cell] = []
        stack = [c]
        seen.add(c)
        while stack:
            d = stack.pop()
            part.append(d)
            for i in constraints.by_cell.get(d, ()):
                for e in constraints.rules[i][0]:
                    if e not in seen:
                        seen.add(e)
                        stack.append(e)
        out.append(part)
    return out


def _exact(constraints: _Constraints, frontier: set[Cell]) -> dict[Cell, int]:
    """Every frontier cell whose value is the same in all assignments of its component."""
    forced: dict[Cell, int] = {}
    for part in _components(constraints, frontier):
        first = constraints.satisfiable({}, part)
        if first is None:
            raise AssertionError("no assignment satisfies the numbers: a bug in the solver")
        seen = {c: {first[c]} for c in part}
        for c in part:
            if len(seen[c]) == 2:
                continue
            other = 1 - next(iter(seen[c]))
            found = constraints.satisfiable({c: other}, part)
            if found is None:
                forced[c] = 1 - other
            else:
                for d in part:
                    seen[d].add(found[d])
    return forced


__all__ = ["Result", "neighbours", "solve"]
