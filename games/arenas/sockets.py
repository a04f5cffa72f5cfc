"""``/ws/arenas/{id}`` (API.md, Arenas): anyone may watch an arena's standings. Read-only.

Joins the arena's group first, then reads the Arena and the first page of standings and sends
``state``; then forwards the arena events of games.arenas.events in ``seq`` order
(games.live.sequenced: a gap is held a moment, then the arena is re-read and a fresh
``state`` sent). No frame ever carries a cell. An unknown or non-uuid arena: one ``error``
(404 ``not_found``) and close 4404.
"""

from __future__ import annotations

from games.arenas import events as arena_events
from games.arenas import selectors as arena_selectors
from games.arenas.presenters import arena_dict
from games.live.sequenced import FeedConsumer


class ArenaConsumer(FeedConsumer):
    feed = "arena"
    feed_group = staticmethod(arena_events.arena_group)
    parse_feed_id = staticmethod(arena_selectors.parse_arena_id)

    def read(self, feed_id: str) -> arena_events.StandingsEvent:
        arena = arena_selectors.arena_get(arena_id=feed_id)
        return arena_events.standings_event(
            "state", arena=arena_dict(arena), standings=arena_selectors.first_page(arena)
        )

    async def send_read(self, state: arena_events.StandingsEvent) -> None:
        ended = state["arena"]["state"] == "finished"
        await self.send_state(seq=int(state["seq"]), ended=ended, frame=dict(state))

    arena_event = FeedConsumer.feed_event  # games.arenas.events.ARENA_EVENT_TYPE
