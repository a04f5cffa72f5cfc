"""The throttles' sliding window (demineur_site.cache.window_hit, demineur_site.throttling):
at most N requests in any window, a refused request not counted, atomic under parallel
requests (DRF's read-then-write list let two requests at once count as one), the same rule
in Redis and in the process while Redis is away, and DRF's Retry-After."""

from __future__ import annotations

import os
import threading
import time
import uuid
from typing import Any

import pytest

from demineur_site.cache import RedisCacheWithFallback

REDIS_URL = os.environ.get("REDIS_URL", "")
needs_redis = pytest.mark.skipif(
    not REDIS_URL, reason="needs REDIS_URL: the shared window lives in Redis"
)


def _redis_cache() -> RedisCacheWithFallback:
    return RedisCacheWithFallback(REDIS_URL, {"KEY_PREFIX": f"window-test-{uuid.uuid4().hex}"})


def _redis_away() -> RedisCacheWithFallback:
    """A cache whose Redis never answers (nothing listens on port 1): it counts locally."""
    return RedisCacheWithFallback("redis://127.0.0.1:1/0", {"KEY_PREFIX": "away"})


CACHES = [
    pytest.param(_redis_cache, id="redis", marks=needs_redis),
    pytest.param(_redis_away, id="redis-away"),
]


@pytest.mark.parametrize("make", CACHES)
def test_at_most_the_limit_in_any_window_and_refusals_are_not_counted(make: Any) -> None:
    cache = make()
    now = 1_000_000.0
    hits = [cache.window_hit("k", now=now + i, duration=60, limit=3) for i in range(5)]
    assert [h[0] for h in hits] == [True, True, True, False, False]
    assert [h[1] for h in hits] == [1, 2, 3, 3, 3]
    assert hits[4][2] == now  # the oldest request in the window
    # 60 s after the first request it has left the window: one more is counted, no more.
    assert cache.window_hit("k", now=now + 60, duration=60, limit=3)[:2] == (True, 3)
    assert cache.window_hit("k", now=now + 60.5, duration=60, limit=3)[:2] == (False, 3)
    # Keys are counted apart.
    assert cache.window_hit("other", now=now + 61, duration=60, limit=3)[:2] == (True, 1)


@needs_redis
def test_parallel_requests_are_each_counted() -> None:
    cache = _redis_cache()
    counted: list[bool] = []
    lock = threading.Lock()

    def client() -> None:
        for _ in range(10):
            ok = cache.window_hit("busy", now=time.time(), duration=60, limit=37)[0]
            with lock:
                counted.append(ok)

    threads = [threading.Thread(target=client) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(counted) == 80
    assert counted.count(True) == 37


def test_the_throttle_refuses_with_drfs_retry_after(rf: Any, settings: Any) -> None:
    from rest_framework.request import Request
    from rest_framework.throttling import SimpleRateThrottle

    from demineur_site.throttling import AnonThrottle

    original = SimpleRateThrottle.THROTTLE_RATES
    SimpleRateThrottle.THROTTLE_RATES = {**original, "anon": "2/min"}
    try:
        throttle = AnonThrottle()
        throttle.cache = _redis_cache() if REDIS_URL else _redis_away()
        address = f"192.0.2.{uuid.uuid4().int % 200 + 1}"
        request = Request(rf.get("/api/games", REMOTE_ADDR=address))
        request.user = type("Anon", (), {"is_authenticated": False})()
        assert throttle.allow_request(request, None)
        first = throttle.now
        assert throttle.allow_request(request, None)
        assert not throttle.allow_request(request, None)
        wait = throttle.wait()
        assert wait is not None
        assert wait == pytest.approx(60 - (throttle.now - first), abs=0.01)
    finally:
        SimpleRateThrottle.THROTTLE_RATES = original


@needs_redis
def test_the_window_never_meets_a_list_of_times_under_the_same_key() -> None:
    """A worker of the previous version keeps DRF's list of times under the throttle key;
    the window beside it must neither break on it nor break it."""
    cache = _redis_cache()
    cache.set("throttle_user_7", [1.0, 2.0], 60)
    assert cache.window_hit("throttle_user_7", now=10.0, duration=60, limit=5)[:2] == (True, 1)
    assert cache.get("throttle_user_7") == [1.0, 2.0]
