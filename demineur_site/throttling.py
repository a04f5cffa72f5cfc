"""DRF's rate throttles, each check one atomic call to the shared cache.

DRF's `SimpleRateThrottle` keeps the times of a client's recent requests as one list in the
cache: every request reads the whole list and writes it back (two round trips to Redis, and a
list of up to 6,000 times pickled each way for the `user` rate), and two requests that arrive
together both read the same list, so a client sending in parallel is counted short. Behind
the Redis cache (demineur_site.cache.RedisCacheWithFallback.window_hit) the same rule — at
most N requests in any window of the rate's duration, a refused request not counted — is one
Lua script over a sorted set: one round trip, atomic, O(log n). With another cache (the
in-process one of `make run` and of the suite without Redis), DRF's own code runs.

`Retry-After` is DRF's own formula, from the number of requests in the window and the
oldest one's time.
"""

from __future__ import annotations

from typing import Any

from rest_framework.request import Request
from rest_framework.throttling import AnonRateThrottle, SimpleRateThrottle, UserRateThrottle


class WindowRateThrottle(SimpleRateThrottle):
    """A SimpleRateThrottle whose count is one `window_hit` of the cache, where it has one."""

    _window: tuple[int, float] | None = None
    # Set by SimpleRateThrottle.__init__ from the rate (parse_rate); not in DRF's stubs.
    num_requests: int
    duration: int

    def allow_request(self, request: Request, view: Any) -> bool:
        hit = getattr(self.cache, "window_hit", None)
        if hit is None or self.rate is None:
            return super().allow_request(request, view)
        self.key = self.get_cache_key(request, view)
        if self.key is None:
            return True
        self.now = self.timer()
        counted, count, oldest = hit(
            self.key, now=self.now, duration=self.duration, limit=self.num_requests
        )
        self._window = (count, oldest)
        return bool(counted)

    def wait(self) -> float | None:
        if self._window is None:
            waited: float | None = super().wait()
            return waited
        count, oldest = self._window
        remaining = self.duration - (self.now - oldest) if count else self.duration
        available = self.num_requests - count + 1
        if available <= 0:
            return None
        return remaining / float(available)


class AnonThrottle(WindowRateThrottle, AnonRateThrottle):
    """DRF's AnonRateThrottle (scope `anon`, per address), counted in one call."""


class UserThrottle(WindowRateThrottle, UserRateThrottle):
    """DRF's UserRateThrottle (scope `user`, per account, else per address), in one call."""
