"""The base of the sockets that forward numbered events, a game's (games.live.consumers) and a
race's (games.live.race_consumers): events go out in `seq` order as games.live.sequencing decides (an
event that skips a seq is held a moment for the missing one, then the socket re-reads), with
one timer per socket for the sequencer's next deadline."""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any

from games.live import redis_watch, sequencing
from games.live.base import LeanConsumer
from games.play import events


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
        return events.dumps(event)

    async def _resync(self, why: str) -> None:
        """Re-read what the socket follows and send a fresh `state` (send_state)."""
        raise NotImplementedError

    async def send_state(self, *, seq: int, ended: bool, frame: dict[str, Any]) -> None:
        """Send a `state` frame with this seq, then the held events now in line."""
        released = self.order.restart(seq=seq, ended=ended)
        await self.send(text_data=events.dumps(frame))
        await self._send_events(released)

    async def _send_events(self, ordered: list[sequencing.Event]) -> None:
        for event in ordered:
            await self.send(text_data=self.encode(event))
        self._arm()

    async def redis_back(self) -> None:
        """Redis was away: events may be lost without a gap to show it (games.live.redis_watch)."""
        async with self.turn:
            await self._resync("Redis came back")

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
