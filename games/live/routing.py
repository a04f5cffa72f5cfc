"""WebSocket routes (API.md, Live updates). Any id is routed: the consumer answers a
non-uuid or unknown one with a 404 error body and close code 4404, like REST's 404."""

from __future__ import annotations

from typing import Any

from django.urls import re_path

from games.live import consumers, race_consumers

websocket_urlpatterns: list[Any] = [
    re_path(r"^ws/games/(?P<game_id>[^/]{1,64})/?$", consumers.GameConsumer.as_asgi()),
    re_path(r"^ws/live/?$", consumers.LobbyConsumer.as_asgi()),
    re_path(r"^ws/races/(?P<race_id>[^/]{1,64})/?$", race_consumers.RaceConsumer.as_asgi()),
]
