"""A Redis that hangs instead of refusing (a partition, `docker pause`; make compose-test pauses
the stack's): the throttles' cache gives up after REDIS_SOCKET_TIMEOUT (0.25 s), not
redis-py's default 5 s, and answers from the process's own count (demineur_site/cache.py). The
hung Redis here is a real listening socket that accepts and never answers."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import pytest

from demineur_site.cache import SOCKET_TIMEOUT_SECONDS, RedisCacheWithFallback


@pytest.fixture
def hung_redis() -> Iterator[int]:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.1)
        while not stop.is_set():
            try:
                accepted.append(server.accept()[0])  # read nothing, answer nothing
            except TimeoutError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield int(server.getsockname()[1])
    stop.set()
    thread.join(timeout=5)
    for connection in accepted:
        connection.close()
    server.close()


def test_the_cache_gives_up_on_a_hung_redis_within_its_socket_timeout(hung_redis):
    assert SOCKET_TIMEOUT_SECONDS < 1, "REDIS_SOCKET_TIMEOUT is set high in this environment"
    cache = RedisCacheWithFallback(f"redis://127.0.0.1:{hung_redis}/0", {})
    started = time.monotonic()
    counted, count, _ = cache.window_hit("k", now=time.time(), duration=60, limit=5)
    first = time.monotonic() - started
    # The answer comes from the process's own count once the timeout has passed ...
    assert counted and count == 1
    assert first < 2.0, (
        f"waited {first:.2f} s on a Redis that never answers (redis-py's default is 5 s)"
    )
    # ... and, until RETRY_SECONDS have passed, without trying the hung Redis again.
    started = time.monotonic()
    for _ in range(4):
        cache.window_hit("k", now=time.time(), duration=60, limit=5)
    assert time.monotonic() - started < 0.2
    assert cache.window_hit("k", now=time.time(), duration=60, limit=5)[0] is False
