"""games.live.redis_watch: a socket server's watch of Redis tells its sockets to resync after
an outage, however short. One that falls wholly between two looks (Redis killed and started
again within the watch's interval) is seen by the host's new `run_id`, where a bare PING saw
nothing: with redis-py 8.2.0 the whole outage of tests/reliability/test_redis_outage.py fell
between two looks of a PING-only watch and its sockets never resynced (with 8.1.0 a look fell
inside it)."""

from __future__ import annotations

import asyncio

import pytest

from tests.support.redis_watch import watching
from tests.support.services import PrivateRedis, redis_missing

pytestmark = pytest.mark.skipif(
    redis_missing() is not None, reason=f"needs redis-server: {redis_missing()}"
)


async def test_a_restart_between_two_looks_resyncs_the_sockets(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with PrivateRedis() as redis:
        async with watching(monkeypatch, [redis.url()], interval=3.0) as (watch, socket):
            await asyncio.sleep(0.5)
            assert socket.resyncs == 0  # nothing happened yet
            redis.stop()  # SIGKILL
            redis.start()  # a new, empty server on the same port, before the next look
            seen_down = False
            for _ in range(100):  # a bound on the wait, not a speed check
                seen_down = seen_down or not watch.up
                if socket.resyncs:
                    break
                await asyncio.sleep(0.1)
            assert socket.resyncs == 1 and watch.outages == 1
            assert not seen_down  # no look found Redis away: the run_id told


async def test_a_steady_redis_resyncs_nobody(monkeypatch: pytest.MonkeyPatch) -> None:
    with PrivateRedis() as redis:
        async with watching(monkeypatch, [redis.url()], interval=0.1) as (watch, socket):
            await asyncio.sleep(1.0)  # about ten looks at the same server
            assert watch.up and socket.resyncs == 0 and watch.outages == 0
