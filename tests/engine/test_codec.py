"""The storage codec: exact round trips, small Marathon boards, refusal of bad bytes."""

from __future__ import annotations

import random
import struct
import zlib

import pytest

from games.engine import LEVELS, LOST, NEW, PLAYING, WON, Board, EngineError

HEADER = struct.Struct(">BHHIB")  # version, width, height, mines, status (new/playing/won/lost)


def assert_round_trip(board: Board) -> bytes:
    data = board.encode()
    copy = Board.decode(data)
    assert copy == board
    assert copy.encode() == data
    assert (copy.status, copy.mines, copy.flags, copy.opened_count()) == (
        board.status,
        board.mines,
        board.flags,
        board.opened_count(),
    )
    assert copy.render() == board.render()
    if board.status != NEW:
        assert copy.to_ascii() == board.to_ascii()
    return data


def test_a_new_board_is_its_header_alone() -> None:
    board = Board.new(80, 40, 240)
    data = assert_round_trip(board)
    assert data == HEADER.pack(1, 80, 40, 240, 0)
    assert Board.decode(data).status == NEW


@pytest.mark.parametrize(
    ("rows", "status"),
    [
        (["oo.*", "oFM.", "...."], PLAYING),  # flags on a mine and on a safe cell
        (["oooM", "oooo", "o*oo"], WON),
        (["oX.*", "oF..", "...."], LOST),
        (["X.X.", "Fo..", "...."], LOST),  # several opened mines
    ],
)
def test_round_trip_keeps_status_mines_flags_opened_and_exploded_cells(
    rows: list[str], status: str
) -> None:
    board = Board.from_ascii(rows)
    assert board.status == status
    assert_round_trip(board)


def test_round_trip_of_a_resigned_game() -> None:
    board = Board.from_ascii(["o..", "..*"])
    board.resign()
    copy = Board.decode(assert_round_trip(board))
    assert copy.status == LOST
    assert copy.render() == ["0##", "##*"]


def test_a_decoded_board_plays_on() -> None:
    board = Board.new(9, 9, 10)
    board.reveal(4, 4, rng=random.Random(5))
    copy = Board.decode(board.encode())
    for y, row in enumerate(board.to_ascii()):
        for x, ch in enumerate(row):
            if ch == "." and not board.ended:
                assert copy.reveal(x, y) == board.reveal(x, y)
    assert board.status == copy.status == WON


def _marathon_boards(seed: int) -> dict[str, Board]:
    """A Marathon game at its first tap, half way (with some flags) and finished."""
    level = LEVELS["marathon"]
    rng = random.Random(seed)
    board = Board.new(level.width, level.height, level.mines)
    boards = {"fresh": Board.decode(board.encode())}
    board.reveal(rng.randrange(level.width), rng.randrange(level.height), rng=rng)
    boards["first tap"] = Board.decode(board.encode())
    layout = board.to_ascii()
    safe = [(x, y) for y, row in enumerate(layout) for x, ch in enumerate(row) if ch in ".o"]
    mines = [(x, y) for y, row in enumerate(layout) for x, ch in enumerate(row) if ch == "*"]
    rng.shuffle(safe)
    for x, y in safe[: len(safe) // 2]:
        if not board.ended:
            board.reveal(x, y)
    for x, y in mines[:40]:
        if not board.ended:
            board.flag(x, y)
    boards["mid-game"] = Board.decode(board.encode())
    for x, y in safe:
        if not board.ended:
            board.reveal(x, y)
    boards["won"] = board
    return boards


def test_marathon_boards_encode_well_under_one_kilobyte() -> None:
    sizes: dict[str, int] = {}
    for seed in range(10):
        for name, board in _marathon_boards(seed).items():
            data = assert_round_trip(board)
            sizes[name] = max(sizes.get(name, 0), len(data))
    assert sizes["fresh"] == HEADER.size
    assert max(sizes.values()) < 600, sizes


def _corrupt(data: bytes, body: bytes | None = None, **header: int) -> bytes:
    fields = dict(
        zip(
            ("version", "width", "height", "mines", "status"), HEADER.unpack_from(data), strict=True
        )
    )
    fields.update(header)
    rest = data[HEADER.size :] if body is None else body
    return HEADER.pack(*fields.values()) + rest


def _playing_board() -> bytes:
    return Board.from_ascii(["oo.*", "oFM.", "...."]).encode()


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(b"", id="empty"),
        pytest.param(b"\x01\x00", id="truncated header"),
        pytest.param(_corrupt(_playing_board(), version=2), id="unknown version"),
        pytest.param(_corrupt(_playing_board(), status=4), id="unknown status"),
        pytest.param(_corrupt(_playing_board(), width=0), id="zero width"),
        pytest.param(_corrupt(_playing_board(), width=5), id="wrong width"),
        pytest.param(_corrupt(_playing_board(), mines=3), id="wrong mine count"),
        pytest.param(_corrupt(_playing_board(), mines=99), id="more mines than cells"),
        pytest.param(_corrupt(_playing_board(), status=2), id="playing board called won"),
        pytest.param(_corrupt(_playing_board(), body=b"not zlib"), id="not zlib"),
        pytest.param(_playing_board()[:-3], id="truncated body"),
        pytest.param(_playing_board() + b"\x00", id="trailing bytes"),
        pytest.param(
            _corrupt(_playing_board(), body=zlib.compress(bytes([9] * 12))), id="bad code"
        ),
        pytest.param(_corrupt(_playing_board(), status=0), id="new board with cells"),
        pytest.param(HEADER.pack(1, 9, 9, 0, 0), id="new board without mines"),
        pytest.param(
            _corrupt(_playing_board(), mines=1, body=zlib.compress(bytes([4] * 11 + [1]))),
            id="playing board already cleared",
        ),
        pytest.param(
            _corrupt(_playing_board(), mines=1, body=zlib.compress(bytes([5] + [0] * 11))),
            id="playing board with an opened mine",
        ),
    ],
)
def test_bad_bytes_are_refused(data: bytes) -> None:
    with pytest.raises(EngineError) as info:
        Board.decode(data)
    assert info.value.code == "invalid_board"
