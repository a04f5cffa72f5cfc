"""``/ws/races/{id}`` (API.md, Races): anyone may watch a race. Read-only.

Joins the race's group first, then reads the Race and sends ``state``; then forwards the race
events of games.race_events in ``seq`` order. An event that skips a seq (events published by
two server processes can cross) makes the socket re-read the race and send a fresh ``state``;
events already covered by it are dropped by their seq. No frame ever carries a cell. An
unknown or non-uuid race: one ``error`` (404 ``not_found``) and close 4404, as for games.
"""

from __future__ import annotations

import functools
import logging
from typing import Any

from channels.db import database_sync_to_async

from . import events, race_events, race_selectors, races, redis_watch
from .errors import GameError
from .socket_base import LeanConsumer

log = logging.getLogger(__name__)


def _read_race(race_id: str) -> dict[str, Any]:
    return races.race_json(race_selectors.race_get(race_id=race_id))


class RaceConsumer(LeanConsumer):
    race_id: str
    group: str | None = None
    last_seq = -1

    async def connect(self) -> None:
        raw = self.scope["url_route"]["kwargs"].get("race_id")
        try:
            self.race_id = str(race_selectors.parse_race_id(raw))
        except GameError as exc:
            await self._refuse(exc)
            return
        race = await self.join_then_read(
            race_events.race_group(self.race_id), functools.partial(_read_race, self.race_id)
        )
        if race is None:
            return
        await self.accept()
        await self._send_state(race)
        redis_watch.watch.add(self)

    async def disconnect(self, code: int) -> None:
        redis_watch.watch.discard(self)
        if self.group is not None:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def _send_state(self, race: dict[str, Any]) -> None:
        self.last_seq = int(race["seq"])
        self.ended = race["state"] in ("finished", "cancelled")
        await self.send(text_data=events.dumps(race_events.race_event("state", race=race)))

    async def _resync(self, why: str) -> None:
        log.info("race %s: sending a fresh state (%s)", self.race_id, why)
        try:
            race = await database_sync_to_async(_read_race)(self.race_id)
        except GameError:
            await self.close(code=4404)
            return
        await self._send_state(race)

    async def redis_back(self) -> None:
        """Redis was away: events may be lost without a gap to show it (games.redis_watch)."""
        async with self.turn:
            await self._resync("Redis came back")

    async def race_event(self, message: dict[str, Any]) -> None:
        event = message["event"]
        seq = int(event["seq"])
        if seq <= self.last_seq or self.ended:
            return  # already in the state sent, or the race is over
        if seq != self.last_seq + 1:
            await self._resync(f"seq {seq} after {self.last_seq}")
            return
        self.last_seq = seq
        if event["type"] in ("ended",) or (
            event["type"] == "left" and event["race"]["state"] == "cancelled"
        ):
            self.ended = True
        await self.send(text_data=events.dumps(event))

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        # Read-only: nothing a client sends is parsed; a few frames, then the socket closes.
        await self._refuse_frame(GameError("invalid", "The race feed is read-only."))
