"""``/ws/races/{id}`` (API.md, Races): anyone may watch a race. Read-only.

Joins the race's group first, then reads the Race and sends ``state``; then forwards the race
events of games.races.events in ``seq`` order (games.live.sequenced: an event that skips a
seq, as events published by two server processes can, is held a moment for the missing one,
then the race is re-read and a fresh ``state`` sent; events already covered are dropped by
their seq). No frame ever carries a cell. An unknown or non-uuid race: one ``error`` (404
``not_found``) and close 4404, as for games.
"""

from __future__ import annotations

import functools
import logging
import time
from typing import Any

from games.errors import GameError
from games.live import redis_watch, sequencing
from games.live.base import CLOSE_NOT_FOUND
from games.live.dbcall import db_call
from games.live.sequenced import SequencedConsumer
from games.play import events
from games.races import events as race_events
from games.races import selectors as race_selectors
from games.races import services as races

log = logging.getLogger(__name__)

OVER = ("finished", "cancelled")


def _read_race(race_id: str) -> dict[str, Any]:
    return races.race_json(race_selectors.race_get(race_id=race_id))


class RaceConsumer(SequencedConsumer):
    race_id: str
    ended_shares_seq = False  # a race's `ended` is numbered like every other race event

    async def connect(self) -> None:
        race_id = await self.route_id("race_id", race_selectors.parse_race_id)
        if race_id is None:
            return
        self.race_id = race_id
        race = await self.join_then_read(
            race_events.race_group(self.race_id), functools.partial(_read_race, self.race_id)
        )
        if race is None:
            return
        await self.accept()
        await self._send_race(race)
        redis_watch.watch.add(self)

    def encode(self, event: sequencing.Event) -> str:
        # Every spectator and racer of the race in this process gets the same text: encoded
        # once (a race event's (race, type, seq) is unique, as a game event's is).
        return events.encode_event(self.race_id, event)

    async def _send_race(self, race: dict[str, Any]) -> None:
        frame = race_events.race_event("state", race=race)
        await self.send_state(seq=int(race["seq"]), ended=race["state"] in OVER, frame=dict(frame))

    async def _resync(self, why: str) -> None:
        log.info("race %s: sending a fresh state (%s)", self.race_id, why)
        try:
            race = await db_call(_read_race)(self.race_id)
        except GameError:
            await self.close(code=CLOSE_NOT_FOUND)
            return
        await self._send_race(race)

    async def race_event(self, message: dict[str, Any]) -> None:
        step = self.order.receive(message["event"], now=time.monotonic())
        await self._send_events(step.send)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        # Read-only: nothing a client sends is parsed; a few frames, then the socket closes.
        await self._refuse_frame(GameError("invalid", "The race feed is read-only."))
