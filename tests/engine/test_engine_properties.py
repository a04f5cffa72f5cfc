"""Invariants of the engine over random boards and random games (Hypothesis).

The checks compare the engine with small independent helpers written here from RULES.md
(neighbours, numbers, a fixpoint flood fill), never with the engine's own internals.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from hypothesis import event, given, settings
from hypothesis import strategies as st

from games.engine import LOST, NEW, PLAYING, WON, Board, EngineError, Outcome

SETTINGS = settings(max_examples=200, deadline=None)
DIGITS = set("012345678")
Cell = tuple[int, int]


def around(x: int, y: int, width: int, height: int) -> Iterator[Cell]:
    for ny in range(y - 1, y + 2):
        for nx in range(x - 1, x + 2):
            if (nx, ny) != (x, y) and 0 <= nx < width and 0 <= ny < height:
                yield nx, ny


def mines_of(board: Board) -> set[Cell]:
    rows = board.to_ascii()
    return {(x, y) for y, row in enumerate(rows) for x, ch in enumerate(row) if ch in "*MX"}


def chars_of(board: Board, alphabet: str) -> set[Cell]:
    rows = board.to_ascii()
    return {(x, y) for y, row in enumerate(rows) for x, ch in enumerate(row) if ch in alphabet}


def counts(board: Board) -> tuple[str, int, int, int, int]:
    """What a player's counters show of a board: status, mines, flags, mines left, opened."""
    return (board.status, board.mines, board.flags, board.mines_left, board.opened_count())


def number(cell: Cell, mines: set[Cell], width: int, height: int) -> int:
    return sum(1 for n in around(*cell, width, height) if n in mines)


@st.composite
def started_boards(draw: st.DrawFn) -> tuple[Board, Cell]:
    """A board just after its first tap, and the tapped cell."""
    width = draw(st.integers(4, 12))
    height = draw(st.integers(4, 12))
    mines = draw(st.integers(1, width * height - 9))
    tap = (draw(st.integers(0, width - 1)), draw(st.integers(0, height - 1)))
    board = Board.new(width, height, mines)
    board.reveal(*tap, rng=random.Random(draw(st.integers(0, 2**32 - 1))))
    return board, tap


moves = st.lists(
    st.tuples(
        st.sampled_from(["reveal", "safe", "safe", "flag", "chord"]),
        st.integers(0, 11),
        st.integers(0, 11),
    ),
    max_size=25,
)


def play(board: Board, script: list[tuple[str, int, int]]) -> Iterator[Outcome]:
    """Play the script until the game ends; refused moves must leave the board as it was.

    ``safe`` reveals a closed safe cell (possibly flagged: then a no-op) picked by x, y."""
    for action, x, y in script:
        if board.ended:
            return
        x, y = x % board.width, y % board.height
        if action == "safe":  # a player who knows: reveal a closed safe cell, to reach wins
            safe = sorted(chars_of(board, ".F"))
            x, y = safe[(x * board.height + y) % len(safe)]
        before = board.encode()
        try:
            if action in ("reveal", "safe"):
                yield board.reveal(x, y)
            elif action == "flag":
                yield board.flag(x, y)
            else:
                yield board.chord(x, y)
        except EngineError as error:
            assert error.code in {"cell_open", "cell_closed"}, error.code
            assert board.encode() == before


@st.composite
def played_boards(draw: st.DrawFn) -> Board:
    """A started board after a script of `moves`, played until its end or the game's (every
    refused move checked by `play`)."""
    board, _ = draw(started_boards())
    for _ in play(board, draw(moves)):
        pass
    return board


@SETTINGS
@given(played_boards())
def test_numbers_match_the_mines(board: Board) -> None:
    mines = mines_of(board)
    for y, row in enumerate(board.render()):
        for x, ch in enumerate(row):
            if ch in DIGITS:
                assert int(ch) == number((x, y), mines, board.width, board.height)


@SETTINGS
@given(started_boards())
def test_the_first_square_never_holds_a_mine(start: tuple[Board, Cell]) -> None:
    board, tap = start
    square = {tap, *around(*tap, board.width, board.height)}
    assert not square & mines_of(board)
    assert len(mines_of(board)) == board.mines
    rows = board.render()
    assert rows[tap[1]][tap[0]] == "0"
    assert all(rows[y][x] in DIGITS for x, y in square)


@SETTINGS
@given(started_boards(), moves)
def test_won_exactly_when_every_safe_cell_is_open(
    start: tuple[Board, Cell], script: list[tuple[str, int, int]]
) -> None:
    board, _ = start

    def check() -> None:
        every_safe_open = not chars_of(board, ".F")
        mine_opened = bool(chars_of(board, "X"))
        assert (board.status == WON) == (every_safe_open and not mine_opened)
        assert (board.status == LOST) == mine_opened
        assert board.ended == (board.status in (WON, LOST))
        assert board.opened_count() == len(chars_of(board, "o"))

    check()
    for outcome in play(board, script):
        check()
        assert outcome.status == board.status
        assert outcome.ended == board.ended
    event(f"final status {board.status}")


def reference_reveal(board: Board, cell: Cell) -> set[Cell]:
    """The cells a reveal of a closed unflagged cell opens, by expanding to a fixpoint."""
    width, height = board.width, board.height
    mines = mines_of(board)
    blocked = chars_of(board, "oFM")  # already open or flagged: never opened again
    opened = {cell}
    if cell in mines:
        return opened
    while True:
        grow = {
            n
            for c in opened
            if number(c, mines, width, height) == 0
            for n in around(*c, width, height)
            if n not in blocked
        }
        if grow <= opened:
            return opened
        opened |= grow


@SETTINGS
@given(started_boards(), st.data())
def test_a_cascade_never_opens_a_flag(start: tuple[Board, Cell], data: st.DataObject) -> None:
    board, _ = start
    if board.ended:
        return
    closed = sorted(chars_of(board, ".*"))
    flags = data.draw(st.sets(st.sampled_from(closed), max_size=len(closed)))
    for cell in flags:
        board.flag(*cell, flagged=True)
    targets = sorted(set(closed) - flags)
    if not targets:
        return
    target = data.draw(st.sampled_from(targets))
    expected = reference_reveal(board, target)
    outcome = board.reveal(*target)
    assert {(c.x, c.y) for c in outcome.changes} == expected
    assert len(outcome.changes) == len(expected)  # each cell once
    assert outcome.changes[0].x == target[0] and outcome.changes[0].y == target[1]
    assert chars_of(board, "FM") == flags  # still flagged, still closed
    assert board.flags == len(flags)
    if not board.ended:
        rows = board.render()
        assert all(rows[y][x] == "F" for x, y in flags)


@SETTINGS
@given(started_boards(), moves, st.randoms(use_true_random=False))
def test_render_before_the_end_says_nothing_about_closed_cells(
    start: tuple[Board, Cell], script: list[tuple[str, int, int]], rnd: random.Random
) -> None:
    board, _ = start
    for _ in play(board, script):
        assert board.ended or set("".join(board.render())) <= DIGITS | {"#", "F"}
    if board.ended:
        return
    assert set("".join(board.render())) <= DIGITS | {"#", "F"}
    # Move the mines among the closed cells that touch no opened cell (so every shown
    # number stays true), keeping every flag where it is: the view must not change.
    rows = [list(row) for row in board.to_ascii()]
    opened = chars_of(board, "o")
    deep = [
        (x, y)
        for x, y in chars_of(board, ".*FM")
        if not any(n in opened for n in around(x, y, board.width, board.height))
    ]
    moved = set(rnd.sample(deep, sum(1 for x, y in deep if rows[y][x] in "*M")))
    for x, y in deep:
        flagged = rows[y][x] in "FM"
        rows[y][x] = ("M" if flagged else "*") if (x, y) in moved else ("F" if flagged else ".")
    other = Board.from_ascii(["".join(row) for row in rows])
    assert other.render() == board.render()
    assert counts(other) == counts(board)


@SETTINGS
@given(played_boards(), moves, st.booleans())
def test_codec_round_trip(board: Board, more: list[tuple[str, int, int]], resign: bool) -> None:
    if resign and not board.ended:
        board.resign()
    data = board.encode()
    copy = Board.decode(data)
    assert copy == board
    assert copy.encode() == data
    assert copy.to_ascii() == board.to_ascii()
    assert copy.render() == board.render()
    assert counts(copy) == counts(board)
    # The copy plays on exactly like the original.
    assert list(play(copy, more)) == list(play(board, more))
    assert copy == board


@SETTINGS
@given(st.integers(1, 100), st.integers(1, 100), st.data())
def test_codec_round_trip_of_new_boards(width: int, height: int, data: st.DataObject) -> None:
    if width * height < 10:
        return
    board = Board.new(width, height, data.draw(st.integers(1, width * height - 9)))
    copy = Board.decode(board.encode())
    assert copy == board
    assert copy.status == NEW
    assert (copy.width, copy.height, copy.mines) == (board.width, board.height, board.mines)


@SETTINGS
@given(started_boards())
def test_status_after_the_first_tap_is_playing_or_won(start: tuple[Board, Cell]) -> None:
    board, _ = start
    assert board.status in (PLAYING, WON)


def reference_bbbv(board: Board) -> int:
    """3BV from its definition: zero regions (8-connected) + numbers touching no zero."""
    width, height = board.width, board.height
    mines = mines_of(board)
    everything = {(x, y) for y in range(height) for x in range(width)}
    zeros = {c for c in everything - mines if number(c, mines, width, height) == 0}
    regions, seen = 0, set[Cell]()
    for start in sorted(zeros):
        if start in seen:
            continue
        regions += 1
        seen.add(start)
        stack = [start]
        while stack:
            for n in around(*stack.pop(), width, height):
                if n in zeros and n not in seen:
                    seen.add(n)
                    stack.append(n)
    lone = {
        c
        for c in everything - mines - zeros
        if not any(n in zeros for n in around(*c, width, height))
    }
    return regions + len(lone)


@SETTINGS
@given(played_boards())
def test_bbbv_matches_its_definition(board: Board) -> None:
    assert board.bbbv() == reference_bbbv(board)
    assert 0 <= board.bbbv_solved() <= board.bbbv()
    if board.status == WON:
        assert board.bbbv_solved() == board.bbbv()
