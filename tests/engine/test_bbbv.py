"""3BV counted by hand on small boards.

3BV = the number of openings (8-connected regions of zeros; one click opens each, with
its border) + the safe numbered cells that touch no zero (each needs its own click).
In the drawings below, numbers are written out under each board.
"""

from __future__ import annotations

import random

import pytest

from games.engine import WON, Board, EngineError

# Boards whose 3BV was counted by hand: name -> (rows, 3BV).
BY_HAND = {
    # Numbers:  2
    # (1,0) sees both mines; no zero anywhere: one lone number.
    "one lone number": (["*.*"], 1),
    # Numbers:  0 0 0
    #           0 1 1
    #           0 1 *
    # Zeros (0,0) (1,0) (2,0) (0,1) (0,2) touch each other: one opening, and the
    # three 1s all border it.
    "one opening": (["...", "...", "..*"], 1),
    # Numbers:  0 2 * 2 0
    #           0 3 * 3 0
    #           0 2 * 2 0
    # A wall of mines splits two openings (columns 0 and 4); the 2s and 3s border
    # them.
    "two openings": (["..*..", "..*..", "..*.."], 2),
    # Numbers:  * 2 * 2 *
    #           2 4 2 4 2
    #           * 2 * 2 *
    # No zero at all: each of the 9 safe cells is its own click.
    "nine lone numbers": (["*.*.*", ".....", "*.*.*"], 9),
    # Numbers:  0 0 2 * 2
    #           0 0 3 * 4
    #           0 0 2 * *
    # Columns 0-1 are one opening bordered by column 2; the 2 and the 4 in
    # column 4 touch no zero: 1 + 2.
    "an opening and two lone numbers": (["...*.", "...*.", "...**"], 3),
    # Numbers:  0 1 * 1 0 0
    #           1 2 2 1 0 0
    #           1 * 1 0 0 0
    #           1 1 1 0 0 0
    # Zeros: (0,0) alone (its neighbours are 1, 1 and 2), and the region on the
    # right, (4,0) to (3,3): two openings. (1,0), (0,1) and (1,1) border the
    # corner zero; (3,0), (2,1), (3,1), (2,2) and (2,3) border the right one
    # (diagonals count). The 1s at (0,2), (0,3) and (1,3) touch no zero: 2 + 3.
    "two openings and three lone numbers": (["..*...", "......", ".*....", "......"], 5),
}


@pytest.mark.parametrize(("rows", "bbbv"), list(BY_HAND.values()), ids=list(BY_HAND))
def test_bbbv_counted_by_hand(rows: list[str], bbbv: int) -> None:
    board = Board.from_ascii(rows)
    assert board.bbbv() == bbbv
    assert board.bbbv_solved() == 0


def test_bbbv_solved_grows_with_each_opening_and_lone_number() -> None:
    board = Board.from_ascii(["...*.", "...*.", "...**"])  # 3BV 3, as above
    assert board.bbbv_solved() == 0
    board.reveal(0, 0)  # the opening
    assert board.bbbv_solved() == 1
    board.reveal(2, 1)  # a border number, already open: nothing new
    assert board.bbbv_solved() == 1
    board.reveal(4, 0)  # a lone 2
    assert board.bbbv_solved() == 2
    assert board.reveal(4, 1).status == WON  # the lone 4, the last safe cell
    assert board.bbbv_solved() == board.bbbv() == 3


def test_an_opening_with_a_flagged_zero_is_not_solved() -> None:
    board = Board.from_ascii(["..F", "...", "..*"])  # one opening holding the zero (2,0)
    board.reveal(0, 0)
    assert board.render()[0] == "00F"
    assert board.bbbv_solved() == 0
    board.flag(2, 0)
    board.reveal(2, 0)
    assert board.bbbv_solved() == 1


def test_a_flagged_lone_number_is_not_solved() -> None:
    # Numbers:  * 2 *
    #           1 2 1
    # No zero: four lone numbers. (0,1) is open; the 2 at (1,0) is flagged.
    board = Board.from_ascii(["*F*", "o.."])
    assert board.bbbv() == 4
    assert board.bbbv_solved() == 1  # only the opened (0,1), not the flagged (1,0)
    board.flag(1, 0)
    board.reveal(1, 0)
    assert board.bbbv_solved() == 2


def test_a_border_number_opened_alone_does_not_solve_its_opening() -> None:
    board = Board.from_ascii(["...", "...", "..*"])
    board.reveal(1, 1)  # a 1 on the border of the opening
    assert board.bbbv_solved() == 0


def test_bbbv_of_a_won_game_equals_bbbv_solved() -> None:
    for seed in range(20):
        board = Board.new(16, 10, 25)
        board.reveal(8, 5, rng=random.Random(seed))
        for y, row in enumerate(board.to_ascii()):
            for x, ch in enumerate(row):
                if ch == "." and not board.ended:
                    board.reveal(x, y)
        assert board.status == WON
        assert board.bbbv_solved() == board.bbbv() >= 1


def test_bbbv_needs_the_mines() -> None:
    with pytest.raises(EngineError) as info:
        Board.new(9, 9, 10).bbbv()
    assert info.value.code == "game_not_started"
