"""A socket server's Redis watch (games.live.redis_watch) run against chosen Redis hosts, with
one socket that counts the resyncs it is told to make: the set-up and clean-up the watch's
tests share."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
from django.conf import settings

from games.live import redis_watch


class CountingSocket:
    """A socket of the process, counting the resyncs it is told to make."""

    def __init__(self) -> None:
        self.resyncs = 0

    async def redis_back(self) -> None:
        self.resyncs += 1


@asynccontextmanager
async def watching(
    monkeypatch: pytest.MonkeyPatch, urls: list[str], *, interval: float | None = None
) -> AsyncIterator[tuple[redis_watch.RedisWatch, CountingSocket]]:
    """A new watch of the hosts `urls` (REDIS_URLS; REDIS_URL the first), looking every
    `interval` seconds (None: the watch's own), with one socket added; its task is stopped at
    the end."""
    monkeypatch.setattr(settings, "REDIS_URL", urls[0])
    monkeypatch.setattr(settings, "REDIS_URLS", urls, raising=False)
    if interval is not None:
        monkeypatch.setattr(redis_watch, "WATCH_INTERVAL_SECONDS", interval)
    watch, socket = redis_watch.RedisWatch(), CountingSocket()
    watch.add(socket)  # the watch's task starts, and makes its first look at once
    try:
        yield watch, socket
    finally:
        watch.discard(socket)
        if watch._task is not None:
            watch._task.cancel()
