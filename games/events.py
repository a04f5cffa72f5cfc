"""Live events: the only caller of the channel layer's group_send.

Services call `game_on_commit` / `lobby_on_commit` inside their transaction; the event leaves
only after the commit, so a watcher never sees a move that was rolled back. Events are
high-level dicts; consumers turn them into frames.

Publishing from sync code: `async_to_sync(group_send)` per call starts an event loop and a
Redis connection each time (shared/perf: -57 % move throughput). With a Redis layer we keep
one event-loop thread per process and hand it each send; with the in-memory layer (dev, no
Redis) we must send on the loop that owns the layer's queues, so we use async_to_sync.

The caller waits for the PUBLISH to be acknowledged (about 0.1 ms on loopback) before going on,
so the HTTP answer to a move leaves only after its event is in Redis. Without that wait, two
moves answered one after the other by two server processes could reach Redis in the opposite
order (bench/live saw it: watchers got seq 499 before 498 and had to re-read the game). With
it, a client that waits for each answer before its next move gets its events in order,
whichever processes serve it. If Redis is slow or down the move still stands: the wait gives
up after PUBLISH_WAIT_SECONDS and the watchers recover through the `seq` gap.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from concurrent.futures import Future
from typing import Any
from uuid import UUID

from asgiref.sync import async_to_sync
from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.conf import settings
from django.db import transaction

log = logging.getLogger(__name__)

LOBBY_GROUP = "lobby"
PUBLISH_WAIT_SECONDS = 0.5
# Consumers dispatch on the event "type": game.event -> game_event(), lobby.event -> lobby_event().
GAME_EVENT_TYPE = "game.event"
LOBBY_EVENT_TYPE = "lobby.event"


def game_group(game_id: UUID | str) -> str:
    return f"game.{game_id}"


class _LoopThread:
    """One daemon thread per process running an asyncio loop for outgoing publishes."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Lock()
        self._pid = 0

    def loop(self) -> asyncio.AbstractEventLoop:
        import os

        with self._lock:
            if self._loop is None or self._pid != os.getpid():  # a fork gets its own thread
                loop = asyncio.new_event_loop()
                thread = threading.Thread(
                    target=loop.run_forever, name="events-publisher", daemon=True
                )
                thread.start()
                self._loop, self._pid = loop, os.getpid()
            return self._loop

    def submit(self, coro: Any) -> Future[Any]:
        return asyncio.run_coroutine_threadsafe(coro, self.loop())


_publisher = _LoopThread()


_pending: set[Future[Any]] = set()
_pending_lock = threading.Lock()


def _done(future: Future[Any]) -> None:
    with _pending_lock:
        _pending.discard(future)
    exc = future.exception()
    if exc is not None:
        log.warning("publishing a live event failed: %r", exc)


def send_now(group: str, message: dict[str, Any]) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    if isinstance(layer, InMemoryChannelLayer):
        async_to_sync(layer.group_send)(group, message)
        return
    future = _publisher.submit(layer.group_send(group, message))
    with _pending_lock:
        _pending.add(future)
    future.add_done_callback(_done)
    try:
        future.result(PUBLISH_WAIT_SECONDS)
    except Exception as exc:  # logged by _done too; the committed move must not fail here
        log.warning("a live event was not published in time: %r", exc)


def flush(timeout: float = 5.0) -> None:
    """Wait until every publish handed to the loop thread so far has been sent (tests, shutdown)."""
    with _pending_lock:
        waiting = list(_pending)
    for future in waiting:
        future.result(timeout)


def game_on_commit(game_id: UUID | str, event: dict[str, Any]) -> None:
    """Publish `event` (it carries the game's `seq`) to the game's watchers after the commit."""
    if not settings.LIVE_EVENTS:
        return
    message = {"type": GAME_EVENT_TYPE, "game_id": str(game_id), "event": event}
    group = game_group(game_id)
    transaction.on_commit(lambda: send_now(group, message))


def lobby_on_commit(kind: str, payload: dict[str, Any]) -> None:
    """Publish a lobby event (game_started, game_ended, record) to /ws/live after the commit."""
    if not settings.LIVE_EVENTS:
        return
    message = {"type": LOBBY_EVENT_TYPE, "event": {"type": kind, **payload}}
    transaction.on_commit(lambda: send_now(LOBBY_GROUP, message))
