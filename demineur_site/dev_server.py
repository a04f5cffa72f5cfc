"""`make run`'s application: HTTP through Django's WSGI handler in a thread pool, everything
else (WebSockets, the ASGI lifespan) through demineur_site.asgi, in one ASGI server process on
one address (docs/perf/SERVER.md says why: measured there against Django's ASGIHandler).

Django over ASGI pays, per request, a ThreadSensitiveContext with a fresh executor thread and
several sync/async hops through the middleware chain (../shared/perf: about five times the
CPU of a WSGI worker). Here a request costs one hop: the ASGI side reads the (size-limited)
body, one pool thread runs the plain WSGI application to the end and returns the whole answer,
which the ASGI side sends.

The pool threads are asgiref's `sync_to_async(thread_sensitive=False)` threads on purpose:
they know the server's event loop, so with the in-memory channel layer (no REDIS_URL) a move's
`async_to_sync(group_send)` (demineur_site.publish) runs on that loop, where the watchers' sockets wait
(a WSGI bridge with threads of its own would publish on a private loop that nobody reads).

Answers are buffered, not streamed: the site streams nothing but WhiteNoise's static files,
which are small. Request headers whose name holds an underscore are dropped, as gunicorn does
in production (they would collide with their dashed twins in the WSGI environ).
"""

from __future__ import annotations

import io
import sys
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from asgiref.sync import sync_to_async
from django.core.handlers.wsgi import WSGIHandler

from demineur_site import asgi as full_asgi  # sets Django up first; sockets and the lifespan
from demineur_site.logs import RequestIdWSGI
from demineur_site.metrics import MetricsWSGI
from demineur_site.middleware import BodySizeLimitASGI
from games.races import clock as race_clock

# Threads running Django views at once. Two, measured (docs/perf/SERVER.md): on SQLite, writes
# take the file's lock and every further writer waits in SQLite's busy handler, so more threads
# stretch the tail of concurrent moves (p99 at 8 clients: 155 ms with 2 threads, 905 with 4,
# 1,460 with 8) and buy nothing on two cores under the GIL (pages and health checks within the
# noise). The sockets do not use these threads.
HTTP_THREADS = 2

Answer = tuple[int, list[tuple[bytes, bytes]], bytes]


def wsgi_environ(scope: dict[str, Any], body: bytes) -> dict[str, Any]:
    """The PEP 3333 environ of an ASGI HTTP scope and its whole body."""
    server = scope.get("server") or ("localhost", 80)
    client = scope.get("client") or ("", 0)
    root_path: str = scope.get("root_path", "")
    path: str = scope["path"]
    if root_path and path.startswith(root_path):
        path = path[len(root_path) :]
    environ: dict[str, Any] = {
        "REQUEST_METHOD": scope["method"],
        # WSGI strings are bytes decoded as latin-1; ASGI paths are decoded UTF-8.
        "SCRIPT_NAME": root_path.encode().decode("latin-1"),
        "PATH_INFO": path.encode().decode("latin-1"),
        "QUERY_STRING": scope.get("query_string", b"").decode("latin-1"),
        "SERVER_NAME": str(server[0]),
        "SERVER_PORT": str(server[1] if server[1] is not None else 80),
        "SERVER_PROTOCOL": f"HTTP/{scope.get('http_version', '1.1')}",
        "REMOTE_ADDR": str(client[0]),
        "REMOTE_PORT": str(client[1]),
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": scope.get("scheme", "http"),
        "wsgi.input": io.BytesIO(body),
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": False,
        "wsgi.run_once": False,
    }
    for raw_name, raw_value in scope.get("headers", []):
        name = raw_name.decode("latin-1").upper()
        if "_" in name:
            continue
        value = raw_value.decode("latin-1")
        if name == "CONTENT-TYPE":
            key = "CONTENT_TYPE"
        elif name == "CONTENT-LENGTH":
            key = "CONTENT_LENGTH"
        else:
            key = "HTTP_" + name.replace("-", "_")
        if key in environ:
            value = environ[key] + ("; " if key == "HTTP_COOKIE" else ",") + value
        environ[key] = value
    return environ


class WSGIBridge:
    """An ASGI HTTP application running a WSGI application in a pool of asgiref threads."""

    def __init__(self, wsgi_app: Any, threads: int = HTTP_THREADS) -> None:
        self.wsgi_app = wsgi_app
        self.executor = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="http")
        self._run = sync_to_async(self.run, thread_sensitive=False, executor=self.executor)

    def run(self, environ: dict[str, Any]) -> Answer:
        """In a pool thread: the WSGI call, to the end of its answer (its close() included,
        which is when Django sends request_finished)."""
        started: list[Any] = []
        chunks: list[bytes] = []

        def start_response(
            status: str, headers: list[tuple[str, str]], exc_info: Any = None
        ) -> Any:
            if exc_info is not None and started:
                raise exc_info[1].with_traceback(exc_info[2])
            started[:] = [status, headers]
            return chunks.append

        result = self.wsgi_app(environ, start_response)
        try:
            for chunk in result:
                if chunk:
                    chunks.append(chunk)
        finally:
            close = getattr(result, "close", None)
            if close is not None:
                close()
        if not started:
            raise RuntimeError("the WSGI application returned without start_response")
        status, headers = started
        encoded = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers]
        return int(status.split(" ", 1)[0]), encoded, b"".join(chunks)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        parts: list[bytes] = []
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client left before the end of its body
            parts.append(message.get("body", b""))
            if not message.get("more_body", False):
                break
        status, headers, body = await self._run(wsgi_environ(scope, b"".join(parts)))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body, "more_body": False})


# Bodies over MAX_REQUEST_BYTES are refused (413) before any is read, as in demineur_site.asgi;
# /metrics and the request id as in demineur_site.wsgi.
http = BodySizeLimitASGI(WSGIBridge(RequestIdWSGI(MetricsWSGI(WSGIHandler()))))


async def application(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """HTTP through the bridge; WebSockets, the NDJSON streams (/api/stream/, long-lived: they
    must not hold a bridge thread) and the lifespan (the race clock) through
    demineur_site.asgi.application, exactly as when it serves everything."""
    if scope["type"] == "http" and not scope["path"].startswith("/api/stream/"):
        if not race_clock.started:
            race_clock.start_in_process()  # a server run without the lifespan
        await http(scope, receive, send)
        return
    await full_asgi.application(scope, receive, send)
