"""games.live.base.LeanConsumer replaces channels' AsyncConsumer.__call__ and .dispatch (and
so await_many_dispatch) for fan-out speed (docs/LIVE.md, "Fan-out to many watchers"). These
tests pin what it replaces, so that an upgrade of channels cannot silently change it.

When test_the_channels_code_the_lean_consumer_replaces_is_unchanged fails, channels changed
one of those functions. Read the new code (``inspect.getsource`` of each name in the failure)
and re-check that LeanConsumer still does everything it does, except the two things it skips
on purpose (``aclose_old_connections`` before each message, a new task per message):

* sets ``scope``, ``channel_layer``, ``channel_name`` and ``base_send`` (and anything new the
  handlers of AsyncWebsocketConsumer now read, such as ``channel_receive``);
* reads both the socket and the channel, and dispatches by ``get_handler_name``;
* ends quietly on ``StopConsumer`` (raised by ``websocket_disconnect``) and cleans up its tasks;
* raises ``ValueError`` for a message without a handler.

Then update the fingerprints below (and bench/live if the loop changed materially).
"""

from __future__ import annotations

import hashlib
import inspect
import textwrap
from typing import Any

import channels.consumer
from channels import utils
from channels.consumer import AsyncConsumer
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator

from games.live.base import LeanConsumer
from tests.support.personas import SOCKET_TESTS
from tests.support.sockets import connected, game_path, next_of, rest_move, socket

pytestmark = SOCKET_TESTS

# sha256 of textwrap.dedent(inspect.getsource(...)), checked against channels 4.3.2.
REPLACED = {
    "channels.consumer.AsyncConsumer.__call__": (
        AsyncConsumer.__call__,
        "3ece9d59f86a0968b1a7f7905fef2009e73fdfd0bbd50d631af9cb93b8bf3db3",
    ),
    "channels.consumer.AsyncConsumer.dispatch": (
        AsyncConsumer.dispatch,
        "fb797181cb7cf3404effd4dc775a8ab1e663b0bc38f2137aacc913a6b2d2e478",
    ),
    "channels.utils.await_many_dispatch": (
        utils.await_many_dispatch,
        "30ef889498560da3d72e6a695d2c17cf4a22b4948f2af6d53394343f4aace51d",
    ),
}


def fingerprint(function: Any) -> str:
    return hashlib.sha256(textwrap.dedent(inspect.getsource(function)).encode()).hexdigest()


def test_the_channels_code_the_lean_consumer_replaces_is_unchanged() -> None:
    changed = [name for name, (fn, known) in REPLACED.items() if fingerprint(fn) != known]
    assert changed == [], (
        f"channels changed {changed}: re-check games/socket_base.LeanConsumer against the new "
        "code (see this file's docstring), then update REPLACED"
    )


def test_the_lean_consumer_overrides_exactly_what_is_pinned() -> None:
    assert LeanConsumer.__call__ is not AsyncConsumer.__call__
    assert LeanConsumer.dispatch is not AsyncConsumer.dispatch
    # What it keeps from channels' WebSocket consumer, unchanged:
    for name in ("websocket_connect", "websocket_disconnect", "accept"):
        assert getattr(LeanConsumer, name) is getattr(AsyncWebsocketConsumer, name), name


class _Stock(AsyncWebsocketConsumer):  # type: ignore[misc]  # channels as shipped
    async def connect(self) -> None:
        await self.channel_layer.group_add("lean-control", self.channel_name)
        await self.accept()

    async def ping(self, message: dict[str, Any]) -> None:
        await self.send(text_data="pong")

    async def disconnect(self, code: int) -> None:
        await self.channel_layer.group_discard("lean-control", self.channel_name)


async def test_channels_dispatch_hops_to_close_old_connections_and_ours_does_not(
    alice, new_game, monkeypatch
):
    """The control proves the hop is still where channels makes it (else the pin above
    is stale); the game socket shows that the override skips it for every event."""
    hops: list[str] = []

    async def counted() -> None:
        hops.append("hop")

    monkeypatch.setattr(channels.consumer, "aclose_old_connections", counted)
    layer = get_channel_layer()

    stock = WebsocketCommunicator(_Stock.as_asgi(), "/stock")
    assert (await stock.connect())[0]
    await layer.group_send("lean-control", {"type": "ping"})
    assert await stock.receive_from(timeout=3) == "pong"
    assert len(hops) >= 2  # the connect and the ping each hopped
    await stock.disconnect()

    hops.clear()
    game = await new_game(alice)
    watcher = socket(game_path(game))
    await connected(watcher)
    for _ in range(3):  # the first tap, then two accepted no-ops: three events to dispatch
        await rest_move(alice, game, "reveal", 4, 4)
    assert [(await next_of(watcher, "move"))["seq"] for _ in range(3)] == [1, 2, 3]
    assert hops == []
    await watcher.disconnect()
