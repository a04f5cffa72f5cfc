"""WebSocket routes (API.md, Live updates), each to its room's socket (games.play.sockets,
games.play.event_stream, games.races.sockets, games.arenas.sockets). Any id is routed: the
consumer answers a non-uuid or unknown one with a 404 error body and close code 4404, like
REST's 404."""

from __future__ import annotations

import json
from typing import Any

from channels.generic.websocket import AsyncWebsocketConsumer
from django.urls import re_path

from demineur_site.api_errors import socket_error
from games.arenas import sockets as arena_sockets
from games.live.base import CLOSE_NOT_FOUND
from games.play import event_stream
from games.play import sockets as game_sockets
from games.races import sockets as race_sockets

websocket_urlpatterns: list[Any] = [
    re_path(r"^ws/games/(?P<game_id>[^/]{1,64})/?$", game_sockets.GameConsumer.as_asgi()),
    re_path(r"^ws/live/?$", game_sockets.LobbyConsumer.as_asgi()),
    re_path(r"^ws/races/(?P<race_id>[^/]{1,64})/?$", race_sockets.RaceConsumer.as_asgi()),
    re_path(r"^ws/arenas/(?P<arena_id>[^/]{1,64})/?$", arena_sockets.ArenaConsumer.as_asgi()),
    # Reached only through /api/stream/event (games.live.streams); as a socket it is a 404.
    re_path(r"^ws/stream/event/?$", event_stream.EventStreamConsumer.as_asgi()),
]


class UnknownPathConsumer(AsyncWebsocketConsumer):  # type: ignore[misc]  # channels ships no types
    """Any other /ws/ path: accepted, one 404 `not_found` error frame, closed with 4404 (as an
    unknown game is), never the router's 500."""

    async def connect(self) -> None:
        await self.accept()
        frame = socket_error(
            "not_found", "No such socket path.", {"path": self.scope["path"][:200]}
        )
        await self.send(text_data=json.dumps(frame))
        await self.close(code=CLOSE_NOT_FOUND)


websocket_urlpatterns.append(re_path(r"", UnknownPathConsumer.as_asgi()))
