"""A socket's call into the database (games.live.dbcall.db_call) leaves its live events to the
socket's loop: they go out in order once the call returns, and also when it raises after
publishing (the move it committed stands), before the caller goes on; the database thread is
not held for Redis (demineur_site.publish.collect_into)."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from channels.layers import get_channel_layer

from demineur_site import publish
from games.live.dbcall import db_call
from tests.support.personas import SOCKET_TESTS

pytestmark = SOCKET_TESTS

GROUP = "dbcall-events-test"


def _publish_two(fail: bool) -> str:
    publish.send_now(GROUP, {"type": "test.event", "n": 1})
    publish.send_now(GROUP, {"type": "test.event", "n": 2})
    if fail:
        raise ValueError("after the events")
    return threading.current_thread().name


class _Sending:
    """The real channel layer, noting the thread each publish runs on."""

    def __init__(self, real: Any) -> None:
        self.real = real
        self.threads: list[str] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        self.threads.append(threading.current_thread().name)
        await self.real.group_send(group, message)


async def test_a_database_calls_events_go_out_in_order_after_it_returns_or_raises(db, monkeypatch):
    layer = get_channel_layer()
    sending = _Sending(layer)
    monkeypatch.setattr(publish, "get_channel_layer", lambda: sending)
    channel = await layer.new_channel()
    await layer.group_add(GROUP, channel)
    try:
        thread = await db_call(_publish_two)(False)
        assert thread != threading.current_thread().name  # it ran in the database thread
        assert [(await layer.receive(channel))["n"] for _ in range(2)] == [1, 2]
        # Sent by this loop's thread, neither the database thread nor the publisher's.
        assert sending.threads == [threading.current_thread().name] * 2

        with pytest.raises(ValueError, match="after the events"):
            await db_call(_publish_two)(True)
        assert [(await layer.receive(channel))["n"] for _ in range(2)] == [1, 2]
    finally:
        await layer.group_discard(GROUP, channel)


async def test_outside_a_database_call_an_event_is_sent_at_once(db):
    layer = get_channel_layer()
    channel = await layer.new_channel()
    await layer.group_add(GROUP, channel)
    try:
        # A plain thread (the race clock's): nothing collects its events.
        sender = threading.Thread(target=publish.send_now, args=(GROUP, {"type": "t", "n": 3}))
        sender.start()
        sender.join(10)
        assert (await layer.receive(channel))["n"] == 3
    finally:
        await layer.group_discard(GROUP, channel)
