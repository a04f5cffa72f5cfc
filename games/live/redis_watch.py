"""Redis outages, seen from a socket server process (docs/RELIABILITY.md, Redis outage).

Redis carries the live events only: moves never wait for it (games.play.events drops a publish
it cannot make). But while Redis is away, this process's subscriptions hear nothing, so every
open socket may have missed events. channels-redis reconnects and subscribes again by itself
(redis-py's PubSub does, on its next read); it tells nobody. This watch does: one task per
process asks every host of REDIS_URLS for its `run_id` (a new one at each start of the server)
every WATCH_INTERVAL_SECONDS; when Redis answers again after failing, or answers with another
`run_id` (it restarted between two looks: an outage shorter than the interval, which a bare
PING never saw), it waits RESUBSCRIBE_GRACE_SECONDS (for the subscriptions to come back) and
tells every socket of this process to resync: a game socket re-reads its game and sends a fresh
`state`, the lobby a fresh `live` snapshot. Nothing is restarted.

It also keeps this process listening (`keep_listening`). channels-redis's pub/sub layer reads
a Redis host's messages only while this process is subscribed to something there; with no
subscription its reader sleeps 100 ms between looks. A process whose last socket closed (a
lone player between two games) then heard its next socket's first event up to 100 ms late:
the first reveal of a lone socket player took 76 ms at the median against 3 ms for the next
moves (docs/PERFORMANCE.md, "The clocks"). One channel of its own on every host, made at the
server's start and never read, keeps every reader reading.
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
        self._listen: asyncio.Task[None] | None = None
        self.up = True
        self.outages = 0  # how many outages this process has seen end (tests, logs)
        self.looks = 0  # how many looks the watch has made (tests)

    def add(self, socket: Resyncs) -> None:
        if not settings.REDIS_URL:
            return  # the in-memory layer has nothing to lose
        self._sockets.add(socket)
        loop = asyncio.get_running_loop()
        if loop not in _listening and (self._listen is None or self._listen.done()):
            self._listen = loop.create_task(keep_listening_at_start())
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._watch())

    def discard(self, socket: Resyncs) -> None:
        self._sockets.discard(socket)

    async def _run_id(self, client: Any) -> str | None:
        """The host's `run_id`, None when it does not answer; "" from a Redis that refuses
        INFO (some managed ones rename it), which a PING alone then watches.

        A look that runs out of time is made once more before the host counts as away: one
        slow answer is most often this process's own loop or a loaded machine, not an outage,
        and a stall loses no event (Redis delivers what it held once it answers). Counting it
        as an outage made every socket of the process send a needless `state`. A refused
        connection is an outage at once."""
        for _ in range(2):
            try:
                return await self._ask_run_id(client)
            except TimeoutError:
                continue
            except Exception:
                return None
        return None

    async def _ask_run_id(self, client: Any) -> str:
        from redis.exceptions import ResponseError
        from redis.exceptions import TimeoutError as RedisTimeout

        try:
            try:
                info = await asyncio.wait_for(client.info("server"), PING_TIMEOUT_SECONDS)
            except ResponseError:
                await asyncio.wait_for(client.ping(), PING_TIMEOUT_SECONDS)
                return ""
        except RedisTimeout as slow:  # the client's own socket_timeout
            raise TimeoutError from slow
        return str(info.get("run_id", ""))

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
        seen: list[str | None] = [None] * len(clients)  # each host's last run_id
        try:
            while self._sockets:
                ids = await asyncio.gather(*(self._run_id(client) for client in clients))
                self.looks += 1
                up = all(run_id is not None for run_id in ids)
                restarted = any(
                    old is not None and new is not None and new != old
                    for old, new in zip(seen, ids, strict=True)
                )
                seen = [new if new is not None else old for old, new in zip(seen, ids, strict=True)]
                if up and (restarted or not self.up):
                    if self.up:  # the whole outage fell between two looks
                        log.warning("Redis restarted since the last look: live events may be lost")
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


async def keep_listening_at_start() -> None:
    """`keep_listening`, never failing the server's start: with Redis away, the first socket
    tries again."""
    try:
        await asyncio.wait_for(keep_listening(), PING_TIMEOUT_SECONDS * 3)
    except Exception:
        _listening.discard(asyncio.get_running_loop())
        log.warning("could not subscribe this process to Redis yet", exc_info=True)


_listening: weakref.WeakSet[asyncio.AbstractEventLoop] = weakref.WeakSet()


async def keep_listening() -> int:
    """Subscribe this process, on this event loop, to one channel of its own on every Redis
    host of the channel layer, once (the lifespan's start calls it; so does the first socket
    of a server run without the lifespan). Returns the channels made (0: done already, or not
    the pub/sub layer)."""
    from channels.layers import get_channel_layer
    from channels_redis.pubsub import RedisPubSubChannelLayer

    loop = asyncio.get_running_loop()
    layer = get_channel_layer()
    if loop in _listening or not isinstance(layer, RedisPubSubChannelLayer):
        return 0
    _listening.add(loop)
    shards = layer._get_layer()._shards  # one connection per host (channels-redis 4)
    covered: set[int] = set()
    made = 0
    # A channel's host is a hash of its name: new names until every host has one.
    while len(covered) < len(shards) and made < 64 * len(shards):
        name = await layer.new_channel(prefix="listening.")
        covered.add(id(layer._get_layer()._get_shard(name)))
        made += 1
    return made
