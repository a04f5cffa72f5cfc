"""Sockets (API.md, Live updates), async: `GameSocket` follows one game and plays on it,
`RaceSocket` follows a race. Both keep the order of the server's `seq`: a frame that skips
one means frames were missed, so the socket re-reads the whole state over REST and yields it
as a `state` frame. A socket that closes before its game (or race) ended is reopened with
back-off; only when that fails does iteration raise `StreamEnded` — an early end is never
mistaken for the end of the game."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator, Mapping
from typing import Any, ClassVar

import websockets
from websockets.asyncio.client import ClientConnection, connect

from .aio import AsyncClient
from .errors import ApiError, NotFound, NotSignedIn, StreamEnded, error_for

# Close codes of the server (docs/LIVE.md) after which reconnecting cannot help.
FINAL_CLOSES = {4401: NotSignedIn, 4403: ApiError, 4404: NotFound}
GAME_OVER = {"won", "lost"}
RACE_OVER = {"finished", "cancelled"}


def socket_url(base_url: str, path: str) -> str:
    if base_url.startswith("https://"):
        return "wss://" + base_url[len("https://") :] + path
    return "ws://" + base_url.removeprefix("http://") + path


class _Followed:
    """The frames of one socket path in `seq` order, reconnecting while the thing they follow
    is not over. Subclasses say what they follow (`_kind`: its path /ws/{kind}s/{id} and the
    key of its state frame), the states it is over in, the frame types that end it, and how
    to read it over REST."""

    _kind: ClassVar[str]
    _over_states: ClassVar[set[str]]
    _end_types: ClassVar[tuple[str, ...]]

    def __init__(
        self,
        api: AsyncClient,
        followed_id: str,
        *,
        reconnects: int = 5,
        receive_timeout: float = 60.0,
    ) -> None:
        self.api = api
        self.path = f"/ws/{self._kind}s/{followed_id}"
        self.reconnects = reconnects
        self.receive_timeout = receive_timeout
        self.seq = 0
        self.over = False
        self._ws: ClientConnection | None = None

    async def _read(self) -> Mapping[str, Any]:
        """What the socket follows, read over REST."""
        raise NotImplementedError

    async def _state(self) -> dict[str, Any]:
        followed = await self._read()
        return {"type": "state", "seq": followed.get("seq", 0), self._kind: followed}

    def _ends(self, frame: dict[str, Any]) -> bool:
        if frame.get("type") in self._end_types:
            return True
        followed = frame.get(self._kind)
        return (
            frame.get("type") == "state"
            and isinstance(followed, dict)
            and followed.get("state") in self._over_states
        )

    async def _open(self) -> ClientConnection:
        extra = {"Authorization": f"Token {self.api.token}"} if self.api.token else {}
        ws = await connect(
            socket_url(self.api.base_url, self.path), additional_headers=extra, open_timeout=10
        )
        self._ws = ws
        return ws

    async def close(self) -> None:
        if self._ws is not None:
            await self._ws.close()

    async def __aenter__(self) -> _Followed:
        await self._open()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def frames(self) -> AsyncIterator[dict[str, Any]]:
        """Every frame in order until the end (the `ended` frame is the last one yielded)."""
        failures = 0
        while not self.over:
            try:
                ws = self._ws or await self._open()
                while True:
                    raw = await asyncio.wait_for(ws.recv(), timeout=self.receive_timeout)
                    frame = json.loads(raw)
                    failures = 0
                    for out in await self._ordered(frame):
                        yield out
                        if self.over:
                            return
            except (websockets.WebSocketException, OSError, TimeoutError) as exc:
                self._ws = None
                code = getattr(getattr(exc, "rcvd", None), "code", None)
                if code in FINAL_CLOSES:
                    raise FINAL_CLOSES[code](code, "socket_closed", f"closed with {code}") from exc
                failures += 1
                if failures > self.reconnects:
                    raise StreamEnded(f"{self.path}: closed before the end ({exc})") from exc
                await asyncio.sleep(min(0.5 * 2**failures, 10.0))
                # The state is read again on reconnect (the `state` frame); nothing is lost.

    async def _ordered(self, frame: dict[str, Any]) -> list[dict[str, Any]]:
        if frame.get("type") == "error":
            if frame.get("client_move_id"):
                return [frame]  # a refusal of one of our moves: the caller matches it
            raise error_for(int(frame.get("status", 400)), frame)
        seq = frame.get("seq")
        if frame.get("replayed"):
            return [frame]  # the original answer of a move sent again: its own (older) seq
        if frame.get("type") == "state" or not isinstance(seq, int):
            self.seq = seq if isinstance(seq, int) else self.seq
        elif seq < self.seq or (seq == self.seq and frame.get("type") != "ended"):
            return []  # already seen (a frame sent before our re-read)
        elif frame.get("type") == "ended":
            self.seq = seq  # right after the move that ended the game, with that move's seq
        elif seq > self.seq + 1:
            state = await self._state()
            self.seq = int(state.get("seq", seq))
            self.over = self._ends(state)
            return [state]
        else:
            self.seq = seq
        self.over = self._ends(frame)
        return [frame]


class GameSocket(_Followed):
    """`/ws/games/{id}`: watch a game, and, for its player, play it:

    async with GameSocket(api, game_id) as game:
        await game.send("reveal", 3, 4)
        async for frame in game.frames(): ...
    """

    _kind = "game"
    _over_states = GAME_OVER
    _end_types = ("ended", "discarded")

    def __init__(self, api: AsyncClient, game_id: str, **options: Any) -> None:
        super().__init__(api, game_id, **options)
        self.game_id = game_id

    async def _read(self) -> Mapping[str, Any]:
        return await self.api.games.get(self.game_id)

    async def send(self, action: str, x: int, y: int, **extra: Any) -> str:
        """Sends a move; returns its client_move_id (the answer comes as a `move` frame, or an
        `error` frame with the same id). Re-sending the same id never plays it twice."""
        move_id = str(extra.pop("client_move_id", None) or uuid.uuid4().hex)
        frame = json.dumps({"action": action, "x": x, "y": y, "client_move_id": move_id, **extra})
        try:
            ws = self._ws or await self._open()
            await ws.send(frame)
        except (websockets.WebSocketException, OSError):
            # frames() reconnects and yields the state: decide again from there.
            self._ws = None
        return move_id


class RaceSocket(_Followed):
    """`/ws/races/{id}`: the race's events (joined, countdown, started, progress, ended)."""

    _kind = "race"
    _over_states = RACE_OVER
    _end_types = ("ended",)

    def __init__(self, api: AsyncClient, race_id: str, **options: Any) -> None:
        super().__init__(api, race_id, **options)
        self.race_id = race_id

    async def _read(self) -> Mapping[str, Any]:
        return await self.api.races.get(self.race_id)
