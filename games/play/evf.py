"""An ended game as an EVF replay file (version 3 of the format documented in the ms-toollib
repository, "evf标准.md"; read by ms-toollib's `EvfVideo` and by Metasweeper).

Pure: bytes from the size, the mine layout and the stored moves (their game clock `at_ms`),
never the wall clock. Each move becomes the mouse events the format's reader replays:

- a reveal: a left press and release at the cell's pixel centre,
- a flag (or unflag): a right press and release; a flag move that changed nothing (an
  explicit `flagged` the cell already had, API.md's accepted no-op) leaves no event, since the
  format's right click always toggles,
- a chord: a middle press and release (the format's "double press"),

all stamped with the move's `at_ms` (the format counts milliseconds from the first press, and
our game clock starts at the first tap). Pause, resume, resign and abandon leave no mouse
event; the header's time is the game's final `elapsed_ms`.

Layout, big-endian throughout (docs/ACCOUNTS.md, EVF replay files): version (3), a summary
byte (completed, official, fair, no flags), a settings byte (question marks off), rows,
columns, mines (2), cell size (1), mode (2), 3BV (2), time in ms (3), eight NUL-terminated
UTF-8 strings (software, player, race, uniqueness, start and end in microseconds since the
epoch, country, device), the mines one bit a cell row by row (most significant bit first,
padded to a byte), the events (type 1, time 3, x 2, y 2), then 255: no checksum (only
software that signs its recordings writes one)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

VERSION = 3
CELL_PX = 16
SOFTWARE = "Démineur"
MAX_MS = (1 << 24) - 1  # three bytes: the format's longest game is 16777.215 s
MAX_SIDE = 255  # one byte a side

# The format's modes: 0 standard; 5 "竞速无猜", a board that never needs a guess (ours).
MODE_STANDARD = 0
MODE_NO_GUESS = 5

# The format's mouse event types.
LEFT_PRESS, LEFT_RELEASE = 2, 3
RIGHT_PRESS, RIGHT_RELEASE = 4, 5
MIDDLE_PRESS, MIDDLE_RELEASE = 6, 7
NO_CHECKSUM = 255

_BUTTONS = {
    "reveal": (LEFT_PRESS, LEFT_RELEASE),
    "flag": (RIGHT_PRESS, RIGHT_RELEASE),
    "chord": (MIDDLE_PRESS, MIDDLE_RELEASE),
}


@dataclass(frozen=True)
class Replay:
    """What an EVF file says of one ended game."""

    width: int
    height: int
    mines: frozenset[tuple[int, int]]  # (x, y) of every mine
    # (action, x, y, at_ms, flagged): Move rows in `seq` order; `flagged` a flag's explicit one
    moves: tuple[tuple[str, int | None, int | None, int, bool | None], ...]
    player: str
    elapsed_ms: int
    won: bool
    bbbv: int
    no_guess: bool = False
    ranked: bool = False
    started_us: int | None = None  # the first tap, microseconds since the epoch
    ended_us: int | None = None


def _u(value: int, size: int) -> bytes:
    return value.to_bytes(size, "big")


def _text(value: str) -> bytes:
    return value.replace("\0", "").encode() + b"\0"


def _mine_bits(width: int, height: int, mines: frozenset[tuple[int, int]]) -> bytes:
    out = bytearray((width * height + 7) // 8)
    for x, y in mines:
        i = y * width + x
        out[i // 8] |= 0x80 >> (i % 8)
    return bytes(out)


def clicks(replay: Replay) -> list[tuple[str, int, int, int]]:
    """The moves that are clicks in the file: (action, x, y, at_ms)."""
    flags: set[tuple[int, int]] = set()
    out: list[tuple[str, int, int, int]] = []
    for action, x, y, at_ms, flagged in replay.moves:
        if action not in _BUTTONS or x is None or y is None:
            continue  # pause, resume, resign, abandon: no mouse
        if action == "flag":
            now = (x, y) not in flags if flagged is None else flagged
            if now == ((x, y) in flags):
                continue  # an explicit no-op
            flags.symmetric_difference_update({(x, y)})
        out.append((action, x, y, at_ms))
    return out


def _events(replay: Replay) -> Iterable[bytes]:
    for action, x, y, at_ms in clicks(replay):
        buttons = _BUTTONS[action]
        t = _u(min(max(at_ms, 0), MAX_MS), 3)
        where = _u(x * CELL_PX + CELL_PX // 2, 2) + _u(y * CELL_PX + CELL_PX // 2, 2)
        for kind in buttons:
            yield bytes([kind]) + t + where


def evf_bytes(replay: Replay) -> bytes:
    """The EVF (version 3) file of `replay`. Raises ValueError for a board the format cannot
    hold (a side over 255 cells)."""
    width, height = replay.width, replay.height
    if not (0 < width <= MAX_SIDE and 0 < height <= MAX_SIDE):
        raise ValueError(f"EVF holds at most {MAX_SIDE} x {MAX_SIDE} cells")
    flagged = any(action == "flag" for action, *_ in clicks(replay))
    official = replay.won and replay.ranked and not replay.no_guess
    fair = replay.won and replay.ranked
    summary = (
        (0x80 if replay.won else 0)
        | (0x40 if official else 0)
        | (0x20 if fair else 0)
        | (0x10 if replay.won and not flagged else 0)
    )
    settings = 0x80  # no question marks: a second right click takes the flag off
    head = bytearray([VERSION, summary, settings, height, width])
    head += _u(len(replay.mines), 2) + bytes([CELL_PX])
    head += _u(MODE_NO_GUESS if replay.no_guess else MODE_STANDARD, 2)
    head += _u(min(replay.bbbv, 0xFFFF), 2)
    head += _u(min(max(replay.elapsed_ms, 0), MAX_MS), 3)
    stamps = ["" if us is None else str(us) for us in (replay.started_us, replay.ended_us)]
    for text in (SOFTWARE, replay.player, "", "", *stamps, "", ""):
        head += _text(text)
    head += _mine_bits(width, height, replay.mines)
    return bytes(head) + b"".join(_events(replay)) + bytes([NO_CHECKSUM])
