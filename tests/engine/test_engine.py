"""The rules of RULES.md on small ASCII-art boards.

Alphabet of ``Board.from_ascii``: ``*`` mine, ``.`` closed safe cell, ``F`` flagged safe
cell, ``M`` flagged mine, ``o`` opened safe cell, ``X`` opened mine. ``render()`` shows what
a viewer sees: ``#`` closed, ``F`` flag, digits; after the end also ``*``, ``X`` and ``!``.
"""

from __future__ import annotations

import doctest
import random
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from games import engine
from games.engine import (
    CUSTOM_MAX_SIDE,
    CUSTOM_MIN_SIDE,
    LEVELS,
    LOST,
    NEW,
    PLAYING,
    WON,
    Board,
    Change,
    EngineError,
    Level,
    Outcome,
    custom_mines_max,
    level_for,
)


def cells(outcome: Outcome) -> list[tuple[int, int, str]]:
    return [(c.x, c.y, c.v) for c in outcome.changes]


@contextmanager
def refused(code: str) -> Iterator[None]:
    """The block raises EngineError with this code."""
    with pytest.raises(EngineError) as info:
        yield
    assert info.value.code == code


def test_docstring_examples_hold() -> None:
    failed, attempted = doctest.testmod(engine)
    assert attempted > 30
    assert failed == 0


# --------------------------------------------------------------------------- levels


def test_levels_are_the_table_of_rules() -> None:
    # RULES.md, Levels: columns x rows, mines. Width is the number of columns.
    table = {
        "beginner": Level("beginner", 9, 9, 10),
        "intermediate": Level("intermediate", 16, 10, 25),
        "hard": Level("hard", 20, 12, 40),
        "expert": Level("expert", 30, 16, 60),
        "extreme": Level("extreme", 40, 20, 60),
        "marathon": Level("marathon", 80, 40, 240),
    }
    assert table == LEVELS
    assert list(table) == list(LEVELS)  # easiest first


def test_level_for_names_ranked_sizes_and_custom_otherwise() -> None:
    for level in LEVELS.values():
        assert level_for(level.width, level.height, level.mines) == level.name
    assert level_for(16, 10, 24) == "custom"
    assert level_for(10, 16, 25) == "custom"  # rotated: columns and rows matter
    assert level_for(50, 50, 100) == "custom"


def test_custom_limits() -> None:
    assert (CUSTOM_MIN_SIDE, CUSTOM_MAX_SIDE) == (5, 100)
    assert custom_mines_max(5, 5) == 16
    assert custom_mines_max(100, 100) == 9991


@pytest.mark.parametrize(
    ("width", "height", "mines"),
    [(9, 9, 0), (9, 9, -1), (9, 9, 73), (5, 5, 17), (0, 9, 1), (9, 0, 1), (3, 3, 1)],
)
def test_new_refuses_impossible_boards(width: int, height: int, mines: int) -> None:
    with refused("invalid_board"):
        Board.new(width, height, mines)


def test_new_board_is_new_and_hides_everything() -> None:
    board = Board.new(5, 5, 16)  # the most mines a 5x5 may hold
    assert (board.width, board.height, board.mines, board.status) == (5, 5, 16, NEW)
    assert board.render() == ["#####"] * 5
    assert (board.flags, board.mines_left, board.opened_count(), board.ended) == (0, 16, 0, False)


def test_first_reveal_needs_a_random_source() -> None:
    board = Board.new(9, 9, 10)
    with refused("invalid_board"):
        board.reveal(4, 4)
    assert board.status == NEW


def test_engine_error_carries_a_known_code() -> None:
    error = EngineError("cell_open", "nope")
    assert (error.code, str(error)) == ("cell_open", "nope")
    with pytest.raises(ValueError):
        EngineError("teapot", "not a code")


# --------------------------------------------------------------------------- numbers


def test_numbers_in_the_interior_on_edges_and_in_corners() -> None:
    board = Board.from_ascii(
        [
            "*oooo",
            "oo*oo",
            "ooooo",
            "ooo**",
        ]
    )
    assert board.status == WON  # every safe cell is open
    assert board.render() == [
        "*2110",  # (1,0) top edge sees 2 mines; (4,0) top-right corner sees none
        "12*10",  # (0,1) left edge: 1; (1,1) interior: 2
        "01232",  # (3,2) interior: 3; (4,2) right edge: 2
        "001**",  # (0,3) bottom-left corner: 0; a mine in the bottom-right corner
    ]


@pytest.mark.parametrize(
    ("x", "y", "v"),
    [
        (0, 0, "1"),  # corner: 3 neighbours, one mine
        (3, 0, "2"),  # edge: 5 neighbours, two mines
        (3, 1, "3"),  # interior: 8 neighbours, three mines
        (0, 2, "0"),  # corner with no mine around: a cascade follows
    ],
)
def test_reveal_shows_the_number_of_the_cell(x: int, y: int, v: str) -> None:
    board = Board.from_ascii(
        [
            ".*..*",
            "..*..",
            "....*",
        ]
    )
    outcome = board.reveal(x, y)
    assert outcome.changes[0] == Change(x, y, v)
    assert board.render()[y][x] == v


def test_a_cell_surrounded_by_eight_mines_shows_eight_and_wins() -> None:
    board = Board.from_ascii(["***", "*.*", "***"])
    outcome = board.reveal(1, 1)
    assert cells(outcome) == [(1, 1, "8")]
    assert outcome.status == WON and outcome.ended


# --------------------------------------------------------------------------- cascades


# Boards tapped in their top-left corner, and what the cascade leaves in view.
BOUNDED_BY_NUMBERS = [
    "....*..",
    "....*..",
    "....*..",
    "*****..",
    ".......",
]
AROUND_A_FLAG = [
    "......",
    "......",
    "..F...",
    "......",
    ".....*",
]


@pytest.mark.parametrize(
    ("layout", "seen"),
    [
        pytest.param(
            BOUNDED_BY_NUMBERS,
            [
                "0002###",
                "0003###",
                "2335###",
                "#######",
                "#######",
            ],
            id="a zero region bounded by numbers",
        ),
        pytest.param(
            AROUND_A_FLAG,
            [
                "000000",
                "000000",
                "00F000",
                "000011",
                "00001#",
            ],
            id="a flag it reaches stays and its cell stays closed",
        ),
    ],
)
def test_a_cascade_opens_the_zero_region_and_its_numbers_and_passes_flags_by(
    layout: list[str], seen: list[str]
) -> None:
    board = Board.from_ascii(layout)
    flagged = {(x, y) for y, row in enumerate(layout) for x, v in enumerate(row) if v == "F"}
    outcome = board.reveal(0, 0)
    assert board.render() == seen
    numbers = sum(v.isdigit() for row in seen for v in row)
    assert len(outcome.changes) == numbers == board.opened_count()
    assert outcome.changes[0] == Change(0, 0, "0")
    assert not flagged & {(c.x, c.y) for c in outcome.changes}
    assert board.flags == len(flagged)
    # Safe cells stay closed (a flagged one included), so the game is not won yet.
    assert outcome.status == PLAYING


def test_cascade_order_is_breadth_first_from_the_tapped_cell() -> None:
    board = Board.from_ascii(["...", "..*"])
    assert cells(board.reveal(0, 0)) == [(0, 0, "0"), (1, 0, "1"), (0, 1, "0"), (1, 1, "1")]


def test_a_flag_a_cascade_passed_by_opens_once_removed_and_the_game_is_won() -> None:
    board = Board.from_ascii(AROUND_A_FLAG)
    board.reveal(0, 0)
    board.flag(2, 2, flagged=False)
    assert cells(board.reveal(2, 2)) == [(2, 2, "0")]
    assert board.status == WON


# --------------------------------------------------------------------------- reveal


def test_reveal_of_a_flagged_or_opened_cell_changes_nothing() -> None:
    board = Board.from_ascii(["oF.", "..*"])
    before = board.encode()
    assert board.reveal(1, 0) == Outcome((), PLAYING)  # flagged: the flag protects it
    assert board.reveal(0, 0) == Outcome((), PLAYING)  # already open
    assert board.encode() == before


@pytest.mark.parametrize(("x", "y"), [(-1, 0), (0, -1), (3, 0), (0, 2), (99, 99)])
def test_moves_outside_the_board_are_refused(x: int, y: int) -> None:
    board = Board.from_ascii(["o..", "..*"])
    for move in (board.reveal, board.flag, board.chord):
        with refused("out_of_bounds"):
            move(x, y)


def test_opening_a_mine_loses_and_shows_x() -> None:
    board = Board.from_ascii(["o.*", "..."])
    outcome = board.reveal(2, 0)
    assert cells(outcome) == [(2, 0, "X")]
    assert (outcome.status, board.status, board.ended, outcome.ended) == (LOST, LOST, True, True)
    assert board.render() == ["0#X", "###"]


def test_win_when_every_safe_cell_is_open_even_with_mines_unflagged() -> None:
    board = Board.from_ascii(["o.*", "o.*"])
    assert board.reveal(1, 0).status == PLAYING
    outcome = board.reveal(1, 1)
    assert outcome.status == WON
    assert board.flags == 0
    assert board.render() == ["02*", "02*"]


def test_win_with_flags_on_mines_keeps_them() -> None:
    board = Board.from_ascii(["o.M", "o.*"])
    board.reveal(1, 0)
    assert board.reveal(1, 1).status == WON
    assert board.render() == ["02F", "02*"]


@pytest.mark.parametrize("status_board", [["oX", ".*"], ["oo", "o*"]])
def test_every_move_on_an_ended_board_is_refused(status_board: list[str]) -> None:
    board = Board.from_ascii(status_board)
    assert board.ended
    before = board.encode()
    for move in (board.reveal, board.flag, board.chord):
        with refused("game_over"):
            move(0, 0)
    with refused("game_over"):
        board.resign()
    assert board.encode() == before


# --------------------------------------------------------------------------- flags


def test_flag_toggles_and_counts() -> None:
    board = Board.from_ascii(["o..", "..*"])
    assert cells(board.flag(2, 1)) == [(2, 1, "F")]
    assert (board.flags, board.mines_left) == (1, 0)
    assert board.render() == ["0##", "##F"]
    assert cells(board.flag(2, 1)) == [(2, 1, "#")]
    assert (board.flags, board.mines_left) == (0, 1)
    assert board.render() == ["0##", "###"]


def test_explicit_flag_values_already_set_are_no_ops() -> None:
    board = Board.from_ascii(["oF.", "..*"])
    assert board.flag(1, 0, flagged=True) == Outcome((), PLAYING)
    assert board.flag(2, 0, flagged=False) == Outcome((), PLAYING)
    assert cells(board.flag(2, 0, flagged=True)) == [(2, 0, "F")]
    assert cells(board.flag(1, 0, flagged=False)) == [(1, 0, "#")]


def test_flags_are_unlimited_and_the_counter_goes_negative() -> None:
    board = Board.from_ascii(["o...", "...*"])
    for x in (1, 2, 3):
        board.flag(x, 0)
    assert (board.flags, board.mines_left) == (3, -2)


def test_flagging_before_the_first_tap_is_refused() -> None:
    board = Board.new(9, 9, 10)
    with refused("game_not_started"):
        board.flag(0, 0)
    assert board.status == NEW and board.flags == 0


def test_flagging_an_opened_cell_is_refused() -> None:
    board = Board.from_ascii(["o..", "..*"])
    with refused("cell_open"):
        board.flag(0, 0)
    with refused("cell_open"):
        board.flag(0, 0, flagged=False)


# --------------------------------------------------------------------------- chord

CHORD_BOARD = [
    "M...",  # (0,0) a flagged mine
    "o...",  # (0,1) an opened 1
    "...*",
]


def test_chord_before_the_first_tap_is_refused() -> None:
    with refused("game_not_started"):
        Board.new(9, 9, 10).chord(4, 4)


def test_chord_on_a_closed_cell_is_refused() -> None:
    with refused("cell_closed"):
        Board.from_ascii(CHORD_BOARD).chord(3, 0)


def test_chord_on_a_flagged_cell_is_refused() -> None:
    with refused("cell_closed"):
        Board.from_ascii(CHORD_BOARD).chord(0, 0)


def test_chord_on_a_zero_changes_nothing() -> None:
    board = Board.from_ascii(["o..", "...", "..*"])
    assert board.render()[0][0] == "0"
    assert board.chord(0, 0) == Outcome((), PLAYING)
    assert board.render() == ["0##", "###", "###"]


@pytest.mark.parametrize(
    "rows",
    [
        ["*...", "o...", "...*"],  # no flag around a 1
        ["MF..", "o...", "...*"],  # two flags around a 1
    ],
)
def test_chord_with_the_wrong_flag_count_changes_nothing(rows: list[str]) -> None:
    board = Board.from_ascii(rows)
    before = board.encode()
    assert board.chord(0, 1) == Outcome((), PLAYING)
    assert board.encode() == before


def test_chord_with_the_right_count_opens_the_neighbours_and_they_cascade() -> None:
    board = Board.from_ascii(CHORD_BOARD)
    outcome = board.chord(0, 1)
    # Neighbours in reading order: (1,0), (1,1), then (0,2), a zero whose cascade opens
    # (1,2), another zero, which opens (2,1) and (2,2). (1,2) is then already open.
    assert cells(outcome) == [
        (1, 0, "1"),
        (1, 1, "1"),
        (0, 2, "0"),
        (1, 2, "0"),
        (2, 1, "1"),
        (2, 2, "1"),
    ]
    assert outcome.status == PLAYING
    assert board.render() == ["F1##", "111#", "001#"]


def test_chord_with_nothing_left_to_open_changes_nothing() -> None:
    board = Board.from_ascii(["Moo", "ooo", "...", "..*"])
    # (1,0) is a 1 with its flag, and every other neighbour is already open.
    assert board.chord(1, 0) == Outcome((), PLAYING)


def test_chord_with_a_wrong_flag_opens_the_mine_and_loses() -> None:
    board = Board.from_ascii(
        [
            "*F..",  # the flag is on the wrong cell
            "o...",
            "...*",
        ]
    )
    outcome = board.chord(0, 1)
    assert outcome.changes[0] == Change(0, 0, "X")
    # The other neighbours of the chord are opened too.
    assert {(c.x, c.y) for c in outcome.changes} >= {(1, 1), (0, 2), (1, 2)}
    assert outcome.status == LOST
    assert board.render() == ["X!##", "111#", "001*"]


def test_chord_can_open_several_mines() -> None:
    board = Board.from_ascii(
        [
            "*.*",
            "FoF",  # (1,1) is a 2 with two wrong flags
            "...",
        ]
    )
    outcome = board.chord(1, 1)
    assert [c for c in cells(outcome) if c[2] == "X"] == [(0, 0, "X"), (2, 0, "X")]
    assert cells(outcome)[:3] == [(0, 0, "X"), (1, 0, "2"), (2, 0, "X")]
    assert outcome.status == LOST
    assert board.render() == ["X2X", "!2!", "000"]


def test_a_chord_that_opens_the_last_safe_cell_wins() -> None:
    board = Board.from_ascii(["Mo", ".o"])
    outcome = board.chord(1, 0)
    assert cells(outcome) == [(0, 1, "1")]
    assert outcome.status == WON


# --------------------------------------------------------------------------- render, resign


def test_render_hides_closed_cells_until_the_end_then_shows_the_layout() -> None:
    board = Board.from_ascii(
        [
            "oo.**",
            "oo.MF",  # a flag on a mine and a flag on a safe cell
            ".....",
        ]
    )
    assert board.render() == ["00###", "00#FF", "#####"]
    board.reveal(3, 0)
    assert board.render() == [
        "00#X*",  # the opened mine X, an unflagged mine *
        "00#F!",  # a flag on a mine stays F, a flag on a safe cell is !
        "#####",  # closed safe cells stay #
    ]


def test_resign_ends_the_game_lost_without_opening_anything() -> None:
    board = Board.from_ascii(["o..", "..*"])
    board.resign()
    assert board.status == LOST and board.ended
    assert board.opened_count() == 1
    assert board.render() == ["0##", "##*"]
    with refused("game_over"):
        board.resign()


def test_resign_before_the_first_tap_is_refused() -> None:
    with refused("game_not_started"):
        Board.new(9, 9, 10).resign()


# --------------------------------------------------------------------------- ascii form


def test_ascii_form_round_trips() -> None:
    rows = ["oo.*", "oFM.", "....", "X..."]
    board = Board.from_ascii(rows)
    assert board.to_ascii() == rows
    assert board.status == LOST
    assert (board.mines, board.flags) == (3, 2)


def test_ascii_rows_are_stripped_and_blank_rows_ignored() -> None:
    board = Board.from_ascii(["", "  o.*  ", "   ...", ""])
    assert board.to_ascii() == ["o.*", "..."]


@pytest.mark.parametrize("rows", [[], ["", "  "], ["o..", "o."], ["o.?"]])
def test_malformed_ascii_is_refused(rows: list[str]) -> None:
    with refused("invalid_board"):
        Board.from_ascii(rows)


def test_layout_questions_before_the_first_tap_are_refused() -> None:
    board = Board.new(9, 9, 10)
    for question in (board.to_ascii, board.bbbv, board.bbbv_solved):
        with refused("game_not_started"):
            question()


# --------------------------------------------------------------------------- the first tap


def _taps(width: int, height: int) -> list[tuple[str, int, int, int]]:
    """(where, x, y, cells of the clipped 3x3) for the interior, each edge and each corner."""
    cx, cy = width // 2, height // 2
    return [
        ("interior", cx, cy, 9),
        ("top edge", cx, 0, 6),
        ("bottom edge", cx, height - 1, 6),
        ("left edge", 0, cy, 6),
        ("right edge", width - 1, cy, 6),
        ("top-left corner", 0, 0, 4),
        ("top-right corner", width - 1, 0, 4),
        ("bottom-left corner", 0, height - 1, 4),
        ("bottom-right corner", width - 1, height - 1, 4),
    ]


@pytest.mark.parametrize("level", list(LEVELS.values()), ids=list(LEVELS))
def test_first_tap_is_protected_everywhere_on_every_level(level: Level) -> None:
    for where, x, y, square in _taps(level.width, level.height):
        for seed in range(5):
            board = Board.new(level.width, level.height, level.mines)
            outcome = board.reveal(x, y, rng=random.Random(seed))
            layout = board.to_ascii()
            protected = [
                (nx, ny)
                for ny in range(y - 1, y + 2)
                for nx in range(x - 1, x + 2)
                if 0 <= nx < level.width and 0 <= ny < level.height
            ]
            assert len(protected) == square, where
            assert all(layout[ny][nx] == "o" for nx, ny in protected), (where, seed)
            assert outcome.changes[0] == Change(x, y, "0"), (where, seed)
            assert len(outcome.changes) >= square, (where, seed)
            assert sum(row.count("*") for row in layout) == level.mines, (where, seed)
            assert outcome.status in (PLAYING, WON)


def test_first_tap_places_mines_uniformly_among_the_other_cells() -> None:
    # On a 5x5 board tapped in the centre, 16 cells may hold the 1 mine; over many seeds
    # each of them gets it, and no cell of the protected square ever does.
    counts: dict[tuple[int, int], int] = {}
    for seed in range(800):
        board = Board.new(5, 5, 1)
        board.reveal(2, 2, rng=random.Random(seed))
        layout = board.to_ascii()
        (where,) = [(x, y) for y in range(5) for x in range(5) if layout[y][x] == "*"]
        counts[where] = counts.get(where, 0) + 1
    assert len(counts) == 16
    assert all(not (1 <= x <= 3 and 1 <= y <= 3) for x, y in counts)
    assert min(counts.values()) > 20  # expected 50 each


def test_same_seed_same_layout() -> None:
    boards = [Board.new(30, 16, 60) for _ in range(2)]
    for board in boards:
        board.reveal(3, 7, rng=random.Random(42))
    assert boards[0].to_ascii() == boards[1].to_ascii()


def test_a_board_cleared_in_one_tap_does_not_recurse() -> None:
    # One mine on the largest custom board: the first tap opens 9,999 cells in one
    # cascade. A recursive flood fill would need thousands of nested calls, far past
    # Python's default limit of 1,000.
    board = Board.new(CUSTOM_MAX_SIDE, CUSTOM_MAX_SIDE, 1)
    outcome = board.reveal(0, 0, rng=random.Random(3))
    assert outcome.status == WON
    assert len(outcome.changes) == board.opened_count() == 100 * 100 - 1


def test_marathon_worst_case_cascade_does_not_recurse() -> None:
    # Seed 216, tapped in the centre, is the largest first opening of seeds 0..299
    # (see bench/engine); any seed with a large opening makes the point.
    board = Board.new(80, 40, 240)
    outcome = board.reveal(40, 20, rng=random.Random(216))
    assert len(outcome.changes) > 2000
    assert len(outcome.changes) == board.opened_count()
