"""Redis outages, seen from a socket server process (docs/RELIABILITY.md, Redis outage).

Redis carries the live events only: moves never wait for it (games.play.events drops a publish
it cannot make). But while Redis is away, this process's subscriptions hear nothing, so every
open socket may have missed events. channels-redis reconnects and subscribes again by itself
(redis-py's PubSub does, on its next read); it tells nobody. This watch does: one task per
process PINGs Redis (every host of REDIS_URLS) every WATCH_INTERVAL_SECONDS; when Redis answers again after failing, it
waits RESUBSCRIBE_GRACE_SECONDS (for the subscriptions to come back) and tells every socket of
this process to resync: a game socket re-reads its game and sends a fresh `state`, the lobby a
fresh `live` snapshot. Nothing is restarted.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import weakref
from typing import Any, Protocol

from django.conf import settings

from demineur_site.health import redis_hosts

log = logging.getLogger(__name__)

WATCH_INTERVAL_SECONDS = 1.0
RESUBSCRIBE_GRACE_SECONDS = 0.5
PING_TIMEOUT_SECONDS = 1.0


class Resyncs(Protocol):
    async def redis_back(self) -> None: ...


class RedisWatch:
    """The sockets of this process, and one task that watches Redis for them."""

    def __init__(self) -> None:
        self._sockets: weakref.WeakSet[Any] = weakref.WeakSet()
        self._task: asyncio.Task[None] | None = None
        self.up = True
        self.outages = 0  # how many outages this process has seen end (tests, logs)

    def add(self, socket: Resyncs) -> None:
        if not settings.REDIS_URL:
            return  # the in-memory layer has nothing to lose
        self._sockets.add(socket)
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._watch())

    def discard(self, socket: Resyncs) -> None:
        self._sockets.discard(socket)

    async def _ping(self, client: Any) -> bool:
        try:
            await asyncio.wait_for(client.ping(), PING_TIMEOUT_SECONDS)
        except Exception:
            return False
        return True

    async def _watch(self) -> None:
        import redis.asyncio as aioredis

        # Every host of the channel layer (REDIS_URLS): each one carries the events of the
        # channels it shards, so an outage of any of them loses events.
        clients = [
            aioredis.from_url(
                url,
                socket_connect_timeout=PING_TIMEOUT_SECONDS,
                socket_timeout=PING_TIMEOUT_SECONDS,
            )
            for url in redis_hosts()
        ]
        try:
            while self._sockets:
                answers = await asyncio.gather(*(self._ping(client) for client in clients))
                up = all(answers)
                if up and not self.up:
                    log.warning("Redis answers again: resyncing %d sockets", len(self._sockets))
                    await asyncio.sleep(RESUBSCRIBE_GRACE_SECONDS)
                    await self._resync_all()
                    self.outages += 1
                elif not up and self.up:
                    log.warning("Redis does not answer: live events are lost until it does")
                self.up = up
                await asyncio.sleep(WATCH_INTERVAL_SECONDS)
        finally:
            for client in clients:
                with contextlib.suppress(Exception):
                    await client.aclose()

    async def _resync_all(self) -> None:
        for socket in list(self._sockets):
            with contextlib.suppress(Exception):  # a socket closing meanwhile
                await socket.redis_back()


watch = RedisWatch()
