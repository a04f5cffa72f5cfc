"""The independent solver of the no-guess tests (tests/support/deduction.py): it deduces from
the numbers only, never from the count of mines left, and it agrees with ms-toollib's
is_solvable (the generator's checker, a separate implementation of the same rule) on uniform
layouts, where about half need a guess."""

from __future__ import annotations

import random

from games.play import noguess
from tests.support.deduction import solve


def test_a_cell_walled_off_by_mines_is_a_guess_without_the_mine_count():
    # "0 0 1 * ." : the last cell could be told safe only by counting mines (1 left, found).
    assert not solve(5, 1, [3], (0, 0)).cleared
    # With a number next to it, it is deduced: "0 1 * 2 *" has both mines proven.
    result = solve(5, 1, [2, 4], (0, 0))
    assert not result.cleared and result.opened == 2  # the 2 is behind the first mine


def test_a_board_opened_by_its_first_tap_is_cleared():
    assert solve(5, 5, [24], (0, 0)).cleared


def test_a_fifty_fifty_is_not_cleared():
    # 4 x 2, one mine at (3, 1), first tap (0, 0):   0 0 1 #
    #                                                0 0 1 *
    # both 1s see the same two closed cells: either could be the mine.
    result = solve(4, 2, [7], (0, 0))
    assert (result.opened, result.safe, result.cleared) == (6, 7, False)
    assert result.rounds == 1  # the exact search ran, and found nothing either


def test_it_agrees_with_ms_toollib_on_uniform_layouts():
    rng = random.Random("agree")
    disagreements = []
    verdicts = set()
    for width, height, mines in ((9, 9, 10), (16, 10, 25), (20, 12, 40)):
        for _ in range(80):
            x, y = rng.randrange(width), rng.randrange(height)
            protected = noguess.opening(width, height, x, y)
            population = [c for c in range(width * height) if c not in protected]
            layout = sorted(rng.sample(population, mines))
            ours = solve(width, height, layout, (x, y)).cleared
            theirs = noguess.solvable(width, height, layout, x, y)
            verdicts.add(ours)
            if ours != theirs:
                disagreements.append((width, height, layout, (x, y), ours, theirs))
    assert verdicts == {True, False}  # both verdicts were met
    assert disagreements == []
