"""A Redis that hangs instead of refusing (a partition, `docker pause`; make compose-test pauses
the stack's): the throttles' cache gives up after REDIS_SOCKET_TIMEOUT (0.25 s), not
redis-py's default 5 s, and answers from the process's own count (demineur_site/cache.py). The
hung Redis here is a real listening socket that accepts and never answers."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator

import pytest
from django.conf import settings

from demineur_site.cache import RedisCacheWithFallback


class HungRedis:
    """A real listening socket that never answers. The kernel completes a client's connection
    from the backlog and keeps what it sends; `sent()` takes the waiting connections and
    counts the bytes they have sent so far, answering nothing."""

    def __init__(self) -> None:
        self.server = socket.socket()
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(16)
        self.server.setblocking(False)
        self.port = int(self.server.getsockname()[1])
        self.accepted: list[socket.socket] = []
        self.received = 0

    def sent(self) -> int:
        while True:
            try:
                connection = self.server.accept()[0]
            except BlockingIOError:
                break
            connection.setblocking(False)
            self.accepted.append(connection)
        for connection in self.accepted:
            while True:
                try:
                    chunk = connection.recv(65536)
                except BlockingIOError:
                    break
                if not chunk:
                    break
                self.received += len(chunk)
        return self.received

    def close(self) -> None:
        for connection in self.accepted:
            connection.close()
        self.server.close()


@pytest.fixture
def hung_redis() -> Iterator[HungRedis]:
    hung = HungRedis()
    yield hung
    hung.close()


def test_the_cache_gives_up_on_a_hung_redis_within_its_socket_timeout(hung_redis: HungRedis):
    assert settings.REDIS_SOCKET_TIMEOUT < 1, "REDIS_SOCKET_TIMEOUT is set high in this environment"
    cache = RedisCacheWithFallback(f"redis://127.0.0.1:{hung_redis.port}/0", {})
    counted, count, _ = cache.window_hit("k", now=time.time(), duration=60, limit=5)
    # It asked the hung Redis, waited at most its socket timeout (not redis-py's default 5 s),
    # and the answer came from the process's own count.
    assert hung_redis.sent() > 0
    pool = cache._cache._get_connection_pool(True)
    assert pool.connection_kwargs["socket_timeout"] == settings.REDIS_SOCKET_TIMEOUT
    assert counted and count == 1
    # Until RETRY_SECONDS have passed, the count goes on locally without asking Redis again:
    # not one more byte reaches it.
    asked = hung_redis.sent()
    for _ in range(4):
        cache.window_hit("k", now=time.time(), duration=60, limit=5)
    assert cache.window_hit("k", now=time.time(), duration=60, limit=5)[0] is False
    assert hung_redis.sent() == asked
