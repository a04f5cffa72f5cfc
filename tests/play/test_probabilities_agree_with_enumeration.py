"""games.play.analysis against a brute force: on small boards, every closed cell's chance of
being a mine is the share of the layouts, among all that agree with the open numbers and
the count of mines, that put a mine there; and a chord's chance is the share that put a mine
under any cell it opens."""

from __future__ import annotations

import itertools
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import Board
from games.play.analysis import (
    AVOIDABLE_GUESS,
    DEDUCED,
    FORCED_GUESS,
    TOLERANCE,
    Position,
    _Cache,
    _judge,
    _neighbours,
    probabilities,
)


def agreeing_layouts(w: int, h: int, mines: int, view: str) -> list[frozenset[int]]:
    """Every placement of `mines` mines on the closed cells that gives the open numbers."""
    nbrs = _neighbours(w, h)
    closed = [i for i, c in enumerate(view) if c in "#F"]
    numbers = [(i, int(c)) for i, c in enumerate(view) if c.isdigit()]
    out = []
    for combo in itertools.combinations(closed, mines):
        placed = frozenset(combo)
        if all(sum(1 for j in nbrs[i] if j in placed) == n for i, n in numbers):
            out.append(placed)
    return out


@st.composite
def positions(draw: st.DrawFn) -> tuple[int, int, int, str]:
    """A small board with its mines and some of its safe cells opened (never all)."""
    w = draw(st.integers(2, 5))
    h = draw(st.integers(2, 4))
    n = w * h
    count = draw(st.integers(1, max(1, n // 3)))
    mine_cells = draw(st.sets(st.integers(0, n - 1), min_size=count, max_size=count))
    safe = [i for i in range(n) if i not in mine_cells]
    opened = draw(st.lists(st.sampled_from(safe), max_size=len(safe)))
    rows = ["".join("*" if y * w + x in mine_cells else "." for x in range(w)) for y in range(h)]
    board = Board.from_ascii(rows)
    for i in opened:
        if board.ended:
            break
        board.reveal(i % w, i // w)
    flags = draw(st.lists(st.integers(0, n - 1), max_size=2))
    for i in flags:
        if not board.ended and board.render(layout=False)[i // w][i % w] == "#":
            board.flag(i % w, i // w)
    return w, h, count, "".join(board.render(layout=False))


@settings(max_examples=300, deadline=None)
@given(positions())
def test_each_cells_chance_is_its_share_of_the_agreeing_layouts(pos):
    w, h, mines, view = pos
    if "#" not in view and "F" not in view:
        return  # the board was cleared by the reveals
    layouts = agreeing_layouts(w, h, mines, view)
    assert layouts, "the true layout always agrees"
    found = probabilities(Position(w, h, mines, view, _neighbours(w, h)))
    assert found.exact
    closed = [i for i, c in enumerate(view) if c in "#F"]
    assert set(found.p) == set(closed)
    for i in closed:
        share = sum(1 for lay in layouts if i in lay) / len(layouts)
        assert abs(found.p[i] - share) < 1e-9, (view, i)


@settings(max_examples=200, deadline=None)
@given(positions(), st.data())
def test_a_set_of_cells_is_mine_free_as_often_as_the_layouts_say(pos, data):
    w, h, mines, view = pos
    closed = [i for i, c in enumerate(view) if c in "#F"]
    if not closed:
        return
    nbrs = _neighbours(w, h)
    numbers = [i for i, c in enumerate(view) if c.isdigit() and any(j in closed for j in nbrs[i])]
    # the cells a chord opens: the closed neighbours of one number
    cells = [j for j in nbrs[data.draw(st.sampled_from(numbers))] if j in closed] if numbers else []
    if not cells:
        cells = [data.draw(st.sampled_from(closed))]
    layouts = agreeing_layouts(w, h, mines, view)
    share = sum(1 for lay in layouts if not lay & set(cells)) / len(layouts)
    found = probabilities(Position(w, h, mines, view, nbrs))
    assert abs(found.none_mined(cells) - share) < 1e-9


def test_a_component_too_big_to_enumerate_goes_to_the_fallback_which_still_adds_up():
    """Scattered openings on an Expert-sized board link 169 classes of cells into one
    component: past the node budget, ms-toollib's routine answers (`exact` false). Its
    chances still add up to the mines of the board, and stay chances."""
    rng = random.Random(2)
    w, h = 30, 16
    rows = [
        "".join(
            "*" if rng.random() < 0.2 else ("o" if rng.random() < 0.3 else ".") for _ in range(w)
        )
        for _ in range(h)
    ]
    board = Board.from_ascii(rows)
    view = "".join(board.render(layout=False))
    found = probabilities(Position(w, h, board.mines, view, _neighbours(w, h)))
    assert not found.exact
    assert all(0.0 <= p <= 1.0 for p in found.p.values())
    assert abs(sum(found.p.values()) - board.mines) < 1e-6


@settings(max_examples=200, deadline=None)
@given(positions(), st.data())
def test_a_reveals_label_is_the_one_the_agreeing_layouts_give(pos, data):
    """RULES.md's labels from the brute force's chances: deduced at 0, avoidable while a cell
    at 0 exists or one more than the tolerance safer, forced otherwise."""
    w, h, mines, view = pos
    closed = [i for i, c in enumerate(view) if c == "#"]
    if not closed or not any(c.isdigit() for c in view):
        return  # nothing to open, or the first tap (safe by the rules)
    target = data.draw(st.sampled_from(closed))
    layouts = agreeing_layouts(w, h, mines, view)
    every = [i for i, c in enumerate(view) if c in "#F"]
    share = {i: sum(1 for lay in layouts if i in lay) / len(layouts) for i in every}
    safest = min(share.values())
    if share[target] == 0:
        expected = DEDUCED
    elif safest == 0 or share[target] > safest + TOLERANCE:
        expected = AVOIDABLE_GUESS
    else:
        expected = FORCED_GUESS
    found = _judge(0, w, h, mines, view, [target], False, _Cache(), _neighbours(w, h))
    assert found.label == expected, (view, target, share)
    assert abs(found.p_mine - share[target]) < 1e-9
