"""With the in-memory channel layer (`make run`), a publish from a plain thread (the race
clock's) reaches a watcher waiting on the server's loop at once, not when something else
happens to wake that loop (demineur_site.publish.bind_server_loop)."""

from __future__ import annotations

import asyncio
import threading
import time

from channels.layers import InMemoryChannelLayer

from demineur_site import publish


def test_a_publish_from_a_plain_thread_wakes_the_servers_loop(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    layer = InMemoryChannelLayer()
    monkeypatch.setattr(publish, "get_channel_layer", lambda: layer)
    got: dict[str, float] = {}
    ready = threading.Event()

    async def server() -> None:
        publish.bind_server_loop(asyncio.get_running_loop())
        channel = await layer.new_channel()
        await layer.group_add("game-x", channel)
        ready.set()
        message = await asyncio.wait_for(layer.receive(channel), 3)
        got["at"] = time.monotonic()
        got["seq"] = message["event"]["seq"]

    loop_thread = threading.Thread(target=lambda: asyncio.run(server()))
    loop_thread.start()
    try:
        assert ready.wait(3)
        sent = time.monotonic()
        clock = threading.Thread(
            target=publish.send_now, args=("game-x", {"type": "game.event", "event": {"seq": 7}})
        )
        clock.start()
        clock.join(3)
        loop_thread.join(3)
    finally:
        monkeypatch.setattr(publish, "_server_loop", None)
    assert got.get("seq") == 7
    assert got["at"] - sent < 0.5  # the old path delivered only when the loop woke (seconds)
