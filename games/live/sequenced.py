"""The base of the sockets that forward numbered events, a game's (games.play.sockets), a
race's (games.races.sockets) and an arena's (games.arenas.sockets): events go out in `seq`
order as games.live.sequencing decides (an event that skips a seq is held a moment for the
missing one, then the socket re-reads), with one timer per socket for the sequencer's next
deadline. `FeedConsumer` is the read-only watch of one race or arena. It imports no room: each
socket gives its reads, its id's check and its group."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
from collections.abc import Callable
from typing import Any

from demineur_site.api_errors import ApiError
from demineur_site.errors import DomainError
from games.live import redis_watch, sequencing
from games.live.base import CLOSE_NOT_FOUND, LeanConsumer
from games.live.dbcall import db_call
from games.live.frames import dumps

log = logging.getLogger(__name__)


class SequencedConsumer(LeanConsumer):
    follows_hub = True  # a game's, race's or arena's events: through the process's hub
    timer: asyncio.Task[None] | None = None  # wakes the sequencer at its next deadline
    timer_at: float | None = None
    ended_shares_seq = True  # a game's `ended` has the seq of its last move (games.live.sequencing)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.order = sequencing.Sequencer(
            reorder_wait=sequencing.REORDER_WAIT_SECONDS,
            lost_after=sequencing.LOST_EVENT_SECONDS,
            ended_shares_seq=self.ended_shares_seq,
        )

    def encode(self, event: sequencing.Event) -> str:
        return dumps(event)

    async def _resync(self, why: str) -> None:
        """Re-read what the socket follows and send a fresh `state` (send_state)."""
        raise NotImplementedError

    async def send_state(self, *, seq: int, ended: bool, frame: dict[str, Any]) -> None:
        """Send a `state` frame with this seq, then the held events now in line."""
        released = self.order.restart(seq=seq, ended=ended)
        await self.send(text_data=dumps(frame))
        await self._send_events(released)

    async def _send_events(self, ordered: list[sequencing.Event]) -> None:
        for event in ordered:
            await self.send(text_data=self.encode(event))
        self._arm()

    async def redis_back(self) -> None:
        """Redis was away: events may be lost without a gap to show it (games.live.redis_watch)."""
        async with self.turn:
            await self._resync("Redis came back")

    async def live_resync(self, message: dict[str, Any]) -> None:
        """Events of this socket's group were lost on their way (demineur_site.publish); the
        hub delivers this under the socket's turn, as any event."""
        await self._resync("live events were lost on their way")

    async def disconnect(self, code: int) -> None:
        redis_watch.watch.discard(self)
        if self.timer is not None:
            self.timer.cancel()
        await self.unfollow()

    def _arm(self) -> None:
        """One timer, set to the sequencer's next deadline (a held gap, a move's lost event)."""
        wake = self.order.wake_at()
        if wake == self.timer_at:
            return
        if self.timer is not None:
            self.timer.cancel()
        self.timer, self.timer_at = None, wake
        if wake is not None:
            self.timer = asyncio.ensure_future(self._wake(wake))

    async def _wake(self, at: float) -> None:
        await asyncio.sleep(max(0.0, at - time.monotonic()))
        async with self.turn:
            self.timer, self.timer_at = None, None
            why = self.order.due(now=max(at, time.monotonic()))
            if why is not None:
                with contextlib.suppress(Exception):  # the socket may be gone by now
                    await self._resync(why)
            self._arm()


class FeedConsumer(SequencedConsumer):
    """A read-only socket watching one race or arena (`feed`): joins its group first, then
    reads it and sends `state`; then forwards its events in `seq` order. An unknown or
    non-uuid id: one `error` (404 `not_found`) and close 4404. Nothing a client sends is
    parsed."""

    feed: str  # "race", "arena": the path's `<feed>_id`, and the word of the logs and refusals
    feed_id: str
    feed_group: Callable[[str], str]  # the group of the feed's events (games.races.events)
    # The check of the path's id (games.races.selectors.parse_race_id): a malformed one is
    # refused as an unknown one (DomainError 404).
    parse_feed_id: Callable[[Any], Any]
    ended_shares_seq = False  # the feed's `ended` is numbered like its other events

    def read(self, feed_id: str) -> Any:
        """The feed's state as `send_read` sends it (in the database thread; an unknown feed is
        a DomainError 404)."""
        raise NotImplementedError

    async def send_read(self, state: Any) -> None:
        """Send what `read` returned as the `state` frame (send_state)."""
        raise NotImplementedError

    async def connect(self) -> None:
        feed_id = await self.route_id(f"{self.feed}_id", self.parse_feed_id)
        if feed_id is None:
            return
        self.feed_id = feed_id
        state = await self.join_then_read(
            self.feed_group(feed_id), functools.partial(self.read, feed_id)
        )
        if state is None:
            return
        await self.accept()
        await self.send_read(state)
        redis_watch.watch.add(self)

    async def _resync(self, why: str) -> None:
        log.info("%s %s: sending a fresh state (%s)", self.feed, self.feed_id, why)
        try:
            state = await db_call(self.read)(self.feed_id)
        except DomainError:  # the feed is gone
            await self.close(code=CLOSE_NOT_FOUND)
            return
        await self.send_read(state)

    async def feed_event(self, message: dict[str, Any]) -> None:
        step = self.order.receive(message["event"], now=time.monotonic())
        await self._send_events(step.send)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        # Read-only: nothing a client sends is parsed; a few frames, then the socket closes.
        await self._refuse_frame(ApiError("invalid", f"The {self.feed} feed is read-only."))
