"""games.live.redis_watch: a socket server's watch of Redis tells its sockets to resync after
an outage, however short. One that falls wholly between two looks (Redis killed and started
again within the watch's interval) is seen by the host's new `run_id`, where a bare PING saw
nothing: with redis-py 8.2.0 the whole outage of tests/reliability/test_redis_outage.py fell
between two looks of a PING-only watch and its sockets never resynced (with 8.1.0 a look fell
inside it). A Redis that only stalls (a slow answer, a busy machine) is no outage: it loses no
event, and a resync would send every socket a needless `state`."""

from __future__ import annotations

import asyncio
import os
import signal

import pytest

from games.live import redis_watch
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


async def test_a_stall_shorter_than_two_looks_resyncs_nobody(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Redis frozen (SIGSTOP) for longer than one look may wait and shorter than two: the look
    that ran out of time is made again and gets its answer."""
    with PrivateRedis() as redis:
        async with watching(monkeypatch, [redis.url()], interval=0.1) as (watch, socket):
            await asyncio.sleep(0.3)  # a few looks at the running server
            assert watch.up and socket.resyncs == 0
            os.kill(redis.server.pid, signal.SIGSTOP)
            try:
                await asyncio.sleep(redis_watch.PING_TIMEOUT_SECONDS * 1.2)
            finally:
                os.kill(redis.server.pid, signal.SIGCONT)
            looks_after = watch.looks + 3
            for _ in range(100):  # a bound on the wait, not a speed check
                if watch.looks >= looks_after:
                    break
                await asyncio.sleep(0.1)
            assert watch.looks >= looks_after  # the watch went on looking after the stall
            assert watch.up and socket.resyncs == 0 and watch.outages == 0
