"""``/ws/arenas/{id}`` (API.md, Arenas): anyone may watch an arena's standings. Read-only.

Joins the arena's group first, then reads the Arena and the first page of standings and sends
``state``; then forwards the arena events of games.arenas.events in ``seq`` order
(games.live.sequenced: a gap is held a moment, then the arena is re-read and a fresh
``state`` sent). No frame ever carries a cell. An unknown or non-uuid arena: one ``error``
(404 ``not_found``) and close 4404.
"""

from __future__ import annotations

import functools
import logging
import time
from typing import Any

from channels.db import database_sync_to_async

from games.arenas import events as arena_events
from games.arenas import selectors as arena_selectors
from games.arenas.presenters import arena_dict
from games.errors import GameError
from games.live import redis_watch
from games.live.base import CLOSE_NOT_FOUND
from games.live.sequenced import SequencedConsumer

log = logging.getLogger(__name__)


def _read_arena(arena_id: str) -> arena_events.StandingsEvent:
    arena = arena_selectors.arena_get(arena_id=arena_id)
    return arena_events.standings_event(
        "state", arena=arena_dict(arena), standings=arena_selectors.first_page(arena)
    )


class ArenaConsumer(SequencedConsumer):
    arena_id: str
    ended_shares_seq = False  # an arena's `ended` is numbered like its other events

    async def connect(self) -> None:
        arena_id = await self.route_id("arena_id", arena_selectors.parse_arena_id)
        if arena_id is None:
            return
        self.arena_id = arena_id
        state = await self.join_then_read(
            arena_events.arena_group(self.arena_id), functools.partial(_read_arena, arena_id)
        )
        if state is None:
            return
        await self.accept()
        await self._send_arena(state)
        redis_watch.watch.add(self)

    async def _send_arena(self, state: arena_events.StandingsEvent) -> None:
        ended = state["arena"]["state"] == "finished"
        await self.send_state(seq=int(state["seq"]), ended=ended, frame=dict(state))

    async def _resync(self, why: str) -> None:
        log.info("arena %s: sending a fresh state (%s)", self.arena_id, why)
        try:
            state = await database_sync_to_async(_read_arena)(self.arena_id)
        except GameError:
            await self.close(code=CLOSE_NOT_FOUND)
            return
        await self._send_arena(state)

    async def arena_event(self, message: dict[str, Any]) -> None:
        step = self.order.receive(message["event"], now=time.monotonic())
        await self._send_events(step.send)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        # Read-only: nothing a client sends is parsed; a few frames, then the socket closes.
        await self._refuse_frame(GameError("invalid", "The arena feed is read-only."))
