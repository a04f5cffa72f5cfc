"""With the in-memory channel layer (`make run`), a publish from a plain thread (the race
clock's) reaches a watcher waiting on the server's loop at once, not when something else
happens to wake that loop (demineur_site.publish.bind_server_loop)."""

from __future__ import annotations

import asyncio
import threading

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
        # Nothing else wakes this loop: on the old path the message arrived only when the wait
        # timed out, which cancels the receive (a failure, never a slow pass).
        message = await asyncio.wait_for(layer.receive(channel), 30)
        got["seq"] = message["event"]["seq"]

    loop_thread = threading.Thread(target=lambda: asyncio.run(server()))
    loop_thread.start()
    try:
        assert ready.wait(30)
        clock = threading.Thread(
            target=publish.send_now, args=("game-x", {"type": "game.event", "event": {"seq": 7}})
        )
        clock.start()
        clock.join(30)
        loop_thread.join(30)
    finally:
        monkeypatch.setattr(publish, "_server_loop", None)
    assert got.get("seq") == 7


def test_a_synchronous_publish_inside_a_running_loop_is_sent_not_refused(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Sync code called on a thread whose loop is running (a view called by a test that drives
    Playwright's sync API; asgiref refuses async_to_sync there) before any server loop is bound:
    the committed write must not turn into a 500, and the event still goes out."""
    layer = InMemoryChannelLayer()
    monkeypatch.setattr(publish, "get_channel_layer", lambda: layer)
    monkeypatch.setattr(publish, "_server_loop", None)

    async def inside_a_loop() -> dict:
        channel = await layer.new_channel()
        await layer.group_add("game-y", channel)
        publish.send_now("game-y", {"type": "game.event", "event": {"seq": 3}})  # sync call
        return await asyncio.wait_for(layer.receive(channel), 30)

    message = asyncio.run(inside_a_loop())
    assert message["event"]["seq"] == 3
