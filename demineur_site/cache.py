"""The shared cache (throttle counts), and what it does while Redis is away.

Django's RedisCache raises on every call when Redis does not answer, and the throttles read
the cache on every request: a Redis outage would turn every API answer into a 500, moves
included. Redis carries nothing a move needs (docs/RELIABILITY.md, Redis outage), so this
backend falls back to a cache of this process while Redis fails: the limits still hold, per
process, as they do without Redis at all, and the shared counts come back with Redis.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.cache.backends.locmem import LocMemCache
from django.core.cache.backends.redis import RedisCache, RedisCacheClient
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

log = logging.getLogger(__name__)

REDIS_DOWN = (RedisConnectionError, RedisTimeoutError, OSError)
# After a failure, the local cache answers for this long before Redis is tried again, so a
# request does not pay a failed connection each time.
RETRY_SECONDS = 1.0

# One request counted in a sliding window, atomically (demineur_site.throttling): drop what
# left the window, refuse if `limit` are in it, else add this one. Returns {counted (0/1),
# requests in the window, the oldest one's time as text}. A sorted set of request times, so
# a check costs O(log n) whatever the rate, where DRF's own throttle reads and rewrites the
# whole list of times (and two requests at once could both read the same list).
WINDOW_SCRIPT = """
local key, now, duration, limit = KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - duration)
local count = redis.call('ZCARD', key)
if count >= limit then
  local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  return {0, count, oldest[2] or '0'}
end
redis.call('ZADD', key, now, ARGV[4])
redis.call('PEXPIRE', key, math.ceil(duration * 1000))
local first = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
return {1, count + 1, first[2]}
"""


class _OneClientPerPool(RedisCacheClient):
    """Django's client builds a new `redis.Redis` for every cache call, and redis-py's
    constructor sets up its response callbacks each time: about a third of what a throttle
    check cost per request in the move endpoint's profile (docs/PERFORMANCE.md). A `Redis`
    object is safe to share between threads, so one per pool serves every call; it keeps one
    connection of its own (a lock makes threads take turns on it), since taking a connection
    from redis-py's pool checks it for unread input with a system call on every command."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, Any] = {}

    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        index = self._get_connection_pool_index(write)  # type: ignore[attr-defined]
        client = self._clients.get(index)
        if client is None:
            # One connection held by the client (redis-py guards it with a lock), instead of
            # a connection taken from the pool and checked for stray input on every command.
            pool = self._get_connection_pool(write)  # type: ignore[attr-defined]
            client = self._client(connection_pool=pool, single_connection_client=True)  # type: ignore[attr-defined]
            self._clients[index] = client
        return client


class RedisCacheWithFallback(RedisCache):
    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = _OneClientPerPool
        options: dict[str, Any] = dict(params.get("OPTIONS", {}))
        # How long one cache call may wait on Redis (settings.REDIS_SOCKET_TIMEOUT); CACHES'
        # OPTIONS may set other values.
        options.setdefault("socket_timeout", settings.REDIS_SOCKET_TIMEOUT)
        options.setdefault("socket_connect_timeout", settings.REDIS_SOCKET_TIMEOUT)
        self._options = options
        self._local = LocMemCache(f"fallback-{id(self)}", {"TIMEOUT": params.get("TIMEOUT", 300)})
        self._local_lock = threading.Lock()
        self._retry_at = 0.0
        self._down = False
        self._scripts: dict[int, Any] = {}

    def _call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        return self._redis_or_local(
            lambda: getattr(super(RedisCacheWithFallback, self), name)(*args, **kwargs),
            lambda: getattr(self._local, name)(*args, **kwargs),
        )

    def _redis_or_local(self, redis: Callable[[], Any], local: Callable[[], Any]) -> Any:
        if time.monotonic() >= self._retry_at:
            try:
                value = redis()
            except REDIS_DOWN as exc:
                from demineur_site.metrics import REDIS_ERRORS

                REDIS_ERRORS.labels("cache").inc()
                if not self._down:
                    log.warning("cache: Redis does not answer, counting in this process (%r)", exc)
                self._down = True
                self._retry_at = time.monotonic() + RETRY_SECONDS
            else:
                if self._down:
                    log.warning("cache: Redis answers again")
                self._down = False
                return value
        return local()

    def window_hit(
        self, key: str, *, now: float, duration: float, limit: int
    ) -> tuple[bool, int, float]:
        """Count one request at `now` in the sliding window of the last `duration` seconds
        at `key`, unless `limit` requests are in it already. Returns (counted, requests in
        the window, the time of the oldest). One atomic call to Redis; while Redis is away,
        the same rule over this process's own counts. The window lives under a key of its
        own (`window:` + key), never the key of DRF's list of times: during a deployment an
        older worker still reading its list beside a newer one must not meet a sorted set."""
        key = f"window:{key}"
        full_key = self.make_and_validate_key(key)

        def redis() -> tuple[bool, int, float]:
            client = self._cache.get_client(full_key, write=True)
            script = self._scripts.get(id(client))
            if script is None:
                script = self._scripts[id(client)] = client.register_script(WINDOW_SCRIPT)
            member = f"{now!r}:{secrets.token_hex(4)}"
            counted, count, oldest = script(keys=[full_key], args=[now, duration, limit, member])
            return bool(counted), int(count), float(oldest)

        def local() -> tuple[bool, int, float]:
            with self._local_lock:
                times = [t for t in self._local.get(key, []) if t > now - duration]
                counted = len(times) < limit
                if counted:
                    times.append(now)
                    self._local.set(key, times, int(duration) + 1)
                return counted, len(times), min(times, default=now)

        result: tuple[bool, int, float] = self._redis_or_local(redis, local)
        return result

    def get(self, key: Any, default: Any = None, version: Any = None) -> Any:
        return self._call("get", key, default, version)

    def set(self, key: Any, value: Any, timeout: Any = ..., version: Any = None) -> None:
        if timeout is ...:
            self._call("set", key, value, version=version)
        else:
            self._call("set", key, value, timeout, version)

    def add(self, key: Any, value: Any, timeout: Any = ..., version: Any = None) -> bool:
        if timeout is ...:
            return bool(self._call("add", key, value, version=version))
        return bool(self._call("add", key, value, timeout, version))

    def delete(self, key: Any, version: Any = None) -> bool:
        return bool(self._call("delete", key, version))

    def incr(self, key: Any, delta: int = 1, version: Any = None) -> int:
        return int(self._call("incr", key, delta, version))
