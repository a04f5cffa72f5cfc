"""``/ws/races/{id}`` (API.md, Races): anyone may watch a race. Read-only.

Joins the race's group first, then reads the Race and sends ``state``; then forwards the race
events of games.races.events in ``seq`` order (games.live.sequenced: an event that skips a
seq, as events published by two server processes can, is held a moment for the missing one,
then the race is re-read and a fresh ``state`` sent; events already covered are dropped by
their seq). No frame ever carries a cell. An unknown or non-uuid race: one ``error`` (404
``not_found``) and close 4404, as for games.
"""

from __future__ import annotations

from typing import Any

from games.live import sequencing
from games.live.sequenced import FeedConsumer
from games.play import events
from games.races import events as race_events
from games.races import selectors as race_selectors
from games.races import services as races

OVER = ("finished", "cancelled")


class RaceConsumer(FeedConsumer):
    feed = "race"
    feed_group = staticmethod(race_events.race_group)
    parse_feed_id = staticmethod(race_selectors.parse_race_id)

    def read(self, feed_id: str) -> dict[str, Any]:
        return races.race_json(race_selectors.race_get(race_id=feed_id))

    def encode(self, event: sequencing.Event) -> str:
        # Every spectator and racer of the race in this process gets the same text: encoded
        # once (a race event's (race, type, seq) is unique, as a game event's is).
        return events.encode_event(self.feed_id, event)

    async def send_read(self, race: dict[str, Any]) -> None:
        frame = race_events.race_event("state", race=race)
        await self.send_state(seq=int(race["seq"]), ended=race["state"] in OVER, frame=dict(frame))

    race_event = FeedConsumer.feed_event  # games.races.events.RACE_EVENT_TYPE
