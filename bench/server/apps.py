"""The other WSGI bridges measured beside demineur_site.dev_server, for bench/server only:
HTTP through a package's WSGI-to-ASGI adapter around Django's WSGI handler, everything else
(WebSockets, the lifespan) through demineur_site.asgi, as in the dev server.

* `a2wsgi_app`: a2wsgi's WSGIMiddleware (its own thread pool of 10).
* `wsgitoasgi_app`: asgiref's WsgiToAsgi (one thread for every request: thread-sensitive).
* `bridge_app`: demineur_site.dev_server's bridge with BENCH_BRIDGE_THREADS pool threads.
"""

from __future__ import annotations

import os
from typing import Any

from django.core.handlers.wsgi import WSGIHandler

from demineur_site import asgi as full_asgi  # sets Django up first
from demineur_site.middleware import BodySizeLimitASGI
from games.races import clock as race_clock


def _with_sockets(http: Any) -> Any:
    guarded = BodySizeLimitASGI(http)

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            if not race_clock.started:
                race_clock.start_in_process()
            await guarded(scope, receive, send)
            return
        await full_asgi.application(scope, receive, send)

    return app


def _a2wsgi() -> Any:
    from a2wsgi import WSGIMiddleware

    return _with_sockets(WSGIMiddleware(WSGIHandler()))


def _wsgitoasgi() -> Any:
    from asgiref.wsgi import WsgiToAsgi

    return _with_sockets(WsgiToAsgi(WSGIHandler()))  # type: ignore[no-untyped-call]


def _bridge() -> Any:
    from demineur_site.dev_server import WSGIBridge

    threads = int(os.environ.get("BENCH_BRIDGE_THREADS", "2"))
    return _with_sockets(WSGIBridge(WSGIHandler(), threads=threads))


def __getattr__(name: str) -> Any:
    # Built on first use: a server imports only the one it serves (a2wsgi may be missing).
    builders = {"a2wsgi_app": _a2wsgi, "wsgitoasgi_app": _wsgitoasgi, "bridge_app": _bridge}
    if name not in builders:
        raise AttributeError(name)
    app = builders[name]()
    globals()[name] = app
    return app
