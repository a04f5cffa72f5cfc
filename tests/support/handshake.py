"""What a real server answered to a socket's opening handshake (a `websockets` client's
socket, asyncio or sync)."""

from __future__ import annotations

from typing import Any

EXTENSIONS = "Sec-WebSocket-Extensions"


def compression_declined(ws: Any) -> bool:
    """The client asked for permessage-deflate (the `websockets` client does by default, as
    browsers do) and the server answered without it (deploy.processes.WS_OPTIONS)."""
    asked = "permessage-deflate" in ws.request.headers.get(EXTENSIONS, "")
    return asked and ws.response.headers.get(EXTENSIONS) is None
