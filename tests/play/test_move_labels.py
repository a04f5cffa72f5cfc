"""The labels of RULES.md's Analysis on hand-made positions (engine ASCII: `o` opened, `.`
closed safe cell, `*` mine, `M` a flagged mine), and on whole games replayed move by move."""

from __future__ import annotations

import pytest

from games.play.analysis import (
    AVOIDABLE_GUESS,
    DEDUCED,
    FORCED_GUESS,
    MoveIn,
    analyse,
    label_position,
)

# Two cells under two 1s and one mine left: a coin.
FIFTY_FIFTY = [
    "oo",
    "*.",
]

# The top-left corner opened on three 50/50 pairs and a certain mine at (2, 2); 7 more mines
# hide in 55 unconstrained cells, so every far cell is far safer than any cell of the edge.
CORNER = [
    "oo*.....",
    "oo.*....",
    "*.*.....",
    "........",
    "......*.",
    "...*....",
    ".*......",
    "....*...",
]

# (4, 2) and (4, 3) are proven safe by the 1s at (3, 2) and (3, 3); the far cells are not.
DEDUCIBLE = [
    "ooo.....",
    "ooo*....",
    "oo*o....",
    "*ooo....",
    "........",
    ".......*",
    "........",
    "........",
]


def test_either_cell_of_a_fifty_fifty_is_a_forced_guess_at_one_half():
    for x, y, lost in ((1, 1, False), (0, 1, True)):
        label = label_position(FIFTY_FIFTY, "reveal", x, y)
        assert label.label == FORCED_GUESS
        assert label.p_mine == pytest.approx(0.5)
        assert label.safest_p_mine == pytest.approx(0.5)
        assert label.lost is lost


def test_a_far_corner_is_the_forced_guess_when_the_edge_is_all_coins():
    label = label_position(CORNER, "reveal", 7, 7)
    assert label.label == FORCED_GUESS
    assert label.p_mine == pytest.approx(5 / 55)  # 7 mines, 2 of them expected on the edge
    assert label.safest_p_mine == pytest.approx(label.p_mine)


def test_a_coin_on_the_edge_is_avoidable_when_a_far_cell_was_safer():
    label = label_position(CORNER, "reveal", 2, 1)
    assert label.label == AVOIDABLE_GUESS
    assert label.p_mine == pytest.approx(0.5)
    assert label.safest_p_mine == pytest.approx(5 / 55)
    assert label.safest is not None and label.safest != (2, 1)


def test_a_cell_the_numbers_prove_safe_is_deduced():
    label = label_position(DEDUCIBLE, "reveal", 4, 2)
    assert (label.label, label.p_mine, label.safest_p_mine) == (DEDUCED, 0.0, 0.0)


def test_any_risk_taken_while_a_safe_cell_is_there_is_avoidable():
    far = label_position(DEDUCIBLE, "reveal", 7, 0)
    assert far.label == AVOIDABLE_GUESS
    assert 0 < far.p_mine < 0.1
    assert far.safest_p_mine == 0.0 and far.safest in ((4, 2), (4, 3))


def test_a_chord_on_an_unproven_flag_risks_the_flags_other_candidate():
    # The 1 at (0, 0) sees the flag and (1, 1); nothing proves which holds the mine.
    label = label_position(["oM.", "o..", "..*"], "chord", 0, 0)
    assert label.label == AVOIDABLE_GUESS  # (0, 2) and (1, 2) are proven safe
    assert label.p_mine == pytest.approx(0.5)


def test_a_chord_on_a_proven_flag_is_deduced():
    # 3 x 1: the 1 sees only the flagged cell, so the chord opens nothing risky.
    label = label_position(["oMo.", "oooo"], "chord", 2, 0)
    assert label.label == DEDUCED


# The first tap at (0, 0) opens the top three rows; the bottom row under 1 2 2 2 1 holds
# three mines: (2, 3) for certain, and one of two mirror pairs.
LAST_ROW_COIN = [
    ".....",
    ".....",
    ".....",
    ".**.*",
]


def _replay(*taps: tuple[int, int], flag: tuple[int, int] = (2, 3)):
    moves = [MoveIn(1, "reveal", 0, 0), MoveIn(2, "flag", *flag)]
    moves += [MoveIn(3 + n, "reveal", x, y) for n, (x, y) in enumerate(taps)]
    return analyse(width=5, height=4, layout=LAST_ROW_COIN, moves=moves)


def test_a_game_lost_on_the_coin_is_an_unlucky_loss():
    result = _replay((1, 3))
    assert [m.seq for m in result.moves] == [1, 3]  # a flag gets no label
    first, coin = result.moves
    assert (first.label, first.p_mine) == (DEDUCED, 0.0)  # the first tap: safe by the rules
    assert (coin.label, coin.lost) == (FORCED_GUESS, True)
    assert coin.p_mine == pytest.approx(0.5)
    assert result.unlucky_loss and result.forced_guesses == 1 and result.guesses_survived == 0


def test_a_game_lost_on_the_certain_mine_is_not_unlucky():
    result = _replay((2, 3), flag=(0, 3))
    assert result.moves[-1].label == AVOIDABLE_GUESS and result.moves[-1].p_mine == 1.0
    assert not result.unlucky_loss and result.avoidable_guesses == 1


def test_a_coin_survived_then_the_rest_deduced_wins_with_one_guess_survived():
    # (0, 3) is safe: then (1, 3) is the mine, (3, 3) safe, (4, 3) the mine.
    result = _replay((0, 3), (3, 3))
    assert [m.label for m in result.moves] == [DEDUCED, FORCED_GUESS, DEDUCED]
    assert not result.unlucky_loss and result.guesses_survived == 1
    assert result.as_dict()["moves"][1] == {
        "seq": 3,
        "label": FORCED_GUESS,
        "p_mine": 0.5,
        "safest_p_mine": 0.5,
        "safest": [0, 3],
    }
