"""Helpers of the WebSocket-edge security tests (tests/security/test_ws_*.py).

The socket fixtures (tokens, session cookies, new games) are those of tests/realtime; the
communicator here can also set what a real server puts in the scope (the peer address, the
scheme) and any extra header.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

from channels.testing import WebsocketCommunicator

from demineur_site.asgi import application
from tests.realtime.conftest import (  # noqa: F401  (fixtures used by the test modules)
    _close_thread_connections,
    alice_token,
    bob_token,
    new_game,
    session_cookie,
)

TIMEOUT = 3
SITE_ORIGIN = "http://testserver"


def ws(
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
    raw: list[tuple[bytes, bytes]] = []
    if host is not None:
        raw.append((b"host", host.encode()))
    if token is not None:
        raw.append((b"authorization", f"Token {token}".encode()))
    if origin is not None:
        raw.append((b"origin", origin.encode()))
    if cookie is not None:
        raw.append((b"cookie", cookie.encode()))
    for name, value in headers or []:
        raw.append((name.lower().encode(), value.encode()))
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


async def until_closed(comm: WebsocketCommunicator) -> tuple[list[dict[str, Any]], int | None]:
    """Every text frame (decoded) up to the server's close, and the close code."""
    frames: list[dict[str, Any]] = []
    while True:
        output = await comm.receive_output(timeout=TIMEOUT)
        if output["type"] == "websocket.close":
            return frames, output.get("code")
        assert output["type"] == "websocket.send", output
        frames.append(json.loads(output["text"]))


def game_path(game: Any) -> str:
    return f"/ws/games/{game.id}"
