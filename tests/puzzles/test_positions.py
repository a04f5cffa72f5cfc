"""A puzzle's position (games/puzzles/positions.py; docs/PUZZLES.md, Themes and depth): what is
provably safe, which reasoning proves each cell, and the key up to the board's symmetries. Each
theme on a hand-drawn position a game can show (tests/support/puzzles.py)."""

from __future__ import annotations

import pytest

from games.puzzles import positions
from games.puzzles.positions import CHAIN, MINES_LEFT, PATTERN, SINGLE, SUBSET
from tests.support import puzzles as drawings
from tests.support.puzzles import Drawn, drawn


def _classified(d: Drawn) -> positions.Classification:
    safe = positions.safe_cells(d.width, d.height, d.mines, d.view)
    assert safe
    found = positions.classify(d.width, d.height, d.mines, d.view, safe)
    assert found is not None
    return found


def _safe(d: Drawn) -> set[tuple[int, int]]:
    safe = positions.safe_cells(d.width, d.height, d.mines, d.view)
    assert safe is not None
    return d.xy(safe)


def _proof(d: Drawn, found: positions.Classification, x: int, y: int) -> tuple[str, int]:
    proof = found.proofs[d.cell(x, y)]
    return proof.theme, proof.depth


def test_single_one_number_and_its_obvious_mines() -> None:
    d = drawn(drawings.SINGLE)
    assert _safe(d) == {(0, 0), (5, 4)}
    found = _classified(d)
    assert found.themes == (SINGLE,) and found.depth == 1
    assert not found.trivial  # two numbers' worth, far apart


def test_a_lone_numbers_obvious_neighbours_are_trivial() -> None:
    d = drawn(drawings.TRIVIAL)
    assert _safe(d) == {(1, 0)}
    found = _classified(d)
    assert found.themes == (SINGLE,) and found.trivial


def test_subset_one_number_inside_another() -> None:
    d = drawn(drawings.SUBSET)
    assert _safe(d) == {(3, 4), (5, 4)}
    found = _classified(d)
    assert found.themes == (SUBSET,) and found.depth == 2
    assert _proof(d, found, 5, 4) == (SUBSET, 2)
    assert _proof(d, found, 3, 4) == (SINGLE, 1)  # (2, 4) is obvious: the 1 at (2, 3) is full


@pytest.mark.parametrize(
    ("rows", "safe"),
    [
        (drawings.PATTERN_121, {(0, 0), (2, 0), (4, 0)}),
        (drawings.PATTERN_1221, {(0, 0), (3, 0)}),
    ],
    ids=["1-2-1", "1-2-2-1"],
)
def test_pattern_in_a_line_against_a_wall(rows: list[str], safe: set[tuple[int, int]]) -> None:
    d = drawn(rows)
    assert _safe(d) == safe
    found = _classified(d)
    assert found.themes == (PATTERN,)
    assert all(p.theme == PATTERN for p in found.proofs.values())


def test_chain_three_numbers_or_more() -> None:
    d = drawn(drawings.CHAIN)
    assert _safe(d) == {(0, 0), (2, 0)}
    found = _classified(d)
    assert found.themes == (CHAIN,) and found.depth == 3


def test_mines_left_only_the_count_proves_it() -> None:
    d = drawn(drawings.MINES_LEFT)
    assert _safe(d) == {(0, 0), (1, 0)}
    found = _classified(d)
    assert found.themes == (MINES_LEFT,)  # (1, 0) is also a single: the harder one names it
    assert _proof(d, found, 0, 0)[0] == MINES_LEFT
    assert _proof(d, found, 1, 0) == (SINGLE, 1)
    # without the count, the corner could hold a third mine
    one_more = drawn(["*.oooo", "**oooo", "oooooo", "oooooo", "oooooo"])
    assert (0, 0) not in _safe(one_more)


def test_a_position_no_layout_explains_has_no_answer() -> None:
    assert positions.safe_cells(3, 1, 1, "#3#") is None


def test_the_view_is_checked() -> None:
    with pytest.raises(ValueError):
        positions.safe_cells(2, 2, 1, "#F10")
    with pytest.raises(ValueError):
        positions.safe_cells(2, 2, 1, "#1")


def _turned(rows: list[str]) -> list[str]:
    return ["".join(col) for col in zip(*rows[::-1], strict=True)]


def test_the_key_is_the_same_up_to_the_boards_symmetries() -> None:
    d = drawn(drawings.SUBSET)
    rows = positions.rows_of(d.width, d.view)
    key = positions.canonical_key(d.width, d.height, d.mines, d.view)
    for variant in ([r[::-1] for r in rows], rows[::-1], [r[::-1] for r in rows[::-1]]):
        assert positions.canonical_key(d.width, d.height, d.mines, "".join(variant)) == key
    # a quarter turn changes a 6x5 board's shape: another position
    turned = _turned(rows)
    assert positions.canonical_key(d.height, d.width, d.mines, "".join(turned)) != key
    # on a square board the quarter turns and the diagonals are the same position
    square = positions.rows_of(5, "#100011000000000000000000")
    square_key = positions.canonical_key(5, 5, 1, "".join(square))
    assert positions.canonical_key(5, 5, 1, "".join(_turned(square))) == square_key
    transposed = ["".join(col) for col in zip(*square, strict=True)]
    assert positions.canonical_key(5, 5, 1, "".join(transposed)) == square_key
    # the count of mines is part of the position
    assert positions.canonical_key(5, 5, 2, "".join(square)) != square_key


def test_opening_shows_the_number_and_cascades_a_zero() -> None:
    d = drawn(["*....", "o....", "....."])
    first = positions.open_cell(d.width, d.height, d.layout, d.view, d.cell(4, 2))
    assert first[0] == d.cell(4, 2)  # the tapped cell first, then its cascade
    everything = {(x, y) for x in range(5) for y in range(3)} - {(0, 0), (0, 1)}
    assert d.xy(first) == everything
    assert d.xy(positions.open_cell(d.width, d.height, d.layout, d.view, d.cell(1, 1))) == {(1, 1)}
    assert positions.open_cell(d.width, d.height, d.layout, d.view, d.cell(0, 0)) == []


def test_provably_safe_counts_the_cells_opened_since() -> None:
    d = drawn(drawings.SUBSET)
    # (3, 4) is provable from the start; the corner (5, 4) too; (3, 4) once open says more
    assert positions.provably_safe(d.width, d.height, d.mines, d.view, d.cell(3, 4))
    assert not positions.provably_safe(d.width, d.height, d.mines, d.view, d.cell(2, 4))
    assert not positions.provably_safe(d.width, d.height, d.mines, d.view, d.cell(0, 0))
