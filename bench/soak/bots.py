"""Random players that use only the public API, over REST and over the socket.

A player starts a game of its level (`POST /api/games`), then plays moves until the game ends
and starts the next one. Each move is chosen from what the API showed it (the `board` of the
Game, then each move's `changes`): mostly a reveal of a random closed cell, sometimes a flag
on a closed cell or a chord on an opened number. Nothing reads the layout.

Every move carries a fresh `client_move_id`. When a move gets no definite answer (the
connection was refused or cut, the socket closed, a 5xx, no answer in time), the player sends
the SAME move with the SAME `client_move_id` again until it gets one: the server applies it at
most once and answers a replay with the original `seq` (API.md, Conventions). Every move
answered 200 (REST) or by its `move` event (socket) is written into the `Ledger` as
(game id, seq, client_move_id); afterwards `checks.lost_moves` looks each one up in the
database.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from bench.harness.clients import HOST, connect_game, http_post

LEVELS = ("beginner", "intermediate", "hard", "expert", "extreme", "marathon")
ANSWER_TIMEOUT = 10.0  # seconds without an answer before a move is sent again
ENDED = ("won", "lost")


@dataclass
class Ledger:
    """What the players sent, what the server acknowledged, and every error, by kind."""

    attempts: int = 0  # move requests and frames sent, retries included
    moves: int = 0  # distinct moves (client_move_ids)
    acked: dict[str, tuple[str, int]] = field(default_factory=dict)  # cmid -> (game, seq)
    acked_rest: int = 0
    acked_socket: int = 0
    replays: int = 0  # acknowledgements that were replays of a retried client_move_id
    games: int = 0
    games_ended: int = 0
    levels: Counter[str] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)
    conflicts: list[str] = field(default_factory=list)  # one cmid acked with two seqs
    unexpected: list[str] = field(default_factory=list)  # answers no correct server gives

    def ack(self, cmid: str, game: str, seq: int, door: str, replayed: bool) -> None:
        before = self.acked.get(cmid)
        if before is not None:
            if before != (game, seq):
                self.conflicts.append(f"{cmid}: acknowledged as {before} and as {(game, seq)}")
            return
        self.acked[cmid] = (game, seq)
        if door == "rest":
            self.acked_rest += 1
        else:
            self.acked_socket += 1
        if replayed:
            self.replays += 1

    def error(self, kind: str, detail: str = "") -> None:
        self.errors[kind] += 1
        if kind.startswith("unexpected") and len(self.unexpected) < 50:
            self.unexpected.append(f"{kind}: {detail[:300]}")

    def summary(self) -> str:
        errors = ", ".join(f"{k} {v}" for k, v in self.errors.most_common()) or "none"
        return (
            f"moves {self.moves} (sent {self.attempts} times), acknowledged {len(self.acked)} "
            f"(REST {self.acked_rest}, socket {self.acked_socket}, replays {self.replays}), "
            f"games {self.games} ({self.games_ended} ended); errors: {errors}"
        )


# Answers after which the player sends the move again (counted in `post`: 503 is what an
# outage explains, a 500 is recorded as unexpected).
def _transient_status(status: int) -> bool:
    return status >= 500


class Board:
    """What the player knows of its game: the board strings of the API, then the changes."""

    def __init__(self, game: dict[str, Any]) -> None:
        self.id = str(game["id"])
        self.width = int(game["width"])
        self.height = int(game["height"])
        self.state = str(game["state"])
        self.seq = int(game["seq"])
        self.cells: list[list[str]] = [["#"] * self.width for _ in range(self.height)]
        self.load(game)

    def load(self, game: dict[str, Any]) -> None:
        self.state = str(game["state"])
        self.seq = int(game["seq"])
        rows = game.get("board")
        if rows:
            self.cells = [list(row) for row in rows]

    def apply(self, changes: list[dict[str, Any]]) -> None:
        for c in changes:
            self.cells[int(c["y"])][int(c["x"])] = str(c["v"])

    def choose(self, rng: random.Random) -> dict[str, Any]:
        closed = [(x, y) for y, row in enumerate(self.cells) for x, v in enumerate(row) if v == "#"]
        numbers = [
            (x, y) for y, row in enumerate(self.cells) for x, v in enumerate(row) if v in "12345678"
        ]
        roll = rng.random()
        if self.state == "playing" and closed and roll < 0.08:
            x, y = rng.choice(closed)
            return {"action": "flag", "x": x, "y": y, "flagged": True}
        if self.state == "playing" and numbers and roll < 0.14:
            x, y = rng.choice(numbers)
            return {"action": "chord", "x": x, "y": y}
        if not closed:  # only flags left closed: reveal one (a no-op) or a number
            x, y = rng.randrange(self.width), rng.randrange(self.height)
        else:
            x, y = rng.choice(closed)
        return {"action": "reveal", "x": x, "y": y}


@dataclass
class Load:
    """What every player of one run shares: the servers' ports (REST, sockets), the levels
    played, the pause between two moves, the ledger and the signal to stop."""

    http_port: int
    ws_port: int
    levels: tuple[str, ...]
    think: float  # seconds a player waits between its moves
    ledger: Ledger = field(default_factory=Ledger)
    stop: asyncio.Event = field(default_factory=asyncio.Event)


class Player:
    def __init__(self, username: str, token: str, load: Load, *, seed: int) -> None:
        self.username = username
        self.token = token
        self.load = load
        self.rng = random.Random(seed)
        self.n = 0

    def next_cmid(self) -> str:
        self.n += 1
        return f"{self.username}-{self.n}"

    async def pause(self, seconds: float) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.load.stop.wait(), seconds)

    async def post(self, path: str, body: dict[str, Any] | None) -> tuple[int, Any] | None:
        """One POST; None when no HTTP answer came (refused, cut, timed out): counted."""
        try:
            status, raw = await asyncio.wait_for(
                http_post(HOST, self.load.http_port, path, self.token, body), ANSWER_TIMEOUT
            )
        except ConnectionRefusedError:
            self.load.ledger.error("http: connection refused")
            return None
        except TimeoutError:
            self.load.ledger.error("http: no answer in time")
            return None
        except (OSError, IndexError, ValueError):
            self.load.ledger.error("http: connection cut before an answer")
            return None
        try:
            data = json.loads(raw) if raw else None
        except ValueError:
            data = None
        if data is None:
            # The status line came but not the whole body (the worker died while writing it):
            # the move may be stored, but its seq is unknown; the player sends it again.
            self.load.ledger.error(f"http: {status} cut before the whole body")
            return None
        if status >= 500:
            code = data.get("error", {}).get("code") if isinstance(data, dict) else None
            # 503 is what an outage explains (API.md error body); a 500 is a bug.
            prefix = "" if status in (502, 503, 504) else "unexpected "
            self.load.ledger.error(f"{prefix}http {status} {code}", repr(data))
        return status, data

    async def new_game(self) -> Board | None:
        level = self.rng.choice(self.load.levels)
        while not self.load.stop.is_set():
            answer = await self.post("/api/games", {"level": level})
            if answer is not None and answer[0] == 201:
                self.load.ledger.games += 1
                self.load.ledger.levels[level] += 1
                return Board(answer[1])
            if answer is not None and not _transient_status(answer[0]):
                self.load.ledger.error(f"unexpected http {answer[0]} on create", repr(answer[1]))
            await self.pause(0.5)
        return None

    async def run(self) -> None:
        """Games one after another, until the stop signal."""
        while not self.load.stop.is_set():
            board = await self.new_game()
            if board is None:
                return
            await self.play_game(board)
            if board.state in ENDED:
                self.load.ledger.games_ended += 1

    async def play_game(self, board: Board) -> None:
        raise NotImplementedError


class RestPlayer(Player):
    async def play_game(self, board: Board) -> None:
        while board.state not in ENDED and not self.load.stop.is_set():
            move = board.choose(self.rng)
            cmid = self.next_cmid()
            self.load.ledger.moves += 1
            if not await self.play(board, move, cmid):
                return
            await self.pause(self.load.think)

    async def play(self, board: Board, move: dict[str, Any], cmid: str) -> bool:
        """Send the move until it has a definite answer; False when the game cannot go on."""
        body = {k: v for k, v in move.items() if k != "action"} | {"client_move_id": cmid}
        path = f"/api/games/{board.id}/{move['action']}"
        retried = False
        while not self.load.stop.is_set():
            self.load.ledger.attempts += 1
            answer = await self.post(path, body)
            if answer is None or _transient_status(answer[0]):
                retried = True
                await self.pause(0.3)
                continue
            status, data = answer
            if status == 200:
                self.load.ledger.ack(cmid, board.id, int(data["seq"]), "rest", retried)
                board.load(data["game"])
                return True
            self.load.ledger.error(f"unexpected http {status} on a move", repr(data))
            return False
        return False


class SocketPlayer(Player):
    """Creates its games over REST, plays them over `/ws/games/{id}` with its token."""

    async def connect(self, board: Board) -> Any | None:
        while not self.load.stop.is_set():
            try:
                ws, first = await connect_game(
                    f"ws://{HOST}:{self.load.ws_port}/ws/games/{board.id}",
                    token=self.token,
                    timeout=ANSWER_TIMEOUT,
                )
            except ConnectionRefusedError:
                self.load.ledger.error("socket: connection refused")
            except TimeoutError:
                self.load.ledger.error("socket: no answer in time at connect")
            except Exception as exc:  # refused handshake, closed, reset: all transient here
                self.load.ledger.error(f"socket: connect failed ({type(exc).__name__})")
            else:
                if first.get("type") == "state":
                    board.load(first["game"])
                    return ws
                await ws.close()
                code = (first.get("error") or {}).get("code")
                if first.get("type") == "error" and code == "service_unavailable":
                    self.load.ledger.error("socket error service_unavailable at connect")
                else:
                    self.load.ledger.error("unexpected socket first frame", repr(first))
            await self.pause(0.5)
        return None

    async def play_game(self, board: Board) -> None:
        ws = await self.connect(board)
        try:
            while ws is not None and board.state not in ENDED and not self.load.stop.is_set():
                move = board.choose(self.rng)
                cmid = self.next_cmid()
                self.load.ledger.moves += 1
                outcome = await self.play(ws, board, move, cmid)
                while outcome == "reconnect" and not self.load.stop.is_set():
                    await ws.close()
                    ws = await self.connect(board)
                    if ws is None:
                        return
                    outcome = await self.play(ws, board, move, cmid, retried=True)
                if outcome == "give up":
                    return
                await self.pause(self.load.think)
        finally:
            if ws is not None:
                await ws.close()

    async def play(
        self, ws: Any, board: Board, move: dict[str, Any], cmid: str, retried: bool = False
    ) -> str:
        """Send one move and wait for its event: "ok", "reconnect" (send it again on a new
        socket) or "give up" (an answer that leaves nothing to do on this game)."""
        frame = json.dumps(move | {"client_move_id": cmid})
        while not self.load.stop.is_set():
            self.load.ledger.attempts += 1
            try:
                await ws.send(frame)
                deadline = time.monotonic() + ANSWER_TIMEOUT
                while True:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        raise TimeoutError
                    message = json.loads(await asyncio.wait_for(ws.recv(), left))
                    kind = message.get("type")
                    if kind == "move" and int(message["seq"]) > board.seq:
                        # The player is the only one moving its game: the next move event
                        # after its frame is its own move (a replay says so explicitly).
                        if message.get("client_move_id") not in (None, cmid):
                            self.load.ledger.error("unexpected socket replay", repr(message))
                            return "give up"
                        self.load.ledger.ack(
                            cmid, board.id, int(message["seq"]), "socket",
                            retried or bool(message.get("replayed")),
                        )  # fmt: skip
                        board.apply(message.get("changes", []))
                        board.seq = int(message["seq"])
                        board.state = str(message.get("state", board.state))
                        if board.state in ENDED:
                            await self.drain_ended(ws, board)
                        return "ok"
                    if kind == "move" and message.get("replayed"):
                        self.load.ledger.ack(cmid, board.id, int(message["seq"]), "socket", True)
                        return "ok"
                    if kind == "ended":
                        board.load(message["game"])
                        continue
                    if kind == "state":
                        # A lost event: the server re-read the game. Whether our move is in it
                        # the state does not say, so the move is sent again: a replay answers
                        # with its seq if it was applied (even if it ended the game: only this
                        # player moves it), else it is applied now.
                        board.load(message["game"])
                        retried = True
                        break
                    if kind == "error":
                        code = message.get("error", {}).get("code")
                        if code == "service_unavailable":  # PostgreSQL down: retry
                            self.load.ledger.error(f"socket error {code}")
                            retried = True
                            await self.pause(0.3)
                            break
                        self.load.ledger.error(f"unexpected socket error {code}", repr(message))
                        return "give up"
            except TimeoutError:
                self.load.ledger.error("socket: no answer in time")
                return "reconnect"
            except Exception as exc:  # the socket closed or broke: the server went away
                self.load.ledger.error(f"socket: closed during a move ({type(exc).__name__})")
                return "reconnect"
        return "give up"

    async def drain_ended(self, ws: Any, board: Board) -> None:
        """The `ended` message follows the last move with the same seq; read it if it comes."""
        try:
            while True:
                message = json.loads(await asyncio.wait_for(ws.recv(), 2.0))
                if message.get("type") == "ended":
                    board.load(message["game"])
                    return
        except Exception:
            return


def make_players(
    accounts: list[dict[str, str]], load: Load, *, socket_share: float, seed: int = 1
) -> list[Player]:
    """The first `socket_share` of the accounts play over sockets, the others over REST."""
    sockets = round(len(accounts) * socket_share)
    out: list[Player] = []
    for i, account in enumerate(accounts):
        kind: type[Player] = SocketPlayer if i < sockets else RestPlayer
        out.append(kind(account["username"], account["token"], load, seed=seed * 1000 + i))
    return out
