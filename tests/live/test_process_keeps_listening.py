"""A live process stays subscribed on every Redis host while it has no socket (games.live.
redis_watch.keep_listening): channels-redis's pub/sub reader looks for messages only while the
process is subscribed to something, and otherwise sleeps between looks, so a lone player's
first move after the previous game's socket closed came back late (docs/PERFORMANCE.md, "The
clocks")."""

from __future__ import annotations

import asyncio

import pytest
from channels.layers import get_channel_layer
from django.conf import settings

from games.live import redis_watch

pytestmark = pytest.mark.skipif(
    not settings.REDIS_URL,
    reason="the in-memory channel layer (no REDIS_URL) has no Redis reader to keep awake",
)


def _shards() -> list[object]:
    return list(get_channel_layer()._get_layer()._shards)


async def test_the_process_stays_subscribed_after_its_last_socket_closes() -> None:
    layer = get_channel_layer()
    made = await redis_watch.keep_listening()
    assert made >= len(_shards())
    assert await redis_watch.keep_listening() == 0  # once per event loop
    # A socket comes and goes: its channel and its group are subscribed, then dropped.
    channel = await layer.new_channel()
    await layer.group_add("keep-listening-test", channel)
    await layer.group_discard("keep-listening-test", channel)
    reader = asyncio.ensure_future(layer.receive(channel))
    await asyncio.sleep(0)
    reader.cancel()  # what channels does when a consumer stops
    with pytest.raises(asyncio.CancelledError):
        await reader
    for shard in _shards():
        assert shard._pubsub is not None and shard._pubsub.subscribed  # type: ignore[attr-defined]
    # And a message to a new socket's group is read, not left for a sleeping reader.
    second = await layer.new_channel()
    await layer.group_add("keep-listening-test", second)
    await layer.group_send("keep-listening-test", {"type": "hello"})
    assert await asyncio.wait_for(layer.receive(second), 5) == {"type": "hello"}
    await layer.flush()


async def test_without_the_pubsub_layer_there_is_nothing_to_keep(settings: object) -> None:
    from channels.layers import channel_layers

    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}  # type: ignore[attr-defined]
    channel_layers.backends.clear()
    try:
        assert await redis_watch.keep_listening() == 0
    finally:
        channel_layers.backends.clear()
