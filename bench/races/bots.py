"""The bench's bots: bot accounts registered through the API, each playing its own Expert game
over its game socket (`/ws/games/{id}?token=`) with what the API showed it, never the layout.

Strategy: reveal a cell that is certainly safe from the visible numbers (a number whose known
mines are all accounted for frees its other closed neighbours; a number with as many closed
neighbours as missing mines marks them all as mines, kept in the bot's head, not flagged);
when nothing is certain, reveal a random closed cell that is not a known mine. A bot that
opens a mine is done.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from dataclasses import dataclass, field
from typing import Any

from bench.harness.clients import HOST, Account, game_socket, register
from bench.soak.bots import Board

ANSWER_TIMEOUT = 10.0  # seconds without an answer before a move counts as an error (stall)
DIGITS = frozenset("012345678")
NUMBERS = frozenset("12345678")
# The racer state a race's `progress` event reports for a game state (API.md, Races).
RACER_STATE = {"playing": "racing", "won": "won", "lost": "lost"}


def register_bots(port: int, count: int, prefix: str) -> list[Account]:
    """`count` accounts of kind bot, registered and signed in through the API."""
    password = f"{prefix}-Bench-pass-9k2!"
    return [register(port, f"{prefix}{i}", password) for i in range(count)]


# --- what a bot knows of its game ---------------------------------------------------------------


class Solver(Board):
    """The board the API showed (bench/soak's Board), the mines deduced from it, and the next
    cell to reveal."""

    def __init__(self, game: dict[str, Any]) -> None:
        super().__init__(game)
        self.mines: set[tuple[int, int]] = set()
        self.queue: list[tuple[int, int]] = []

    def opened(self) -> int:
        """Safe cells open, as the race's `opened` counts them (an opened mine is no digit)."""
        return sum(v in DIGITS for row in self.cells for v in row)

    def _neighbours(self, x: int, y: int) -> list[tuple[int, int]]:
        return [
            (nx, ny)
            for ny in range(max(0, y - 1), min(self.height, y + 2))
            for nx in range(max(0, x - 1), min(self.width, x + 2))
            if (nx, ny) != (x, y)
        ]

    def deduce(self) -> set[tuple[int, int]]:
        """The closed cells certainly safe; the certain mines are added to `mines` on the way."""
        cells = self.cells
        numbers = [(x, y) for y, row in enumerate(cells) for x, v in enumerate(row) if v in NUMBERS]
        while True:
            safe: set[tuple[int, int]] = set()
            found_mine = False
            for x, y in numbers:
                closed = []
                known = 0
                for nx, ny in self._neighbours(x, y):
                    v = cells[ny][nx]
                    if v == "F" or (nx, ny) in self.mines:
                        known += 1
                    elif v == "#":
                        closed.append((nx, ny))
                if not closed:
                    continue
                missing = int(cells[y][x]) - known
                if missing == 0:
                    safe.update(closed)
                elif missing == len(closed):
                    self.mines.update(closed)
                    found_mine = True
            if not found_mine:
                return safe

    def next_cell(self, rng: random.Random) -> tuple[tuple[int, int], bool] | None:
        """(cell, certain) to reveal next, or None when no closed cell is left to try."""
        while self.queue:
            x, y = self.queue.pop()
            if self.cells[y][x] == "#":
                return (x, y), True
        self.queue = sorted(self.deduce(), reverse=True)
        if self.queue:
            return self.queue.pop(), True
        closed = [
            (x, y)
            for y, row in enumerate(self.cells)
            for x, v in enumerate(row)
            if v == "#" and (x, y) not in self.mines
        ]
        return (rng.choice(closed), False) if closed else None


# --- playing ------------------------------------------------------------------------------------


@dataclass
class Tally:
    """What the bots of one round did: latencies (ms) of the moves they sent, errors by kind,
    and, per race move, when it was sent and when its answer reached the bot, by (player,
    opened, state)."""

    latencies: list[float] = field(default_factory=list)
    sent: list[float] = field(default_factory=list)  # when each timed move was sent
    moves: int = 0
    guesses: int = 0
    won: int = 0
    lost: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    answered: dict[tuple[str, int, str], tuple[float, float]] = field(default_factory=dict)
    ambiguous: set[tuple[str, int, str]] = field(default_factory=set)

    def error(self, kind: str) -> None:
        self.errors[kind] = self.errors.get(kind, 0) + 1

    def answer(self, key: tuple[str, int, str], sent: float, at: float) -> None:
        if key in self.answered:
            self.ambiguous.add(key)
        self.answered[key] = (sent, at)


async def _answer(ws: Any) -> dict[str, Any]:
    """The frame that answers the move just sent: its `move` event, an `error`, or a `state`
    (the consumer re-read the game after a gap)."""
    while True:
        frame = json.loads(await ws.recv())
        if frame.get("type") in ("move", "error", "state"):
            return dict(frame)


async def play(
    account: Account,
    ws_port: int,
    game_id: str,
    tally: Tally,
    *,
    rng: random.Random,
    think_s: float,
    first_tap: tuple[int, int] | None = None,
) -> None:
    """Play the game to its end over its socket. `first_tap` (a solo game, not started yet):
    that reveal first, not counted in the latencies (it lays the mines; a race game is created
    started, its first move is the server's)."""
    from websockets.exceptions import WebSocketException

    url = f"ws://{HOST}:{ws_port}/ws/games/{game_id}?token={account.token}"
    n = 0

    async def reveal(ws: Any, board: Solver, cell: tuple[int, int], timed: bool) -> bool:
        """One reveal and its answer; False when the bot cannot go on."""
        nonlocal n
        n += 1
        move = {"action": "reveal", "x": cell[0], "y": cell[1], "client_move_id": f"m{n}"}
        sent = time.perf_counter()
        await ws.send(json.dumps(move))
        try:
            frame = await asyncio.wait_for(_answer(ws), ANSWER_TIMEOUT)
        except TimeoutError:
            tally.error("socket: no answer in 10 s")
            return False
        at = time.perf_counter()
        tally.moves += 1
        if frame["type"] == "error":
            tally.error(f"socket error {frame['error'].get('code')}")
            return True
        if frame["type"] == "state":
            tally.error("socket: state re-read instead of the move")
            board.load(frame["game"])
            return True
        if timed:
            tally.latencies.append((at - sent) * 1000)
            tally.sent.append(sent)
        board.apply(frame.get("changes", []))
        board.state = str(frame["state"])
        board.seq = int(frame["seq"])
        key = (account.username, board.opened(), RACER_STATE.get(board.state, board.state))
        tally.answer(key, sent, at)
        return True

    try:
        async with game_socket(url, timeout=ANSWER_TIMEOUT, close_timeout=2) as (ws, hello):
            if hello.get("type") != "state":
                tally.error(f"socket: {hello.get('type')} on connect")
                return
            board = Solver(hello["game"])
            if first_tap is not None and not await reveal(ws, board, first_tap, timed=False):
                return
            while board.state == "playing":
                await asyncio.sleep(think_s * rng.uniform(0.5, 1.5))
                choice = board.next_cell(rng)
                if choice is None:
                    tally.error("no closed cell left while playing")
                    return
                cell, certain = choice
                tally.guesses += not certain
                if not await reveal(ws, board, cell, timed=True):
                    return
            if board.state == "won":
                tally.won += 1
            elif board.state == "lost":
                tally.lost += 1
    except (OSError, WebSocketException) as exc:  # refused, or closed under the bot
        tally.error(f"socket: {type(exc).__name__}")
