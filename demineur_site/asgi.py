"""ASGI entry point: HTTP through Django, WebSockets through Channels (docs/LIVE.md).

`make run` serves it for WebSockets and the lifespan, with HTTP through Django's WSGI handler
beside it in the same process (demineur_site.dev_server, docs/perf/SERVER.md). In production
this application serves /ws/ (and may serve everything); docs/LIVE.md describes the split.
"""

import asyncio
import os
import warnings
from typing import Any

from django.core.asgi import get_asgi_application

# WhiteNoise streams static files from a sync iterator; under ASGIHandler Django warns on
# every file. Production serves static files from the WSGI workers, where it does not apply.
warnings.filterwarnings(
    "ignore", message="StreamingHttpResponse must consume synchronous iterators"
)

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "demineur_site.settings")
django_http = get_asgi_application()  # sets Django up before the consumers are imported

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from demineur_site import collector, logs, metrics, publish  # noqa: E402
from demineur_site.middleware import BodySizeLimitASGI  # noqa: E402
from games.live import redis_watch  # noqa: E402
from games.live.auth import WebSocketAuthMiddleware  # noqa: E402
from games.live.streams import NdjsonStream  # noqa: E402
from games.play.models import ENDED_STATES  # noqa: E402
from games.races import clock as race_clock  # noqa: E402
from games.routing import websocket_urlpatterns  # noqa: E402

# Token, or session cookie with this site's Origin, or anonymous read-only (games.live.auth).
sockets = WebSocketAuthMiddleware(URLRouter(websocket_urlpatterns))
# Bodies over MAX_REQUEST_BYTES are refused (413) before Django reads them.
django_doors = BodySizeLimitASGI(django_http)
# /api/stream/: the socket stack's frames as NDJSON lines (games.live.streams).
streams = NdjsonStream(sockets, game_over_states=ENDED_STATES)


async def http(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["path"] == metrics.PATH:  # Prometheus, in front of Django (demineur_site.metrics)
        await metrics.metrics_asgi(scope, receive, send)
        return
    logs.bind_asgi_request(scope)  # the request id on every line logged for this request
    door = streams if scope["path"].startswith("/api/stream/") else django_doors
    await door(scope, receive, send)


router = ProtocolTypeRouter({"http": http, "websocket": sockets})


async def application(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """The router, plus the ASGI lifespan: the race clock starts with the server and stops
    with it (games.races.clock; RACE_CLOCK=off leaves it to `manage.py race_clock`)."""
    if scope["type"] == "lifespan":
        await _lifespan(receive, send)
        return
    if not race_clock.started:
        # A server run without the lifespan protocol (uvicorn --lifespan off, daphne) starts
        # the clock on its first connection instead.
        publish.bind_server_loop(asyncio.get_running_loop())
        race_clock.start_in_process()
        collector.freeze_loaded_application()
    await router(scope, receive, send)


async def _lifespan(receive: Any, send: Any) -> None:
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            publish.bind_server_loop(asyncio.get_running_loop())
            race_clock.start_in_process()
            await redis_watch.keep_listening_at_start()
            collector.freeze_loaded_application()
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            race_clock.stop_in_process()
            await send({"type": "lifespan.shutdown.complete"})
            return
