"""The fast cascade, numbers and codec of games/engine.py against plain reference versions.

The engine's reveal walks a per-size neighbour table and computes numbers with big-integer
shifts (see its module docstring). Here the same rules are written the obvious way, on
(x, y) pairs and sets, and compared over many random boards: the same cells opened, in the
same order, with the same characters, and the same end of the game.
"""

from __future__ import annotations

import random
import zlib
from collections import deque

from hypothesis import event, given, settings
from hypothesis import strategies as st

from games.engine import LOST, PLAYING, WON, Board, Change, Outcome

Cell = tuple[int, int]
SETTINGS = settings(max_examples=300, deadline=None)


def around(x: int, y: int, width: int, height: int) -> list[Cell]:
    """The neighbours of a cell in reading order (RULES.md: a chord opens them so)."""
    return [
        (nx, ny)
        for ny in (y - 1, y, y + 1)
        for nx in (x - 1, x, x + 1)
        if (nx, ny) != (x, y) and 0 <= nx < width and 0 <= ny < height
    ]


class Reference:
    """A board as sets of cells, with a breadth-first flood fill on a deque."""

    def __init__(self, rows: list[str]) -> None:
        self.width, self.height = len(rows[0]), len(rows)
        cells = {(x, y): ch for y, row in enumerate(rows) for x, ch in enumerate(row)}
        self.mines = {c for c, ch in cells.items() if ch in "*MX"}
        self.flags = {c for c, ch in cells.items() if ch in "FM"}
        self.opened = {c for c, ch in cells.items() if ch in "oX"}

    def number(self, cell: Cell) -> int:
        return sum(1 for n in around(*cell, self.width, self.height) if n in self.mines)

    def char(self, cell: Cell) -> str:
        return "X" if cell in self.mines else str(self.number(cell))

    def closed(self, cell: Cell) -> bool:
        return cell not in self.opened and cell not in self.flags

    def open(self, start: Cell) -> list[tuple[int, int, str]]:
        """Open a closed cell and cascade from it; the opened cells in opening order."""
        out = []
        queue = deque([start])
        self.opened.add(start)
        while queue:
            cell = queue.popleft()
            out.append((*cell, self.char(cell)))
            if cell in self.mines or self.number(cell) != 0:
                continue
            for n in around(*cell, self.width, self.height):
                if self.closed(n):
                    self.opened.add(n)
                    queue.append(n)
        return out

    def chord(self, cell: Cell) -> list[tuple[int, int, str]]:
        if cell not in self.opened or cell in self.mines:
            return []
        nbrs = around(*cell, self.width, self.height)
        wanted = self.number(cell)
        if wanted == 0 or sum(1 for n in nbrs if n in self.flags) != wanted:
            return []
        out = []
        for n in nbrs:
            if self.closed(n):
                out += self.open(n)
        return out

    def status(self) -> str:
        if self.opened & self.mines:
            return LOST
        safe = self.width * self.height - len(self.mines)
        return WON if len(self.opened - self.mines) == safe else PLAYING


@st.composite
def boards(draw: st.DrawFn) -> list[str]:
    """ASCII art of a PLAYING board: mines, flags (right or wrong), some cells opened."""
    width = draw(st.integers(1, 24))
    height = draw(st.integers(1, 24))
    density = draw(st.sampled_from([0.02, 0.08, 0.15, 0.3, 0.6]))
    flag_rate = draw(st.sampled_from([0.0, 0.05, 0.3]))
    open_rate = draw(st.sampled_from([0.0, 0.0, 0.1, 0.5]))
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    rows = []
    for _ in range(height):
        row = ""
        for _ in range(width):
            mine = rng.random() < density
            if rng.random() < flag_rate:
                row += "M" if mine else "F"
            elif not mine and rng.random() < open_rate:
                row += "o"
            else:
                row += "*" if mine else "."
        rows.append(row)
    if not any(ch in "*M" for row in rows for ch in row):  # a board needs a mine
        rows[0] = ("M" if rows[0][0] in "FM" else "*") + rows[0][1:]
    return rows


def as_tuples(outcome: Outcome) -> list[tuple[int, int, str]]:
    return [(c.x, c.y, c.v) for c in outcome.changes]


@SETTINGS
@given(boards(), st.data())
def test_a_reveal_opens_what_a_plain_breadth_first_flood_fill_opens(
    rows: list[str], data: st.DataObject
) -> None:
    board = Board.from_ascii(rows)
    if board.ended:
        return
    ref = Reference(rows)
    closed = [(x, y) for y, row in enumerate(rows) for x, ch in enumerate(row) if ch in ".*"]
    if not closed:
        return
    # Several reveals in a row, so later ones start from cascades the engine made.
    done: list[tuple[Outcome, list[tuple[int, int, str]]]] = []
    for cell in data.draw(st.lists(st.sampled_from(closed), min_size=1, max_size=4)):
        if board.ended:
            break
        want = ref.open(cell) if ref.closed(cell) else []
        outcome = board.reveal(*cell)
        assert outcome.change_dicts() == [{"x": x, "y": y, "v": v} for x, y, v in want]
        assert outcome.status == board.status == ref.status()
        done.append((outcome, want))
    # Changes are built when read: later moves must not have altered earlier outcomes.
    for outcome, want in done:
        assert as_tuples(outcome) == want


@SETTINGS
@given(boards(), st.data())
def test_a_chord_opens_what_the_reference_chord_opens(rows: list[str], data: st.DataObject) -> None:
    board = Board.from_ascii(rows)
    if board.ended:
        return
    ref = Reference(rows)
    if not ref.opened:  # open a safe cell first (both ways), to have numbers to chord
        safe = [(x, y) for y, row in enumerate(rows) for x, ch in enumerate(row) if ch == "."]
        if not safe:
            return
        start = data.draw(st.sampled_from(safe))
        assert as_tuples(board.reveal(*start)) == ref.open(start)
        if board.ended:
            return
        rows = board.to_ascii()
    opened = sorted(ref.opened)
    numbered = [c for c in opened if ref.number(c) > 0]
    cell = data.draw(st.sampled_from(numbered or opened))
    # Mostly put exactly as many flags around it as its number, right or wrong ones, so
    # that the chord opens something (a random board rarely has the right count).
    closed = [n for n in around(*cell, ref.width, ref.height) if n not in ref.opened]
    wanted = ref.number(cell)
    if 0 < wanted <= len(closed) and data.draw(st.booleans(), label="set flags"):
        if data.draw(st.booleans(), label="right flags") and wanted == len(
            [n for n in closed if n in ref.mines]
        ):
            flags = [n for n in closed if n in ref.mines]
        else:
            flags = data.draw(st.permutations(closed))[:wanted]
        grid = [list(row) for row in rows]
        for nx, ny in closed:
            mine = (nx, ny) in ref.mines
            flagged = (nx, ny) in flags
            grid[ny][nx] = ("M" if flagged else "*") if mine else ("F" if flagged else ".")
        rows = ["".join(row) for row in grid]
        board = Board.from_ascii(rows)
        ref = Reference(rows)
    want = ref.chord(cell)
    event("the chord opened cells" if want else "the chord was a no-op")
    outcome = board.chord(*cell)
    assert as_tuples(outcome) == want
    assert outcome.status == board.status == ref.status()


@SETTINGS
@given(boards())
def test_numbers_and_the_codec_agree_with_plain_counting(rows: list[str]) -> None:
    board = Board.from_ascii(rows)
    ref = Reference(rows)
    data = board.encode()
    copy = Board.decode(data)
    assert copy == board
    assert copy.encode() == data
    # Every cell's number as the layout shows it once the game is over.
    copy_rows = [
        row.replace(".", "o").replace("F", "o").replace("*", "X").replace("M", "X") for row in rows
    ]
    shown = Board.from_ascii(copy_rows).render(layout=False)
    for y, row in enumerate(shown):
        for x, ch in enumerate(row):
            assert ch == ref.char((x, y)), (x, y)


def test_the_worst_marathon_reveal_matches_the_reference_cell_for_cell() -> None:
    # bench/engine's worst case: seed 216, first tap in the centre, 2,778 cells opened.
    board = Board.new(80, 40, 240)
    outcome = board.reveal(40, 20, rng=random.Random(216))
    layout = [row.replace("o", ".") for row in board.to_ascii()]
    assert as_tuples(outcome) == Reference(layout).open((40, 20))
    assert len(outcome.changes) == 2778
    assert board.bbbv() == Board.decode(Board.from_ascii(layout).encode()).bbbv()


def test_a_board_encoded_before_the_fast_decoder_still_decodes_and_encodes_the_same() -> None:
    # Written by the engine of 2026-11-29 (per-mine number loop): 9x9, seed 7, tap (4, 4),
    # then one flag on a mine and one on a safe cell. Live databases hold such bytes.
    old = bytes.fromhex(
        "01000900090000000a01789c6362606660606064646004922c2000a558581819a00c0604032a07a6"
        "61ea500100209c00ef"
    )
    board = Board.decode(old)
    assert board.to_ascii() == [
        "F.M...**.",
        "*..*ooooo",
        ".*ooooooo",
        "*.ooooooo",
        "..ooooooo",
        "..*oooooo",
        ".*ooo*ooo",
        "ooooooooo",
        "ooooooooo",
    ]
    assert board.render()[1:3] == ["####11221", "##2110000"]
    # The same header and the same cell codes; only zlib's level differs (games.engine.encode).
    again = board.encode()
    assert again[:10] == old[:10]
    assert zlib.decompress(again[10:]) == zlib.decompress(old[10:])


def test_outcome_changes_are_built_once_and_compare_like_eager_ones() -> None:
    board = Board.from_ascii(["...", "..*"])
    outcome = board.reveal(0, 0)
    eager = Outcome(
        (Change(0, 0, "0"), Change(1, 0, "1"), Change(0, 1, "0"), Change(1, 1, "1")), PLAYING
    )
    assert outcome == eager
    assert hash(outcome) == hash(eager)
    assert outcome.changes is outcome.changes
    assert outcome.change_dicts() == eager.change_dicts()
    assert repr(outcome) == repr(eager)
    assert not outcome.ended
