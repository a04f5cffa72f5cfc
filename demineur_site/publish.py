"""Publishing to the channel layer: the only caller of group_send (a test walks the code).

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

`on_commit` is how every room publishes (game and lobby events in games.play.events, race
events in games.races.events, the kick that closes a revoked credential's sockets in
accounts.socket_credentials). `LIVE_EVENTS=0` (benchmarks only) silences the live events, never
a kick: closing a revoked credential's sockets is a security measure.

An event that is dropped (the breaker below is open) or not acknowledged in time is not
forgotten: its group is remembered, and once publishing works again each such group is sent
one `live.resync` (a kick is sent again instead). Every socket of the group, in any process,
then re-reads what it follows and sends a fresh `state` (games.live). Without it a dropped
event that was the last of its feed (a race's `ended`) left its watchers on a stale page for
good: nothing came after it to show the gap, and Redis itself never went away, so the sockets'
own Redis watch (games.live.redis_watch) saw nothing to resync.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
import time
from concurrent.futures import Future
from contextvars import ContextVar, Token
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.conf import settings
from django.db import transaction

from demineur_site import metrics

log = logging.getLogger(__name__)

PUBLISH_WAIT_SECONDS = 0.5
# The message a group gets when some of its events were lost: its sockets re-read (games.live).
RESYNC_TYPE = "live.resync"
# Groups remembered at most while publishing fails; beyond it a socket catches up at its
# group's next event (the `seq` gap), as before there was any memory.
MAX_LOST_GROUPS = 10_000


def on_commit(group: str, message: dict[str, Any], *, live: bool = True) -> None:
    """Send `message` to `group` once the current transaction commits (at once outside one).
    `live` messages obey LIVE_EVENTS; the others (kicks) always go."""
    if live and not settings.LIVE_EVENTS:
        return
    transaction.on_commit(lambda: send_now(group, message, resend=not live))


class _LoopThread:
    """One daemon thread per process running an asyncio loop for outgoing publishes."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Lock()
        self._pid = 0

    def loop(self) -> asyncio.AbstractEventLoop:
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


class _Breaker:
    """While Redis is away, publishing is skipped instead of tried: a move must not wait
    PUBLISH_WAIT_SECONDS for each of its events. After a failure, events are dropped for
    RETRY_SECONDS, then one publish tries again.

    It also remembers the groups whose events were lost (`lost`: group -> the kick to send
    again, or None for a resync) until `_recover` has told them."""

    RETRY_SECONDS = 1.0

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._retry_at = 0.0
        self.down = False
        self.dropped = 0
        self.lost: dict[str, dict[str, Any] | None] = {}
        self.recovering = False
        self._overflow_logged = False

    def allows(self, group: str, resend: dict[str, Any] | None) -> bool:
        with self._lock:
            if not self.down or time.monotonic() >= self._retry_at:
                return True
            self.dropped += 1
            self._remember(group, resend)
        metrics.EVENTS_DROPPED.labels("redis_away").inc()
        return False

    def failed(self, exc: BaseException, group: str, resend: dict[str, Any] | None) -> None:
        metrics.EVENTS_DROPPED.labels("failed").inc()
        metrics.REDIS_ERRORS.labels("publish").inc()
        with self._lock:
            if not self.down:
                log.warning("live events dropped: Redis does not answer (%r)", exc)
            self.down = True
            self.dropped += 1
            self._retry_at = time.monotonic() + self.RETRY_SECONDS
            self._remember(group, resend)

    def succeeded(self) -> None:
        metrics.EVENTS_PUBLISHED.inc()
        with self._lock:
            if self.down:
                log.warning("live events flow again; %d were dropped", self.dropped)
            self.down, self.dropped = False, 0

    def _remember(self, group: str, resend: dict[str, Any] | None) -> None:
        """(Under the lock.) `resend`: the message to send again (a kick), None: a resync."""
        if group not in self.lost and len(self.lost) >= MAX_LOST_GROUPS:
            if not self._overflow_logged:
                log.warning(
                    "more than %d groups lost events: the others catch up at their next event",
                    MAX_LOST_GROUPS,
                )
                self._overflow_logged = True
            return
        if self.lost.get(group) is None:
            self.lost[group] = resend
        start = not self.recovering
        self.recovering = True
        if start:
            _publisher.loop().call_soon_threadsafe(_start_recovery)

    def take_lost(self) -> dict[str, dict[str, Any] | None]:
        """The groups to tell, forgotten here; when there are none the recovery ends."""
        with self._lock:
            lost, self.lost = self.lost, {}
            self._overflow_logged = False
            if not lost:
                self.recovering = False
            return lost

    def put_back(self, lost: dict[str, dict[str, Any] | None]) -> None:
        with self._lock:
            for group, kick in lost.items():
                if self.lost.get(group) is None:
                    self.lost[group] = kick


_breaker = _Breaker()


# The ASGI server's event loop, once it has started (bind_server_loop). With the in-memory
# layer (`make run`), the watchers' queues belong to that loop: a publish from any other thread
# must run there. From asgiref's threads async_to_sync finds it alone; from a plain thread
# (the race clock) it would run the publish on a private loop, and the watcher would hear of it
# only when something else woke the server's loop.
_server_loop: asyncio.AbstractEventLoop | None = None


def bind_server_loop(loop: asyncio.AbstractEventLoop) -> None:
    """Called in the server's loop at start-up (demineur_site.asgi)."""
    global _server_loop
    _server_loop = loop


def _send_in_memory(layer: InMemoryChannelLayer, group: str, message: dict[str, Any]) -> None:
    loop = _server_loop
    if loop is not None and loop.is_running():
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is not loop:
            future = asyncio.run_coroutine_threadsafe(layer.group_send(group, message), loop)
            try:
                future.result(PUBLISH_WAIT_SECONDS)
            except Exception as exc:  # a busy loop: the committed move stands, watchers resync
                log.warning("publishing a live event on the server's loop failed: %r", exc)
            return
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        async_to_sync(layer.group_send)(group, message)
        return
    # Synchronous code inside a running loop's thread (a sync caller under a loop it does not
    # own, with no server loop bound yet): async_to_sync refuses to run here, and no watcher
    # can be listening on a loop we do not know, so the send runs on a short-lived thread.
    sender = threading.Thread(target=async_to_sync(layer.group_send), args=(group, message))
    sender.start()
    sender.join(PUBLISH_WAIT_SECONDS)


# A socket's call into the database (games.live.dbcall) keeps the events it publishes here
# instead of sending them from the database thread; the socket's loop sends them, in order,
# once the call returns (send_collected). A live process has one database thread for all its
# sockets: it would otherwise be held for each event's round trip to Redis, and every other
# socket's move would queue behind it.
Collected = list[tuple[str, dict[str, Any], bool]]  # (group, message, resend)
_collecting: ContextVar[Collected | None] = ContextVar("collected_events", default=None)


def collect_into(events: Collected) -> Token[Collected | None]:
    """From here on in this context (and the threads it is copied to), send_now appends to
    `events` instead of sending; `stop_collecting(token)` ends it."""
    return _collecting.set(events)


def stop_collecting(token: Token[Collected | None]) -> None:
    _collecting.reset(token)


async def send_collected(events: Collected) -> None:
    """(On the server's loop.) Send the collected events in order, each behind the breaker and
    waited for as send_now waits, so that the socket's answer still leaves after them."""
    for group, message, resend in events:
        await _send_on_loop(group, message, resend=resend)


def send_now(group: str, message: dict[str, Any], *, resend: bool = False) -> None:
    """Publish `message` to `group`, waiting PUBLISH_WAIT_SECONDS at most. If it is lost, the
    group is told later: `resend` sends the message itself again (a kick), else a resync.
    Within a socket's database call, the event is kept for the socket's loop instead."""
    collected = _collecting.get()
    if collected is not None:
        collected.append((group, message, resend))
        return
    layer = get_channel_layer()
    if layer is None:
        return
    if isinstance(layer, InMemoryChannelLayer):
        _send_in_memory(layer, group, message)
        metrics.EVENTS_PUBLISHED.inc()
        return
    again = message if resend else None
    if not _breaker.allows(group, again):
        return  # Redis is away: the event is dropped (counted and logged by the breaker)
    future = _publisher.submit(layer.group_send(group, message))
    with _pending_lock:
        _pending.add(future)
    future.add_done_callback(_done)
    try:
        future.result(PUBLISH_WAIT_SECONDS)
    except Exception as exc:  # logged by _done too; the committed move must not fail here
        # Not acknowledged in time: it may still arrive, or never; the group is told anyway.
        _breaker.failed(exc, group, again)
    else:
        _breaker.succeeded()


_recovery: set[asyncio.Task[None]] = set()  # the running recovery (a reference keeps it)


def _start_recovery() -> None:
    """(On the publisher's loop.) Start telling the groups that lost events."""
    task = asyncio.ensure_future(_recover())
    _recovery.add(task)
    task.add_done_callback(_recovery.discard)


async def _recover() -> None:
    """Every RETRY_SECONDS, tell each group that lost events (breaker.lost): one `live.resync`,
    or the lost kick again. What cannot be sent yet is kept for the next round; the task ends
    when nothing is left. Each group hears once, however many of its events were lost."""
    while True:
        await asyncio.sleep(_Breaker.RETRY_SECONDS)
        lost = _breaker.take_lost()
        if not lost:
            return
        layer = get_channel_layer()  # a group is remembered only by a send through a layer
        told = 0
        try:
            for group, again in lost.items():
                message = again or {"type": RESYNC_TYPE}
                await asyncio.wait_for(layer.group_send(group, message), PUBLISH_WAIT_SECONDS)
                told += 1
        except Exception as exc:  # Redis still away: the rest waits for the next round
            _breaker.put_back(dict(list(lost.items())[told:]))
            log.info("telling the groups that lost events failed (%r); trying again", exc)
        else:
            log.warning("told %d groups that lost live events to resync", told)


def flush(timeout: float = 5.0) -> None:
    """Wait until every publish handed to the loop thread so far has been sent (tests, shutdown)."""
    with _pending_lock:
        waiting = list(_pending)
    for future in waiting:
        future.result(timeout)


async def send_from_loop(group: str, message: dict[str, Any]) -> None:
    """Send `message` to `group` now, from a consumer on the server's own loop (the event
    stream's "a newer stream replaces you"); bounded and behind the same breaker. Sent again
    once Redis is back if it is lost, as a kick is."""
    await _send_on_loop(group, message, resend=True)


async def _send_on_loop(group: str, message: dict[str, Any], *, resend: bool) -> None:
    """send_now's publish from the server's own loop: the same layer, breaker and wait."""
    layer = get_channel_layer()
    if layer is None:
        return
    if isinstance(layer, InMemoryChannelLayer):
        await layer.group_send(group, message)
        metrics.EVENTS_PUBLISHED.inc()
        return
    again = message if resend else None
    if not _breaker.allows(group, again):
        return  # Redis is away: the event is dropped (counted and logged by the breaker)
    try:
        await asyncio.wait_for(layer.group_send(group, message), PUBLISH_WAIT_SECONDS)
    except Exception as exc:  # the committed move stands; the group is told later
        _breaker.failed(exc, group, again)
    else:
        _breaker.succeeded()
