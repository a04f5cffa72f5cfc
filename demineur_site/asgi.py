"""ASGI entry point: HTTP through Django, WebSockets through Channels (docs/LIVE.md).

`make run` serves both from one uvicorn process on one address. In production the same
application serves /ws/ (and may serve everything); docs/LIVE.md describes the split layout.
"""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "demineur_site.settings")
django_http = get_asgi_application()  # sets Django up before the consumers are imported

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from games.routing import websocket_urlpatterns  # noqa: E402
from games.ws_auth import WebSocketAuthMiddleware  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_http,
        # Token, or session cookie with this site's Origin, or anonymous read-only (games.ws_auth).
        "websocket": WebSocketAuthMiddleware(URLRouter(websocket_urlpatterns)),
    }
)
