"""No token in the socket server's logs, and an over-long frame closed before the
application, against a real uvicorn server running in this test's event loop.

* uvicorn logs every WebSocket handshake *with its query string* at INFO on "uvicorn.error"
  ('127.0.0.1:5555 - "WebSocket /ws/games/…?token=<key>" [accepted]'), with or without
  --no-access-log. games.live.auth overwrites the token in the scope uvicorn logs from, so no
  log line of the server, of channels or of ours carries the key.
* uvicorn's --ws-max-size (the Makefile's 4096) closes an over-long frame with 1009 before
  the application sees it.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import pytest
import uvicorn
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from demineur_site.asgi import application
from deploy.processes import free_port
from tests.support.personas import SOCKET_TESTS
from tests.support.sockets import socket as ws

pytestmark = SOCKET_TESTS


class InProcessServer:
    def __init__(self, **options: Any) -> None:
        self.port = free_port()
        config = uvicorn.Config(
            application,
            host="127.0.0.1",
            port=self.port,
            lifespan="off",
            log_config=None,  # leave logging to pytest's caplog
            log_level="debug",
            **options,
        )
        self.server = uvicorn.Server(config)
        self.task: asyncio.Task[None] | None = None

    async def __aenter__(self) -> InProcessServer:
        self.task = asyncio.ensure_future(self.server.serve())
        for _ in range(500):
            if self.server.started:
                return self
            await asyncio.sleep(0.01)
        raise RuntimeError("uvicorn did not start")

    async def __aexit__(self, *exc: Any) -> None:
        self.server.should_exit = True
        assert self.task is not None
        await asyncio.wait_for(self.task, 10)

    def url(self, path: str) -> str:
        return f"ws://127.0.0.1:{self.port}{path}"


async def test_no_log_line_carries_a_query_string_token(alice, alice_token, new_game, caplog):
    caplog.set_level(logging.DEBUG)
    game = await new_game(alice)
    wrong = "0123456789abcdef-not-a-real-key"
    async with InProcessServer() as server:
        async with connect(server.url(f"/ws/games/{game.id}?token={alice_token}")) as player:
            assert json.loads(await player.recv())["type"] == "state"
            await player.send(json.dumps({"action": "reveal", "x": 4, "y": 4}))
            assert json.loads(await player.recv())["type"] == "move"
        async with connect(server.url(f"/ws/live?x=1&token={alice_token}&y=2")) as lobby:
            assert json.loads(await lobby.recv())["type"] == "live"
        async with connect(server.url(f"/ws/games/{game.id}?token={wrong}")) as refused:
            error = json.loads(await refused.recv())
            assert error["error"]["code"] == "authentication_failed"
            with pytest.raises(ConnectionClosed):
                await refused.recv()
    lines = [record.getMessage() for record in caplog.records]
    handshakes = [line for line in lines if '"WebSocket /ws/' in line]
    assert len(handshakes) >= 3, lines  # the server did log each handshake...
    assert all("token=[REDACTED]" in line for line in handshakes), handshakes
    for key in (alice_token, wrong):  # ...and no line anywhere carries a key
        assert not [line for line in lines if key in line]


async def test_the_server_drops_a_frame_over_ws_max_size_before_the_application(alice, new_game):
    game = await new_game(alice)
    async with (
        InProcessServer(ws_max_size=4096) as server,
        connect(server.url(f"/ws/games/{game.id}"), max_size=None) as watcher,
    ):
        assert json.loads(await watcher.recv())["type"] == "state"
        await watcher.send("x" * 5000)
        with pytest.raises(ConnectionClosed) as closed:
            while True:  # nothing from the application: uvicorn closes first
                message = json.loads(await watcher.recv())
                assert message["type"] != "error", message
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009


async def test_the_servers_own_scope_loses_the_token_once_it_is_read(alice, alice_token, new_game):
    """What the server logs from: the scope dict it handed the application. The key is gone
    from it as soon as the handshake is authenticated, whatever logging filters exist."""
    game = await new_game(alice)
    comm = ws(f"/ws/games/{game.id}?x=1&token={alice_token}")
    ok, _ = await comm.connect(timeout=3)
    assert ok and (await comm.receive_json_from(timeout=3))["type"] == "state"
    query = comm.scope["query_string"].decode()
    assert alice_token not in query
    assert query == "x=1&token=[REDACTED]"
    await comm.send_json_to({"action": "reveal", "x": 4, "y": 4})  # still signed in as alice
    assert (await comm.receive_json_from(timeout=3))["type"] == "move"
    await comm.disconnect()
