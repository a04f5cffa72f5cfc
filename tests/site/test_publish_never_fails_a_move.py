"""A publish from a plain thread onto a server loop that does not answer in time gives up and
logs: the committed move it follows must never become a 500 (seen under load on `make run`)."""

from __future__ import annotations

import asyncio
import threading
import time

from channels.layers import InMemoryChannelLayer

from demineur_site import publish


def test_a_publish_the_servers_loop_cannot_take_in_time_is_dropped_not_raised(monkeypatch, caplog):
    layer = InMemoryChannelLayer()
    monkeypatch.setattr(publish, "get_channel_layer", lambda: layer)
    monkeypatch.setattr(publish, "PUBLISH_WAIT_SECONDS", 0.05)
    loop = asyncio.new_event_loop()
    started = threading.Event()

    def busy_server() -> None:
        publish.bind_server_loop(loop)
        loop.call_soon(started.set)
        loop.call_soon(time.sleep, 0.5)  # the loop is blocked past the publish's wait
        loop.call_later(0.6, loop.stop)
        loop.run_forever()

    server = threading.Thread(target=busy_server)
    server.start()
    try:
        assert started.wait(3)
        publish.send_now("game-x", {"type": "game.event", "event": {"seq": 1}})  # no exception
    finally:
        server.join(3)
        monkeypatch.setattr(publish, "_server_loop", None)
        loop.close()
    assert "publishing a live event on the server's loop failed" in caplog.text
