"""Prometheus metrics of the app servers (docs/DEPLOYMENT.md, "Metrics and logs").

prometheus-client itself, not django-prometheus: the metrics are few and ours (a move, a
socket, an event), gunicorn and uvicorn both run several worker processes, and the client's
multiprocess mode (PROMETHEUS_MULTIPROC_DIR) is what sums them. django-prometheus would add
its own per-view and per-model metrics (with the raw path of an unresolved URL as a label in
some of them) and still need that mode under gunicorn.

* Every process counts into its own files under PROMETHEUS_MULTIPROC_DIR when it is set (the
  compose services and `make serve-prod` set it, one directory per server); a scrape of any
  worker reads them all. Unset (`make run`, the tests), each process has its own registry.
* `/metrics` is answered by `MetricsWSGI` / `metrics_asgi`, in front of Django: a scraper
  names no ALLOWED_HOSTS host. It is never public: the proxy answers 404 for it
  (docs/Caddyfile), and a request that carries X-Forwarded-For (it came through a proxy) is
  answered 404 here too. `METRICS=0` turns it off.
* Labels are bounded: a route is its URL name (`api:game-move`), never the raw path; an
  unresolved path is `unmatched`, a static file `static`.
* Races (and whatever else registers with `register_in_progress`) are read from the database
  at scrape time, once per scrape, not per process.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from glob import glob
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
    generate_latest,
    multiprocess,
)
from prometheus_client.core import GaugeMetricFamily, Metric

log = logging.getLogger(__name__)
# No `_created` series: the multiprocess mode has none either, and they double the output.
disable_created_metrics()  # type: ignore[no-untyped-call]

PATH = "/metrics"
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
# Seconds: a move answers in a few ms, a page in tens; anything over 2.5 s is an outage.
LATENCY_BUCKETS = (0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


def _multiprocess_dir() -> str:
    return str(getattr(settings, "PROMETHEUS_MULTIPROC_DIR", "") or "")


if _multiprocess_dir():
    # Before the first metric below: an unlabelled one opens its file as it is made.
    os.makedirs(_multiprocess_dir(), exist_ok=True)  # a container's /tmp/prometheus, say

REQUESTS = Counter(
    "demineur_http_requests",
    "HTTP requests answered by Django, by route (URL name), method and status.",
    ["route", "method", "status"],
)
LATENCY = Histogram(
    "demineur_http_request_duration_seconds",
    "Time from Django receiving a request to its answer, by route (URL name) and method.",
    ["route", "method"],
    buckets=LATENCY_BUCKETS,
)
MOVES = Counter(
    "demineur_moves",
    "Moves stored (committed), by action: reveal, flag, chord, pause, resume, resign, abandon.",
    ["action"],
)
SOCKETS = Gauge(
    "demineur_sockets_open",
    "WebSockets and NDJSON streams open, by consumer.",
    ["consumer"],
    multiprocess_mode="livesum",
)
EVENTS_PUBLISHED = Counter(
    "demineur_events_published",
    "Live events handed to the channel layer and acknowledged (demineur_site.publish).",
)
EVENTS_DROPPED = Counter(
    "demineur_events_dropped",
    "Live events not published: Redis failed to take them, or was skipped while away.",
    ["reason"],
)
DATABASE_UNAVAILABLE = Counter(
    "demineur_database_unavailable",
    "Requests and socket actions answered 503 because PostgreSQL could not be reached.",
    ["where"],
)
REDIS_ERRORS = Counter(
    "demineur_redis_errors",
    "Redis calls that failed (the caller fell back or dropped): cache, publish, socket caps.",
    ["where"],
)


def _forget_dead_processes(path: str) -> None:
    """A live gauge (sockets open) of a process that has gone must not count: its files are
    removed. A worker restarted by gunicorn or uvicorn has a new pid; this process's own pid
    may be a dead one's, so its stale files go at import (below)."""
    for name in glob(os.path.join(path, "gauge_live*_*.db")):
        try:
            pid = int(os.path.basename(name).rsplit("_", 1)[1][:-3])
        except ValueError:
            continue
        if pid == os.getpid():
            continue
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            multiprocess.mark_process_dead(pid, path)  # type: ignore[no-untyped-call]
        except PermissionError:
            pass  # alive, another user's


if _multiprocess_dir():
    # Before this process opens any live-gauge file: a dead process with the same pid may
    # have left one, whose count this process would otherwise start from.
    multiprocess.mark_process_dead(os.getpid(), _multiprocess_dir())  # type: ignore[no-untyped-call]


# --- What is in progress, read at scrape time ----------------------------------------------

_in_progress: dict[str, Callable[[], Mapping[str, int]]] = {}


def register_in_progress(kind: str, count_by_state: Callable[[], Mapping[str, int]]) -> None:
    """`count_by_state()` is called at each scrape: {state: how many}, for
    demineur_in_progress{kind=..., state=...}. games.apps registers the races."""
    _in_progress[kind] = count_by_state


class _InProgress:
    def describe(self) -> Iterable[Metric]:
        return [self._family()]

    @staticmethod
    def _family() -> GaugeMetricFamily:
        return GaugeMetricFamily(
            "demineur_in_progress",
            "Races (and other registered things) not finished yet, by state, read from "
            "the database at scrape time.",
            labels=["kind", "state"],
        )

    def collect(self) -> Iterator[Metric]:
        family = self._family()
        for kind, count_by_state in sorted(_in_progress.items()):
            try:
                counts = count_by_state()
            except Exception as exc:  # PostgreSQL away: the other metrics still answer
                log.warning("metrics: counting %s in progress failed (%r)", kind, exc)
                DATABASE_UNAVAILABLE.labels("metrics").inc()
                continue
            for state, count in sorted(counts.items()):
                family.add_metric([kind, state], count)
        yield family


class _ThisProcess:
    """The default registry (this process's metrics) inside a scrape's registry."""

    def collect(self) -> Iterator[Metric]:
        yield from REGISTRY.collect()


def exposition() -> bytes:
    """The text every scrape gets: every worker's counters (multiprocess mode) or this
    process's, and the in-progress gauges."""
    from django.db import close_old_connections, connection

    registry = CollectorRegistry(auto_describe=False)
    path = _multiprocess_dir()
    if path:
        _forget_dead_processes(path)
        multiprocess.MultiProcessCollector(registry, path=path)  # type: ignore[no-untyped-call]
    else:
        registry.register(_ThisProcess())
    registry.register(_InProgress())
    try:
        return generate_latest(registry)
    finally:
        if not connection.in_atomic_block:  # (a test's transaction is left alone)
            close_old_connections()  # outside Django's request cycle: give the connection back


def _refused(headers_forwarded: bool) -> bool:
    return not settings.METRICS or headers_forwarded


NOT_FOUND = b'{"error": {"code": "not_found", "message": "Not found.", "details": {}}}'


class MetricsWSGI:
    """Answers GET /metrics in front of the WSGI application (gunicorn: `web`)."""

    def __init__(self, app: Callable[..., Any]) -> None:
        self.app = app

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        if environ.get("PATH_INFO") != PATH:
            return self.app(environ, start_response)
        if _refused("HTTP_X_FORWARDED_FOR" in environ):
            start_response("404 Not Found", [("Content-Type", "application/json")])
            return [NOT_FOUND]
        body = exposition()
        start_response(
            "200 OK", [("Content-Type", CONTENT_TYPE_LATEST), ("Content-Length", str(len(body)))]
        )
        return [body]


async def metrics_asgi(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """GET /metrics on the ASGI processes (uvicorn: `live`); the scrape runs in a thread."""
    from channels.db import database_sync_to_async

    forwarded = any(name == b"x-forwarded-for" for name, _ in scope.get("headers") or [])
    if _refused(forwarded):
        status, body, kind = 404, NOT_FOUND, b"application/json"
    else:
        status, body, kind = (
            200,
            await database_sync_to_async(exposition)(),
            CONTENT_TYPE_LATEST.encode(),
        )
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", kind), (b"content-length", str(len(body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})


# --- Requests, per route ---------------------------------------------------------------------


def route_of(request: HttpRequest) -> str:
    """The URL name of what answered (bounded), never the path a client typed."""
    match = getattr(request, "resolver_match", None)
    if match is not None:
        return str(match.view_name or match.route or "unnamed")
    if request.path.startswith(settings.STATIC_URL):
        return "static"
    return "unmatched"


class RequestMetricsMiddleware:
    """demineur_http_requests_total and demineur_http_request_duration_seconds: outside every
    other middleware but the request id's, so that it sees the status a client got."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        # The labelled children, looked up once per (route, method, status): prometheus-
        # client's labels() checks and converts its arguments under a lock at every call.
        self._children: dict[tuple[str, str, int], tuple[Any, Any]] = {}

    def __call__(self, request: HttpRequest) -> HttpResponse:
        started = time.perf_counter()
        response = self.get_response(request)
        elapsed = time.perf_counter() - started
        method = request.method if request.method in METHODS else "other"
        key = (route_of(request), str(method), response.status_code)
        children = self._children.get(key)
        if children is None:
            route, _, status = key
            children = (LATENCY.labels(route, method), REQUESTS.labels(route, method, str(status)))
            self._children[key] = children
        children[0].observe(elapsed)
        children[1].inc()
        return response
