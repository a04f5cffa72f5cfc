"""Socket test helpers: in-process communicators signed in every way a client can be, the
first frames, the leak check, and a game played to its end over the player's socket.

The communicator can also set what a real server puts in the scope (the peer address, the
scheme) and any extra header, for the WebSocket-edge security tests."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlencode

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from accounts.models import User
from demineur_site.asgi import application
from games.play import services
from games.play.models import Game
from tests.support import boards
from tests.support.streams import request_headers

SITE_ORIGIN = "http://testserver"
TIMEOUT = 3
ENDED = ("won", "lost")


def socket(
    path: str,
    *,
    token: str | None = None,
    token_query: str | None = None,
    origin: str | None = None,
    cookie: str | None = None,
    host: str | None = "testserver",
    client: tuple[str, int] | None = None,
    scheme: str | None = None,
    headers: list[tuple[str, str]] | None = None,
) -> WebsocketCommunicator:
    # A real handshake always carries Host (the site's own origin); None leaves it out.
    raw = request_headers(host=host, token=token, origin=origin, cookie=cookie, headers=headers)
    if token_query is not None:
        path = f"{path}?{urlencode({'token': token_query})}"
    extra: dict[str, Any] = {}
    if client is not None:
        extra["client"] = client
    if scheme is not None:
        extra["scheme"] = scheme

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> Any:
        return await application({**scope, **extra}, receive, send)

    return WebsocketCommunicator(app if extra else application, path, headers=raw)


async def watching_race(race_id: str) -> tuple[WebsocketCommunicator, dict[str, Any]]:
    """A spectator's socket on a race, connected: the socket and its first frame."""
    spectator = socket(f"/ws/races/{race_id}")
    return spectator, await connected(spectator)


def game_path(game: Game | str) -> str:
    return f"/ws/games/{game.id if isinstance(game, Game) else game}"


@pytest.fixture
def new_game() -> Callable[..., Awaitable[Game]]:
    """A factory of new games (not started) for socket tests: `await new_game(alice)`."""

    async def make(player: User, level: str = "beginner") -> Game:
        game: Game = await database_sync_to_async(services.game_create)(player=player, level=level)
        return game

    return make


async def connected(comm: WebsocketCommunicator) -> dict[str, Any]:
    """Connect and return the first message (the `state` snapshot, or an error)."""
    ok, _ = await comm.connect(timeout=TIMEOUT)
    assert ok, "the handshake was refused"
    return await comm.receive_json_from(timeout=TIMEOUT)


async def connected_player(game: Game, token: str) -> WebsocketCommunicator:
    """The player's socket, signed in with `token`, connected and past its `state` snapshot."""
    player = socket(game_path(game), token=token)
    await connected(player)
    return player


async def player_and_watcher(
    game: Game, token: str
) -> tuple[WebsocketCommunicator, WebsocketCommunicator]:
    """The player's socket (signed in with `token`) and an anonymous watcher's, both connected
    and past their `state` snapshot."""
    player = await connected_player(game, token)
    watcher = socket(game_path(game))
    await connected(watcher)
    return player, watcher


async def only_its_player_watches(
    game_id: str, player_token: str, other_token: str, refusal: str
) -> dict[str, Any]:
    """Another player's socket and an anonymous one are refused with the error `refusal` and
    closed with 4403; the player's own socket gets its `state` with the board. Returns that
    `state` frame."""
    for intruder in (socket(game_path(game_id), token=other_token), socket(game_path(game_id))):
        first = await connected(intruder)
        assert first["type"] == "error" and first["error"]["code"] == refusal
        _, code = await until_closed(intruder)
        assert code == 4403
    own = socket(game_path(game_id), token=player_token)
    state = await connected(own)
    assert state["type"] == "state" and state["game"]["board"] is not None
    await own.disconnect()
    return state


async def next_of(comm: WebsocketCommunicator, kind: str) -> dict[str, Any]:
    message = await comm.receive_json_from(timeout=TIMEOUT)
    assert message["type"] == kind, message
    return message


async def until_closed(comm: WebsocketCommunicator) -> tuple[list[dict[str, Any]], int | None]:
    """Every text frame (decoded) up to the server's close, and the close code."""
    frames: list[dict[str, Any]] = []
    while True:
        output = await comm.receive_output(timeout=TIMEOUT)
        if output["type"] == "websocket.close":
            return frames, output.get("code")
        assert output["type"] == "websocket.send", output
        frames.append(json.loads(output["text"]))


async def layout(game: Game | str) -> list[str]:
    """boards.layout from async code (test side only)."""
    rows: list[str] = await database_sync_to_async(boards.layout)(game)
    return rows


async def rest_move(player: User, game: Game, action: str, x: int, y: int, **extra: Any) -> Any:
    return await database_sync_to_async(services.game_move)(
        game_id=game.id, player=player, action=action, x=x, y=y, **extra
    )


def leaks(message: dict[str, Any]) -> list[str]:
    """What a message shows about closed cells (or a paused board) that it must not."""
    found: list[str] = []
    kind = message.get("type")
    game = message.get("game")
    state = message.get("state") or (game or {}).get("state")
    if kind == "ended" or state in ENDED:
        return found
    if game is not None:
        rows = game.get("board")
        if game["state"] == "paused" and rows is not None:
            found.append("a paused game shows its board")
        for row in rows or []:
            if set(row) & set("*X!"):
                found.append(f"a board row shows mines: {row}")
        if game.get("result_stats") is not None:
            found.append("result_stats before the end")
    for change in message.get("changes", []):
        if change["v"] in ("*", "X", "!"):
            found.append(f"a change shows a mine: {change}")
    if kind == "paused" and "board" in json.dumps(message):
        found.append("a paused message carries a board")
    return found


async def play_to_the_end(player_socket: WebsocketCommunicator, game: Game) -> list[dict[str, Any]]:
    """Reveal the middle, then every safe cell still closed, over the player's socket.
    Returns every message the player's socket received, `ended` last."""
    received: list[dict[str, Any]] = []
    await player_socket.send_json_to(
        {"action": "reveal", "x": game.width // 2, "y": game.height // 2}
    )
    opened: set[tuple[int, int]] = set()
    while True:
        message = await player_socket.receive_json_from(timeout=TIMEOUT)
        received.append(message)
        opened.update((c["x"], c["y"]) for c in message.get("changes", []))
        if message["type"] == "ended":
            return received
        if message["type"] == "move" and message["state"] not in ENDED:
            closed = boards.cells(await layout(game), ".")
            x, y = next(cell for cell in closed if cell not in opened)
            await player_socket.send_json_to({"action": "reveal", "x": x, "y": y})
