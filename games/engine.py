"""The Minesweeper rules of RULES.md as a pure library: no I/O, no Django, randomness passed in.

A :class:`Board` holds one game: its layout (placed at the first tap), what is open or
flagged, and its status. Every move returns an :class:`Outcome` listing the cells it changed
in the order it changed them, or raises :class:`EngineError` with a stable ``code``.

    >>> import random
    >>> board = Board.new(9, 9, 10)
    >>> board.status
    'new'
    >>> outcome = board.reveal(4, 4, rng=random.Random(7))
    >>> outcome.changes[0]
    Change(x=4, y=4, v='0')
    >>> board.status
    'playing'

Cells are stored row-major in flat byte arrays (index ``y * width + x``). ``_view`` holds
the character the player sees for each cell (``#``, ``F``, ``0``-``8`` or ``X``), so
rendering a row is a slice; ``_sol`` holds the character each cell would show once
opened (its number, or ``X`` for a mine). A cascade copies ``_sol`` into ``_view``.

Why it is shaped this way (measured with bench/engine, see docs/perf/ENGINE.md): the
service decodes the stored board, plays one move and encodes it again on every request, and
the worst move (a Marathon first tap) opens 2,778 cells in one cascade. So:

- the cascade (``Board._open``) is a breadth-first walk over the zeros only, through a
  neighbour table computed once per board size, with local names only: it is as fast as
  the machine's pure-Python flood-fill limit (rules_bench.py's ``py_flat``) or faster, and
  keeps the order API.md shows (breadth first, neighbours in reading order);
- an :class:`Outcome` keeps the opened cells as flat indexes and builds its
  :class:`Change` objects only when :attr:`Outcome.changes` is read: allocating 2,778 of
  them cost more than the flood fill. :meth:`Outcome.change_dicts` gives API.md's JSON
  straight from the indexes;
- the numbers (``_sol``) are recomputed on every decode, since the codec stores only the
  mines, from big-integer shifts of the mine bytes (:func:`_numbers`) rather than a Python
  loop over every mine's neighbours: that loop was most of the cost of decoding a board.

Over 400 lines on purpose: the whole rule book (placement, cascade, chord, 3BV, codec) works
on one Board's private arrays, kept in one pure module under ``mypy --strict``.
"""

from __future__ import annotations

import functools
import random
import struct
import zlib
from dataclasses import dataclass

__all__ = [
    "CUSTOM_MAX_SIDE",
    "CUSTOM_MIN_SIDE",
    "LEVELS",
    "LOST",
    "NEW",
    "PLAYING",
    "WON",
    "Board",
    "Change",
    "EngineError",
    "Level",
    "Outcome",
    "custom_mines_max",
    "level_for",
]


# --------------------------------------------------------------------------- levels


@dataclass(frozen=True)
class Level:
    """A board size: ``width`` columns (x) by ``height`` rows (y) holding ``mines`` mines.

    >>> LEVELS["expert"]
    Level(name='expert', width=30, height=16, mines=60)
    """

    name: str
    width: int
    height: int
    mines: int


LEVELS: dict[str, Level] = {
    level.name: level
    for level in (
        Level("beginner", 9, 9, 10),
        Level("intermediate", 16, 10, 25),
        Level("hard", 20, 12, 40),
        Level("expert", 30, 16, 60),
        Level("extreme", 40, 20, 60),
        Level("marathon", 80, 40, 240),
    )
}
"""The six ranked levels of RULES.md, by API name, easiest first."""

CUSTOM_MIN_SIDE = 5
CUSTOM_MAX_SIDE = 100


def custom_mines_max(width: int, height: int) -> int:
    """The most mines a board may hold: every cell but the protected 3x3 of the first tap.

    >>> custom_mines_max(5, 5)
    16
    """
    return width * height - 9


def level_for(width: int, height: int, mines: int) -> str:
    """The level name of a board size, or ``'custom'`` when it matches no ranked level.

    >>> level_for(30, 16, 60)
    'expert'
    >>> level_for(30, 16, 61)
    'custom'
    """
    for level in LEVELS.values():
        if (level.width, level.height, level.mines) == (width, height, mines):
            return level.name
    return "custom"


# --------------------------------------------------------------------------- errors


class EngineError(Exception):
    """A refused move or an unusable board; nothing on the board changed.

    ``code`` is one of:

    - ``out_of_bounds``: the cell is outside the board;
    - ``game_not_started``: flag, chord or resign before the first tap, or a question
      about the layout (3BV) before mines exist;
    - ``game_over``: any move on a won or lost board;
    - ``cell_open``: flagging an opened cell;
    - ``cell_closed``: chording a closed or flagged cell;
    - ``invalid_board``: a bad size or mine count, a first reveal without a random
      source, malformed ASCII art or undecodable bytes.

    >>> try:
    ...     Board.new(9, 9, 0)
    ... except EngineError as error:
    ...     print(error.code)
    invalid_board
    """

    CODES = frozenset(
        {
            "out_of_bounds",
            "game_not_started",
            "game_over",
            "cell_open",
            "cell_closed",
            "invalid_board",
        }
    )

    code: str

    def __init__(self, code: str, message: str) -> None:
        if code not in self.CODES:
            raise ValueError(f"unknown engine error code {code!r}")
        super().__init__(message)
        self.code = code
        self.message = message


# --------------------------------------------------------------------------- statuses and results

NEW = "new"
PLAYING = "playing"
WON = "won"
LOST = "lost"

_STATUS_CODES = (NEW, PLAYING, WON, LOST)  # the byte stored by the codec is the index


@dataclass(frozen=True)
class Change:
    """One cell changed by a move: ``v`` is ``'0'``-``'8'`` (opened), ``'X'`` (a mine opened
    by this move), ``'F'`` (flag placed) or ``'#'`` (flag removed).

    >>> Change(3, 4, "2")
    Change(x=3, y=4, v='2')
    """

    x: int
    y: int
    v: str


class Outcome:
    """What one move did: the changed cells in the order the engine changed them, and the
    board status afterwards. An accepted no-op has no changes.

    >>> Outcome(changes=(), status=WON).ended
    True

    Immutable, and equal to another Outcome with the same changes and status. A cascade's
    :class:`Change` objects are built only when :attr:`changes` is first read: the move
    endpoint asks for :meth:`change_dicts` (API.md's JSON), which skips them.

    >>> outcome = Board.from_ascii(["..", ".*"]).reveal(0, 0)
    >>> outcome.change_dicts()
    [{'x': 0, 'y': 0, 'v': '1'}]
    >>> outcome
    Outcome(changes=(Change(x=0, y=0, v='1'),), status='playing')
    """

    __slots__ = ("_cells", "_changes", "_sol", "_status", "_width")

    _cells: list[int]
    _changes: tuple[Change, ...] | None
    _sol: bytearray
    _status: str
    _width: int

    def __init__(self, changes: tuple[Change, ...], status: str) -> None:
        self._changes = tuple(changes)
        self._cells = []
        self._sol = bytearray()
        self._width = 1
        self._status = status

    @classmethod
    def _opened(cls, cells: list[int], sol: bytearray, width: int, status: str) -> Outcome:
        """The outcome of opening ``cells`` (flat indexes, in order): each one shows its
        ``sol`` character. ``sol`` is a board's layout, never modified once placed."""
        outcome = cls.__new__(cls)
        outcome._changes = None
        outcome._cells = cells
        outcome._sol = sol
        outcome._width = width
        outcome._status = status
        return outcome

    @property
    def status(self) -> str:
        """The board status after the move."""
        return self._status

    @property
    def changes(self) -> tuple[Change, ...]:
        """The changed cells, in the order the engine changed them."""
        if self._changes is None:
            self._changes = _changes(self._cells, self._sol, self._width)
        return self._changes

    def change_dicts(self) -> list[dict[str, int | str]]:
        """:attr:`changes` as API.md's move answer lists them (``{"x", "y", "v"}`` each),
        built straight from the opened cells without making :class:`Change` objects."""
        if self._changes is not None:
            return [{"x": c.x, "y": c.y, "v": c.v} for c in self._changes]
        width, sol, chars = self._width, self._sol, _CHARS
        return [{"x": i % width, "y": i // width, "v": chars[sol[i]]} for i in self._cells]

    @property
    def ended(self) -> bool:
        """True when the move left the game won or lost."""
        return self._status in (WON, LOST)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Outcome):
            return NotImplemented
        return (self.changes, self._status) == (other.changes, other._status)

    def __hash__(self) -> int:
        return hash((self.changes, self._status))

    def __repr__(self) -> str:
        return f"Outcome(changes={self.changes!r}, status={self._status!r})"


# --------------------------------------------------------------------------- cell characters

_CLOSED = ord("#")
_FLAG = ord("F")
_MINE = ord("X")  # in _sol: a mine; in _view: a mine that was opened
_ZERO = ord("0")
_UNFLAGGED_MINE = ord("*")
_WRONG_FLAG = ord("!")


@functools.lru_cache(maxsize=16)  # a 100x100 table is about 1 MB: keep a few sizes only
def neighbours(width: int, height: int) -> tuple[tuple[int, ...], ...]:
    """The neighbour indexes of every cell, in reading order (row above, same row, row
    below; left to right): chord opens neighbours in this order."""
    table: list[tuple[int, ...]] = []
    for y in range(height):
        for x in range(width):
            table.append(
                tuple(
                    ny * width + nx
                    for ny in (y - 1, y, y + 1)
                    if 0 <= ny < height
                    for nx in (x - 1, x, x + 1)
                    if 0 <= nx < width and (nx, ny) != (x, y)
                )
            )
    return tuple(table)


@functools.lru_cache(maxsize=16)
def _column_masks(width: int, height: int) -> tuple[int, int]:
    """Two big integers over the board's bytes (big-endian: cell 0 is the top byte), 0xFF
    on every cell that has a left neighbour, and on every cell that has a right one."""
    row_left = b"\x00" + b"\xff" * (width - 1)
    row_right = b"\xff" * (width - 1) + b"\x00"
    return int.from_bytes(row_left * height), int.from_bytes(row_right * height)


def _numbers(is_mine: bytes | bytearray, width: int, height: int) -> bytearray:
    """The layout (``_sol``) of a board whose ``is_mine`` holds one byte per cell, 1 on a
    mine and 0 elsewhere: every safe cell's number as a digit, ``X`` on the mines.

    Each cell's byte of a big integer is one counter: shifting the whole board by one byte
    moves every cell onto its left or right neighbour, by ``width`` bytes onto the row above
    or below, so eight shifts and adds count every cell's mines at once (a count is at most
    8, so no byte ever carries into the next). Decoding does this on every move, and the
    per-mine Python loop it replaces (240 mines x 8 neighbours on Marathon) cost more than
    the rest of the decode together.
    """
    n = width * height
    left_ok, right_ok = _column_masks(width, height)
    mines = int.from_bytes(is_mine)
    # Each cell plus its left and right neighbours, then that row triple from above and
    # below; the cell itself is counted once in `rows` and taken away again.
    rows = mines + ((mines >> 8) & left_ok) + ((mines << 8) & right_ok)
    shift = 8 * width
    counts = rows + (rows >> shift) + ((rows << shift) & ((1 << (8 * n)) - 1)) - mines
    return bytearray((counts | (mines << 4)).to_bytes(n)).translate(_SOL_CHARS)


_SOL_CHARS = bytes(_ZERO + c if c < 16 else _MINE for c in range(256))  # see _numbers
_SOL_MINE_BIT = bytes(1 if c == _MINE else 0 for c in range(256))  # _sol -> is_mine

_CHARS = tuple(chr(c) for c in range(256))


def _changes(cells: list[int], chars_of: bytearray, width: int) -> tuple[Change, ...]:
    """The Change of each cell in ``cells``, showing its character in ``chars_of``."""
    # Why not Change(x, y, v): a Marathon cascade opens about 2,800 cells, and the frozen
    # dataclass __init__ (three object.__setattr__ calls each) then costs more than the
    # flood fill itself. Filling the instance dict directly builds the very same objects
    # (equal, hashable, dataclasses.asdict-able) about 2.5 times faster.
    new, cls, chars = object.__new__, Change, _CHARS
    out: list[Change] = []
    append = out.append
    for i in cells:
        change = new(cls)
        fields = change.__dict__
        fields["x"] = i % width
        fields["y"] = i // width
        fields["v"] = chars[chars_of[i]]
        append(change)
    return tuple(out)


# --------------------------------------------------------------------------- codec tables

_CODEC_VERSION = 1
_HEADER = struct.Struct(">BHHIB")  # version, width, height, mines, status index
# One byte per cell before compression: bit 0 = mine, bits 1-2 = 0 closed, 1 flagged,
# 2 opened. So 0 closed safe, 1 closed mine, 2 flagged safe, 3 flagged mine,
# 4 opened safe, 5 opened mine.
_ENCODE = bytes(
    0 if c == _CLOSED else 2 if c == _FLAG else 5 if c == _MINE else 4 if 48 <= c <= 56 else 255
    for c in range(256)
)
_DECODE_VIEW = bytes(  # the view character, with 0 where the digit comes from _sol
    (_CLOSED, _CLOSED, _FLAG, _FLAG, 0, _MINE)[c] if c <= 5 else 0 for c in range(256)
)
_OPEN_SAFE_MASK = bytes(255 if c == 4 else 0 for c in range(256))
_IS_MINE = bytes(c & 1 if c <= 5 else 0 for c in range(256))
_CODES = bytes(range(6))  # deleting them leaves nothing of a valid body

_ASCII_MINES = frozenset("*MX")
_ASCII_VIEW = {".": _CLOSED, "*": _CLOSED, "F": _FLAG, "M": _FLAG, "X": _MINE}


# --------------------------------------------------------------------------- the board


class Board:
    """One game of Minesweeper on a ``width`` x ``height`` grid with ``mines`` mines.

    ``status`` is :data:`NEW` until the first reveal (no mines exist yet), then
    :data:`PLAYING`, and finally :data:`WON` or :data:`LOST`. Moves mutate the board and
    return an :class:`Outcome`; refused moves raise :class:`EngineError` and change nothing.

    >>> board = Board.from_ascii(["*..", "...", "..."])
    >>> board.reveal(2, 2).status
    'won'
    >>> board.render()
    ['*10', '110', '000']
    """

    width: int
    height: int
    mines: int
    status: str
    _view: bytearray
    _sol: bytearray
    _safe_closed: int
    _nbrs: tuple[tuple[int, ...], ...]
    _clicks_cache: tuple[list[list[int]], list[int]] | None

    def __init__(self, width: int, height: int, mines: int) -> None:
        """A NEW board (no mines yet); validated like :meth:`new`."""
        if not (1 <= width <= 0xFFFF and 1 <= height <= 0xFFFF):
            raise EngineError(
                "invalid_board", f"board sides must be 1 to 65535 cells, not {width}x{height}"
            )
        if not 1 <= mines <= custom_mines_max(width, height):
            raise EngineError(
                "invalid_board",
                f"a {width}x{height} board holds 1 to {custom_mines_max(width, height)} mines,"
                f" not {mines}",
            )
        self._setup(width, height, mines)

    def _setup(self, width: int, height: int, mines: int) -> None:
        self.width = width
        self.height = height
        self.mines = mines
        self.status = NEW
        self._view = bytearray([_CLOSED]) * (width * height)
        self._sol = bytearray()
        self._clicks_cache = None
        self._safe_closed = width * height - mines
        self._nbrs = neighbours(width, height)

    @classmethod
    def _blank(cls, width: int, height: int, mines: int) -> Board:
        """A board without the mine-count validation (ASCII art and decoding)."""
        board = cls.__new__(cls)
        board._setup(width, height, mines)
        return board

    @classmethod
    def new(cls, width: int, height: int, mines: int) -> Board:
        """A fresh board, status NEW: mines are placed by the first reveal.

        Sides must be at least 1 and ``1 <= mines <= width * height - 9``.

        >>> Board.new(9, 9, 10).status
        'new'
        >>> Board.new(5, 5, 17)
        Traceback (most recent call last):
        ...
        games.engine.EngineError: a 5x5 board holds 1 to 16 mines, not 17
        """
        return cls(width, height, mines)

    @classmethod
    def from_ascii(cls, rows: list[str]) -> Board:
        """A board with its mines placed, drawn as one string per row (for tests).

        ``*`` mine, ``.`` closed safe cell, ``F`` flagged safe cell, ``M`` flagged mine,
        ``o`` opened safe cell (its number is computed), and ``X`` an opened mine. Rows are
        whitespace-stripped and blank rows ignored. The board is PLAYING; it is LOST if it
        shows an ``X`` and WON if every safe cell is already open.

        >>> Board.from_ascii(["oo.", "oo*"]).render()
        ['01#', '01#']
        """
        lines = [row.strip() for row in rows]
        lines = [row for row in lines if row]
        if not lines or any(len(row) != len(lines[0]) for row in lines):
            raise EngineError("invalid_board", "ASCII board rows must be non-empty and equal")
        width, height = len(lines[0]), len(lines)
        cells = "".join(lines)
        bad = set(cells) - set(".*FMoX")
        if bad:
            raise EngineError("invalid_board", f"unknown ASCII board characters {sorted(bad)}")
        mine_cells = [i for i, ch in enumerate(cells) if ch in _ASCII_MINES]
        board = cls._blank(width, height, len(mine_cells))
        board._place(mine_cells)
        board.status = PLAYING
        view, sol = board._view, board._sol
        for i, ch in enumerate(cells):
            view[i] = sol[i] if ch == "o" else _ASCII_VIEW[ch]
        board._safe_closed = width * height - len(mine_cells) - cells.count("o")
        if "X" in cells:
            board.status = LOST
        elif board._safe_closed == 0:
            board.status = WON
        return board

    def to_ascii(self) -> list[str]:
        """The board in :meth:`from_ascii`'s alphabet, layout included (server side and
        tests only: never show it to a player).

        >>> Board.from_ascii(["o.", "F*"]).to_ascii()
        ['o.', 'F*']
        """
        self._require_mines()
        out = bytearray(self._view)
        for i, c in enumerate(out):
            mine = self._sol[i] == _MINE
            if c == _CLOSED:
                out[i] = ord("*") if mine else ord(".")
            elif c == _FLAG:
                out[i] = ord("M") if mine else ord("F")
            elif c != _MINE:
                out[i] = ord("o")
        return self._rows(out)

    # ----------------------------------------------------------------------- queries

    @property
    def flags(self) -> int:
        """How many flags are on the board.

        >>> Board.from_ascii(["F*M"]).flags
        2
        """
        return self._view.count(_FLAG)

    @property
    def mines_left(self) -> int:
        """The mine counter: mines minus flags; negative with too many flags.

        >>> Board.from_ascii(["FF*"]).mines_left
        -1
        """
        return self.mines - self.flags

    @property
    def ended(self) -> bool:
        """True once the game is won or lost.

        >>> Board.from_ascii(["X."]).ended
        True
        """
        return self.status in (WON, LOST)

    def opened_count(self) -> int:
        """How many safe cells are open (an opened mine is not counted).

        >>> Board.from_ascii(["oo.", "..*"]).opened_count()
        2
        """
        if self.status == NEW:
            return 0
        return self.width * self.height - self.mines - self._safe_closed

    def render(self, *, layout: bool = True) -> list[str]:
        """What a viewer sees, one string per row.

        While the game runs: ``#`` closed, ``F`` flag, ``0``-``8`` opened, and nothing
        else about closed cells. Once it has ended, also ``*`` an unflagged mine, ``X`` an
        opened mine and ``!`` a flag on a safe cell; a flag on a mine stays ``F`` and a
        closed safe cell stays ``#``. With ``layout=False`` an ended board shows only what
        was opened and flagged (a race game while its race runs: RULES.md, Races).

        >>> board = Board.from_ascii(["o.*", "oFM"])
        >>> board.render()
        ['0##', '0FF']
        >>> board.resign()
        >>> board.render()
        ['0#*', '0!F']
        >>> board.render(layout=False)
        ['0##', '0FF']
        """
        if not self.ended or not layout:
            return self._rows(self._view)
        out = bytearray(self._view)
        sol = self._sol
        i = sol.find(_MINE)
        while i != -1:
            if out[i] == _CLOSED:
                out[i] = _UNFLAGGED_MINE
            i = sol.find(_MINE, i + 1)
        i = out.find(_FLAG)
        while i != -1:
            if sol[i] != _MINE:
                out[i] = _WRONG_FLAG
            i = out.find(_FLAG, i + 1)
        return self._rows(out)

    def _rows(self, cells: bytearray) -> list[str]:
        text = cells.decode("ascii")
        w = self.width
        return [text[k : k + w] for k in range(0, len(text), w)]

    # ----------------------------------------------------------------------- 3BV

    def _clicks(self) -> tuple[list[list[int]], list[int]]:
        """The openings of the layout (8-connected zero regions, each as its zero cells)
        and its lone numbers (safe numbered cells touching no zero), computed once."""
        if self._clicks_cache is not None:
            return self._clicks_cache
        sol, nbrs = self._sol, self._nbrs
        # 0 unseen, 1 a zero already in a region, 2 a number bordering some zero.
        seen = bytearray(len(sol))
        openings: list[list[int]] = []
        i = sol.find(_ZERO)
        while i != -1:
            if not seen[i]:
                seen[i] = 1
                region = [i]
                for cell in region:  # grows while iterated: an iterative flood fill
                    for j in nbrs[cell]:
                        if not seen[j]:
                            if sol[j] == _ZERO:
                                seen[j] = 1
                                region.append(j)
                            else:
                                seen[j] = 2  # never a mine: it touches a zero
                openings.append(region)
            i = sol.find(_ZERO, i + 1)
        # Unseen cells are now the mines and the numbers touching no zero.
        lone: list[int] = []
        i = seen.find(0)
        while i != -1:
            if sol[i] != _MINE:
                lone.append(i)
            i = seen.find(0, i + 1)
        self._clicks_cache = (openings, lone)
        return self._clicks_cache

    def bbbv(self) -> int:
        """The 3BV of the layout: the fewest clicks that clear it without flags. Each
        opening counts 1, plus each safe numbered cell not adjacent to any zero.

        >>> Board.from_ascii(["...", "...", "..*"]).bbbv()  # one opening, no lone number
        1
        >>> Board.from_ascii(["*.*"]).bbbv()  # no opening, one lone number
        1
        """
        self._require_mines()
        openings, lone = self._clicks()
        return len(openings) + len(lone)

    def bbbv_solved(self) -> int:
        """The part of the 3BV the player completed: openings whose zero cells are all
        open, plus opened isolated numbers. Equal to :meth:`bbbv` on a won board.

        >>> board = Board.from_ascii(["*.*", "...", "*.*"])
        >>> board.bbbv(), board.bbbv_solved()
        (5, 0)
        >>> _ = board.reveal(1, 0)
        >>> board.bbbv_solved()
        1
        """
        self._require_mines()
        openings, lone = self._clicks()
        view, sol = self._view, self._sol
        done = sum(1 for region in openings if all(view[i] == _ZERO for i in region))
        return done + sum(1 for i in lone if view[i] == sol[i])  # opened, not flagged

    # ----------------------------------------------------------------------- moves

    def reveal(
        self,
        x: int,
        y: int,
        rng: random.Random | None = None,
        *,
        layout: list[int] | None = None,
    ) -> Outcome:
        """Open a cell. The first reveal places the mines with ``rng`` (required then),
        outside the 3x3 square centred on the cell, so that cell is a zero; or, when
        ``layout`` is given, on exactly those flat cell indexes (``y * width + x``), which
        must be ``mines`` distinct cells of the board outside that square (a layout chosen
        elsewhere, e.g. a no-guess generator's).

        >>> board = Board.new(5, 3, 2)
        >>> board.reveal(0, 1, layout=[4, 14]).status
        'playing'
        >>> board.render(layout=False)
        ['0001#', '0002#', '0001#']
        >>> Board.new(4, 3, 1).reveal(0, 0, layout=[5])
        Traceback (most recent call last):
        ...
        games.engine.EngineError: the layout must be 1 distinct cells outside the first tap's 3x3

        A zero opens its neighbours, and so on (a cascade); flagged cells are never opened
        by a cascade. Revealing a flagged or an opened cell is an accepted no-op. Opening a
        mine loses (``X``); opening the last safe cell wins.

        >>> board = Board.from_ascii(["...", "..*"])
        >>> [(c.x, c.y, c.v) for c in board.reveal(0, 0).changes]
        [(0, 0, '0'), (1, 0, '1'), (0, 1, '0'), (1, 1, '1')]
        >>> board.reveal(2, 0).status
        'won'
        """
        i = self._index(x, y)
        if self.ended:
            raise EngineError("game_over", "the game is over")
        if self.status == NEW:
            excluded = sorted((i, *self._nbrs[i]), reverse=True)
            if layout is not None:
                cells = sorted(set(layout))
                if (
                    len(cells) != self.mines
                    or len(layout) != self.mines
                    or any(not 0 <= c < self.width * self.height for c in cells)
                    or any(c in excluded for c in cells)
                ):
                    raise EngineError(
                        "invalid_board",
                        f"the layout must be {self.mines} distinct cells outside the first"
                        " tap's 3x3",
                    )
                self._place(cells)
            else:
                if rng is None:
                    raise EngineError("invalid_board", "the first reveal needs a random source")
                population = list(range(self.width * self.height))
                for cell in excluded:
                    del population[cell]
                self._place(sorted(rng.sample(population, self.mines)))
            self.status = PLAYING
        if self._view[i] != _CLOSED:
            return Outcome((), self.status)
        opened: list[int] = []
        lost = self._open(i, opened)
        return self._finish(opened, lost)

    def flag(self, x: int, y: int, flagged: bool | None = None) -> Outcome:
        """Place (``flagged=True``), remove (``False``) or toggle (``None``) a flag on a
        closed cell. Setting the current value is an accepted no-op.

        >>> board = Board.from_ascii(["o.*"])
        >>> board.flag(2, 0).changes
        (Change(x=2, y=0, v='F'),)
        >>> board.flag(2, 0, flagged=True).changes
        ()
        >>> board.flag(2, 0).changes
        (Change(x=2, y=0, v='#'),)
        """
        i = self._index(x, y)
        self._require_running()
        c = self._view[i]
        if c not in (_CLOSED, _FLAG):
            raise EngineError("cell_open", "an opened cell cannot be flagged")
        now = c == _FLAG
        target = (not now) if flagged is None else flagged
        if target == now:
            return Outcome((), self.status)
        self._view[i] = _FLAG if target else _CLOSED
        return Outcome((Change(x, y, "F" if target else "#"),), self.status)

    def chord(self, x: int, y: int) -> Outcome:
        """On an opened number surrounded by exactly that many flags, open every closed,
        unflagged neighbour (in reading order), each cascading like a reveal. A wrong flag
        means a mine is opened and the game lost; the other neighbours are still opened,
        so several ``X`` are possible. A chord on a zero, or with the wrong flag count, is
        an accepted no-op.

        >>> board = Board.from_ascii(["oM.", "...", "..*"])
        >>> [(c.x, c.y, c.v) for c in board.chord(0, 0).changes]
        [(0, 1, '1'), (1, 1, '2')]
        """
        i = self._index(x, y)
        self._require_running()
        view = self._view
        c = view[i]
        if c in (_CLOSED, _FLAG):
            raise EngineError("cell_closed", "only an opened number can be chorded")
        nbrs = self._nbrs[i]
        if c == _ZERO or sum(1 for j in nbrs if view[j] == _FLAG) != c - _ZERO:
            return Outcome((), self.status)
        opened: list[int] = []
        lost = False
        for j in nbrs:
            if view[j] == _CLOSED:  # an earlier neighbour's cascade may have opened it
                lost = self._open(j, opened) or lost
        return self._finish(opened, lost)

    def resign(self) -> None:
        """End a started game as lost without opening anything.

        >>> board = Board.from_ascii(["o.*"])
        >>> board.resign()
        >>> board.status
        'lost'
        """
        self._require_running()
        self.status = LOST

    # ----------------------------------------------------------------------- move helpers

    def _index(self, x: int, y: int) -> int:
        if not (0 <= x < self.width and 0 <= y < self.height):
            raise EngineError(
                "out_of_bounds", f"({x}, {y}) is outside the {self.width}x{self.height} board"
            )
        return y * self.width + x

    def _require_running(self) -> None:
        if self.status == NEW:
            raise EngineError("game_not_started", "the game has not started: reveal a cell first")
        if self.ended:
            raise EngineError("game_over", "the game is over")

    def _require_mines(self) -> None:
        if self.status == NEW:
            raise EngineError("game_not_started", "no mines are placed before the first reveal")

    def _place(self, mine_cells: list[int]) -> None:
        """Put mines on ``mine_cells`` and compute every cell's number."""
        is_mine = bytearray(self.width * self.height)
        for m in mine_cells:
            is_mine[m] = 1
        self._place_bytes(is_mine)

    def _place_bytes(self, is_mine: bytes | bytearray) -> None:
        """Put mines where ``is_mine`` (a byte per cell) is 1 and compute every number."""
        self._sol = _numbers(is_mine, self.width, self.height)
        self._clicks_cache = None

    def _open(self, start: int, opened: list[int]) -> bool:
        """Open the closed, unflagged cell ``start`` and cascade from it, appending every
        opened cell to ``opened`` in breadth-first order. True when it was a mine.

        The flood fill is iterative (a list that grows while it is walked), so a board
        that opens in one tap never nears the recursion limit. It walks the zeros only (the
        numbers it reaches open but do not spread), through the per-size neighbour table,
        with every name it touches local: this loop is the whole cost of a big cascade.
        """
        view, sol = self._view, self._sol
        c = sol[start]
        view[start] = c
        if c != _ZERO:
            opened.append(start)
            if c == _MINE:
                return True
            self._safe_closed -= 1
            return False
        region = [start]
        add = region.append
        zeros = [start]
        spread = zeros.append
        nbrs, closed, zero = self._nbrs, _CLOSED, _ZERO
        for cell in zeros:  # grows while iterated, in the order the zeros were opened
            for j in nbrs[cell]:
                if view[j] == closed:  # never a mine: its neighbour is a zero
                    c = sol[j]
                    view[j] = c
                    add(j)
                    if c == zero:
                        spread(j)
        self._safe_closed -= len(region)
        opened.extend(region)
        return False

    def _finish(self, opened: list[int], lost: bool) -> Outcome:
        if lost:
            self.status = LOST
        elif self._safe_closed == 0:
            self.status = WON
        # An opened cell shows its _sol character for good: the outcome reads it there.
        return Outcome._opened(opened, self._sol, self.width, self.status)

    # ----------------------------------------------------------------------- codec

    def encode(self) -> bytes:
        """The board as compact bytes for storage: a 10-byte header (version, width,
        height, mines, status) and, once mines exist, zlib over one code byte per cell.

        >>> board = Board.from_ascii(["o.*", "oFM"])
        >>> Board.decode(board.encode()) == board
        True
        >>> len(Board.new(80, 40, 240).encode())
        10
        """
        header = _HEADER.pack(
            _CODEC_VERSION, self.width, self.height, self.mines, _STATUS_CODES.index(self.status)
        )
        if self.status == NEW:
            return header
        n = self.width * self.height
        codes = int.from_bytes(self._view.translate(_ENCODE)) | int.from_bytes(
            self._sol.translate(_SOL_MINE_BIT)
        )
        # Level 1: a fifth of the default level's time (about 20 us against 118 us for a
        # Marathon board here) for about a third more bytes, still well under 1 KB.
        return header + zlib.compress(codes.to_bytes(n), 1)

    @classmethod
    def decode(cls, data: bytes) -> Board:
        """The board :meth:`encode` produced, exactly (raises ``invalid_board`` on bytes
        that are not a consistent board).

        >>> Board.decode(Board.new(9, 9, 10).encode()).status
        'new'
        >>> Board.decode(b"nonsense")
        Traceback (most recent call last):
        ...
        games.engine.EngineError: not an encoded board
        """
        if len(data) < _HEADER.size:
            raise EngineError("invalid_board", "not an encoded board")
        version, width, height, mines, status_index = _HEADER.unpack_from(data)
        if version != _CODEC_VERSION or status_index >= len(_STATUS_CODES):
            raise EngineError("invalid_board", "not an encoded board")
        if width < 1 or height < 1 or mines > width * height:
            raise EngineError("invalid_board", "encoded board has impossible dimensions")
        status = _STATUS_CODES[status_index]
        body = data[_HEADER.size :]
        if status == NEW:
            if body or not 1 <= mines <= custom_mines_max(width, height):
                raise EngineError("invalid_board", "encoded new board is inconsistent")
            return cls(width, height, mines)
        n = width * height
        try:
            inflater = zlib.decompressobj()
            codes = inflater.decompress(body, n + 1)
        except zlib.error as error:
            raise EngineError("invalid_board", f"encoded board is corrupt: {error}") from error
        if (
            len(codes) != n
            or not inflater.eof
            or inflater.unused_data
            or codes.translate(None, _CODES)
        ):
            raise EngineError("invalid_board", "encoded board is corrupt")
        is_mine = codes.translate(_IS_MINE)
        if is_mine.count(1) != mines:
            raise EngineError("invalid_board", "encoded board has the wrong number of mines")
        board = cls._blank(width, height, mines)
        board._place_bytes(is_mine)
        # The view is the decoded character, or the cell's number where it is an opened
        # safe cell: a byte-wise select done with big-integer masks (no per-cell loop).
        picked = int.from_bytes(board._sol) & int.from_bytes(codes.translate(_OPEN_SAFE_MASK))
        view = picked | int.from_bytes(codes.translate(_DECODE_VIEW))
        board._view = bytearray(view.to_bytes(n))
        board._safe_closed = n - mines - codes.count(4)
        board.status = status
        exploded = codes.count(5)
        consistent = {
            PLAYING: exploded == 0 and board._safe_closed > 0,
            WON: exploded == 0 and board._safe_closed == 0,
            LOST: True,
        }[status]
        if not consistent:
            raise EngineError("invalid_board", f"encoded board is not a {status} board")
        return board

    # ----------------------------------------------------------------------- dunder

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Board):
            return NotImplemented
        return (
            self.width,
            self.height,
            self.mines,
            self.status,
            self._view,
            self._sol,
        ) == (other.width, other.height, other.mines, other.status, other._view, other._sol)

    __hash__ = None  # type: ignore[assignment]  # mutable: not hashable

    def __repr__(self) -> str:
        return (
            f"<Board {self.width}x{self.height} mines={self.mines} status={self.status}"
            f" opened={self.opened_count()} flags={self.flags}>"
        )
