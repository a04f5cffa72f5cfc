"""The load bench's players: each plays whole games through the public API, one after another,
with only what the API shows it (never the layout), over HTTP or over the game socket.

A game: `POST /api/games` (a level drawn from the run's mix), the first reveal in the middle,
then the solver's moves until the game is won or lost, then the next game. HTTP: every move is
`POST /api/games/{id}/reveal|flag|chord` on a fresh connection (gunicorn's sync workers close
after each answer). Socket: one `/ws/games/{id}?token=` per game, opened after the create;
each move is a frame, answered by the `move` event that carries its `client_move_id`. Every
move carries a `client_move_id`, as the web page's moves do.

The solver (LoadSolver) extends bench/races' Solver, keeping its two rules (a number whose
known mines are all accounted for frees its other closed neighbours; a number with as many
closed neighbours as missing mines makes them all mines), and plays them the way a player
does: it flags every certain mine, chords a satisfied number with two closed neighbours or
more, reveals the last closed neighbour of one, and otherwise reveals a random closed cell
that is not a known mine (a guess). Its deductions are incremental: a move's changes mark
only the numbers around them for another look, so a bot's cost per move does not grow with
the board (the load generator must not be what is measured).
"""

from __future__ import annotations

import asyncio
import json
import math
import random
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from bench.harness.clients import HOST, Account, game_socket, http_post
from bench.races.bots import NUMBERS, Solver

TIMEOUT = 10.0  # seconds without an answer: the move is an error and the game is left
MOVE_ACTIONS = ("first reveal", "reveal", "flag", "chord")
ACTIONS = ("create", "connect", *MOVE_ACTIONS)
PLAYING = ("new", "playing")
Cell = tuple[int, int]

__all__ = ["ACTIONS", "MOVE_ACTIONS", "Account", "Load", "LoadSolver", "Move", "Stats", "bot"]


# --- the solver ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Move:
    action: str  # reveal, flag or chord
    x: int
    y: int
    certain: bool  # False: a guess


class LoadSolver(Solver):
    """bench/races' Solver (the board the API showed, the mines deduced from it) with flags,
    chords and incremental deductions."""

    def __init__(self, game: dict[str, Any]) -> None:
        self.dirty: set[Cell] = set()  # cells whose number may tell something new
        self.ready: set[Cell] = set()  # numbers whose mines are all known (they free the rest)
        self.to_flag: list[Cell] = []  # certain mines not flagged yet
        self.total_mines = int(game["mines"])
        super().__init__(game)  # Board.__init__ calls load()

    def load(self, game: dict[str, Any]) -> None:
        """The whole board (a Game): every cell is looked at again; our flags are mines."""
        super().load(game)
        mines: set[Cell] = getattr(self, "mines", set())
        flags = {(x, y) for y, row in enumerate(self.cells) for x, v in enumerate(row) if v == "F"}
        mines |= flags
        self.mines = mines
        self.to_flag = [c for c in mines if self.cells[c[1]][c[0]] == "#"]
        self.dirty = {(x, y) for y in range(self.height) for x in range(self.width)}

    def apply(self, changes: list[dict[str, Any]]) -> None:
        super().apply(changes)
        for c in changes:
            x, y = int(c["x"]), int(c["y"])
            self.dirty.add((x, y))
            self.dirty.update(self._neighbours(x, y))

    def settle(self) -> None:
        """Apply both rules to every dirty number until nothing new is certain."""
        cells, mines, dirty = self.cells, self.mines, self.dirty
        while dirty:
            x, y = dirty.pop()
            v = cells[y][x]
            if v not in NUMBERS:
                self.ready.discard((x, y))
                continue
            closed: list[Cell] = []
            known = 0
            for nx, ny in self._neighbours(x, y):
                c = cells[ny][nx]
                if c == "F" or (nx, ny) in mines:
                    known += 1
                elif c == "#":
                    closed.append((nx, ny))
            if not closed:
                self.ready.discard((x, y))
                continue
            missing = int(v) - known
            if missing == 0:
                self.ready.add((x, y))
            elif missing == len(closed):
                for cell in closed:
                    mines.add(cell)
                    self.to_flag.append(cell)
                    dirty.update(self._neighbours(*cell))

    def certain_safe(self) -> set[Cell]:
        """The closed cells the rules free right now (for tests: races' `deduce` says the same)."""
        self.settle()
        return {
            (nx, ny)
            for x, y in self.ready
            for nx, ny in self._neighbours(x, y)
            if self.cells[ny][nx] == "#" and (nx, ny) not in self.mines
        }

    def next_move(self, rng: random.Random) -> Move | None:
        """The next move of a started game, or None when no closed cell is left to try."""
        self.settle()
        cells = self.cells
        while self.to_flag:
            x, y = self.to_flag.pop()
            if cells[y][x] == "#":
                return Move("flag", x, y, True)
        best: Cell | None = None
        best_closed: list[Cell] = []
        for x, y in sorted(self.ready):
            closed = [
                (nx, ny)
                for nx, ny in self._neighbours(x, y)
                if cells[ny][nx] == "#" and (nx, ny) not in self.mines
            ]
            if not closed:
                self.ready.discard((x, y))
            elif len(closed) > len(best_closed):
                best, best_closed = (x, y), closed
        if best is not None:
            x, y = best
            flags = sum(cells[ny][nx] == "F" for nx, ny in self._neighbours(x, y))
            if len(best_closed) >= 2 and flags == int(cells[y][x]):
                return Move("chord", x, y, True)
            return Move("reveal", *best_closed[0], True)
        closed = [
            (x, y)
            for y, row in enumerate(cells)
            for x, v in enumerate(row)
            if v == "#" and (x, y) not in self.mines
        ]
        if not closed:
            return None
        if len(self.mines) >= self.total_mines:  # every mine is known: the rest is safe
            return Move("reveal", *closed[0], True)
        return Move("reveal", *rng.choice(closed), False)

    def first_move(self) -> Move:
        """The first tap of a new game: the middle of the board (mines are never under it)."""
        return Move("reveal", self.width // 2, self.height // 2, True)


# --- what the bots measured ------------------------------------------------------------------------


@dataclass
class Stats:
    """Latencies (ms) by action of what completed inside the counted window [start, end]
    (perf_counter), the games that ended in it, and every error of the run, by kind."""

    start: float = math.inf
    end: float = math.inf
    latencies: dict[str, list[float]] = field(default_factory=lambda: {a: [] for a in ACTIONS})
    won: int = 0
    lost: int = 0
    guesses: int = 0
    done: int = 0  # moves answered, window or not (progress lines)
    errors: Counter[str] = field(default_factory=Counter)

    def counted(self, t: float) -> bool:
        return self.start <= t <= self.end

    def record(self, action: str, sent: float, done: float) -> None:
        if action in MOVE_ACTIONS:
            self.done += 1
        if self.counted(done):
            self.latencies[action].append((done - sent) * 1000)

    def ended(self, state: str) -> None:
        if self.counted(time.perf_counter()):
            self.won += state == "won"
            self.lost += state == "lost"

    def error(self, kind: str) -> None:
        self.errors[kind] += 1

    @property
    def moves(self) -> int:
        return sum(len(self.latencies[a]) for a in MOVE_ACTIONS)


@dataclass
class Load:
    """What every bot of one run shares."""

    transport: str  # "http" or "ws"
    http_port: int
    ws_port: int
    levels: tuple[str, ...]
    stop_at: float  # perf_counter: no move is sent after it
    stats: Stats
    think_s: float = 0.0


def _body(move: Move, n: int) -> dict[str, Any]:
    body: dict[str, Any] = {"x": move.x, "y": move.y, "client_move_id": f"m{n}"}
    if move.action == "flag":
        body["flagged"] = True
    return body


def _error_code(raw: bytes) -> str:
    try:
        return str(json.loads(raw)["error"]["code"])
    except (ValueError, KeyError, TypeError):
        return "?"


async def _post(
    load: Load, account: Account, path: str, body: dict[str, Any], action: str
) -> Any | None:
    """One timed POST; the answer's JSON, or None (the error counted)."""
    sent = time.perf_counter()
    try:
        status, raw = await asyncio.wait_for(
            http_post(HOST, load.http_port, path, account.token, body), TIMEOUT
        )
    except TimeoutError:
        load.stats.error(f"{action}: HTTP, no answer in {TIMEOUT:.0f} s")
        return None
    except (OSError, ValueError, IndexError) as exc:  # refused, reset, cut short
        load.stats.error(f"{action}: HTTP {type(exc).__name__}")
        return None
    done = time.perf_counter()
    if status // 100 != 2:
        load.stats.error(f"{action}: HTTP {status} {_error_code(raw)}")
        return None
    load.stats.record(action, sent, done)
    return json.loads(raw)


async def _think(load: Load, rng: random.Random) -> None:
    if load.think_s:
        await asyncio.sleep(load.think_s * rng.uniform(0.5, 1.5))


def _next(solver: LoadSolver, rng: random.Random, load: Load) -> tuple[Move, str] | None:
    if solver.state == "new":
        return solver.first_move(), "first reveal"
    move = solver.next_move(rng)
    if move is None:
        load.stats.error("solver: no closed cell left while playing")
        return None
    if not move.certain and load.stats.counted(time.perf_counter()):
        load.stats.guesses += 1
    return move, move.action


async def _play(
    solver: LoadSolver,
    load: Load,
    rng: random.Random,
    send: Callable[[Move, str, int], Awaitable[bool]],
) -> None:
    """One game's moves, over either transport, until it ends or the run does. `send` plays a
    move (the move, the action it is timed as, its number for the `client_move_id`) and applies
    its answer to the solver; False: the game is left."""
    n = 0
    while solver.state in PLAYING and time.perf_counter() < load.stop_at:
        chosen = _next(solver, rng, load)
        if chosen is None:
            return
        move, action = chosen
        await _think(load, rng)
        n += 1
        if not await send(move, action, n):
            return
    if solver.state not in PLAYING:
        load.stats.ended(solver.state)


async def _http_move(
    account: Account, load: Load, solver: LoadSolver, move: Move, action: str, n: int
) -> bool:
    path = f"/api/games/{solver.id}/{move.action}"
    answer = await _post(load, account, path, _body(move, n), action)
    if answer is None:
        return False  # the game is left; the next create abandons it
    solver.apply(answer["changes"])
    solver.state = str(answer["game"]["state"])
    return True


async def _answer(ws: Any, cmid: str) -> dict[str, Any]:
    """The frame answering the move `cmid`: its `move` event, an `error` for it (or for no
    move: the throttle's), or a fresh `state` (the consumer re-read the game)."""
    while True:
        frame = json.loads(await ws.recv())
        kind = frame.get("type")
        if kind == "state":
            return dict(frame)
        if kind in ("move", "error") and frame.get("client_move_id") in (cmid, None):
            return dict(frame)


async def _ws_move(
    ws: Any, load: Load, solver: LoadSolver, move: Move, action: str, n: int
) -> bool:
    stats = load.stats
    sent = time.perf_counter()
    await ws.send(json.dumps({"action": move.action, **_body(move, n)}))
    try:
        frame = await asyncio.wait_for(_answer(ws, f"m{n}"), TIMEOUT)
    except TimeoutError:
        stats.error(f"{action}: socket, no answer in {TIMEOUT:.0f} s")
        return False
    done = time.perf_counter()
    if frame["type"] == "error":
        error = frame.get("error") or {}
        stats.error(f"{action}: socket error {error.get('code')}")
        return False
    if frame["type"] == "state":
        stats.error(f"{action}: socket re-read (a `state` frame)")
        solver.load(frame["game"])
        return True
    stats.record(action, sent, done)
    solver.apply(frame.get("changes", []))
    solver.state = str(frame["state"])
    return True


async def _play_ws(account: Account, load: Load, game: dict[str, Any], rng: random.Random) -> None:
    from websockets.exceptions import WebSocketException

    stats = load.stats
    url = f"ws://{HOST}:{load.ws_port}/ws/games/{game['id']}?token={account.token}"
    asked = time.perf_counter()
    try:
        async with game_socket(url, timeout=TIMEOUT, close_timeout=1) as (ws, hello):
            if hello.get("type") != "state":
                stats.error(f"connect: a {hello.get('type')!r} frame first")
                return
            stats.record("connect", asked, time.perf_counter())
            solver = LoadSolver(hello["game"])
            await _play(solver, load, rng, partial(_ws_move, ws, load, solver))
    except TimeoutError:
        stats.error(f"connect: socket, no answer in {TIMEOUT:.0f} s")
    except (OSError, WebSocketException) as exc:  # refused, or closed under the bot
        stats.error(f"socket: {type(exc).__name__}")


async def bot(account: Account, load: Load, rng: random.Random) -> None:
    """Games one after another until `load.stop_at`."""
    while time.perf_counter() < load.stop_at:
        level = rng.choice(load.levels)
        game = await _post(load, account, "/api/games", {"level": level}, "create")
        if game is None:
            await asyncio.sleep(0.2)
            continue
        if load.transport == "http":
            solver = LoadSolver(game)
            await _play(solver, load, rng, partial(_http_move, account, load, solver))
        else:
            await _play_ws(account, load, game, rng)
