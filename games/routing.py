"""WebSocket routes (filled in by the live-updates work)."""

from __future__ import annotations

from typing import Any

websocket_urlpatterns: list[Any] = []
