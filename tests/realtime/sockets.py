"""Socket test helpers: communicators signed in three ways, and the leak check."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from accounts.models import User
from demineur_site.asgi import application
from games import services
from games.engine import Board
from games.models import Game

SITE_ORIGIN = "http://testserver"
TIMEOUT = 3
ENDED = ("won", "lost")

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
) -> WebsocketCommunicator:
    headers: list[tuple[bytes, bytes]] = []
    if host is not None:  # a real handshake always carries Host (the site's own origin)
        headers.append((b"host", host.encode()))
    if token is not None:
        headers.append((b"authorization", f"Token {token}".encode()))
    if origin is not None:
        headers.append((b"origin", origin.encode()))
    if cookie is not None:
        headers.append((b"cookie", cookie.encode()))
    if token_query is not None:
        path = f"{path}?{urlencode({'token': token_query})}"
    return WebsocketCommunicator(application, path, headers=headers)


def game_path(game: Game | str) -> str:
    return f"/ws/games/{game.id if isinstance(game, Game) else game}"


async def connected(comm: WebsocketCommunicator) -> dict[str, Any]:
    """Connect and return the first message (the `state` snapshot, or an error)."""
    ok, _ = await comm.connect(timeout=TIMEOUT)
    assert ok, "the handshake was refused"
    return await comm.receive_json_from(timeout=TIMEOUT)


async def next_of(comm: WebsocketCommunicator, kind: str) -> dict[str, Any]:
    message = await comm.receive_json_from(timeout=TIMEOUT)
    assert message["type"] == kind, message
    return message


async def layout(game: Game | str) -> list[str]:
    """The mines, read from the stored board (test side only): `*` mine, `.` closed safe,
    `o` opened, `F`/`M` flags."""

    def read() -> list[str]:
        game_id = game.id if isinstance(game, Game) else game
        return Board.decode(bytes(Game.objects.get(pk=game_id).board)).to_ascii()

    return await database_sync_to_async(read)()


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
        message = await player_socket.receive_json_from(timeout=3)
        received.append(message)
        opened.update((c["x"], c["y"]) for c in message.get("changes", []))
        if message["type"] == "ended":
            return received
        if message["type"] == "move" and message["state"] not in ENDED:
            rows = await layout(game)
            closed = [(x, y) for y, row in enumerate(rows) for x, ch in enumerate(row) if ch == "."]
            x, y = next(cell for cell in closed if cell not in opened)
            await player_socket.send_json_to({"action": "reveal", "x": x, "y": y})
