"""Health endpoints for load balancers, the compose file and the soak script
(docs/RELIABILITY.md, "Health endpoints").

* ``/healthz``: the process answers. Touches neither the database nor Redis: a server whose
  database is down is alive (restarting it would not help), only not ready.
* ``/readyz``: PostgreSQL (or SQLite), its replica if any, and every Redis host answer, each one's state in the body; 200 when
  every configured service answers, else 503. Each check is bounded (about 2 s): a database
  that is down answers it with an error, not a hang.

Plain Django views, outside /api/ and DRF: no authentication, no throttle, no CSRF, no session
and no template; GET and HEAD only.
"""

from __future__ import annotations

import threading
import time
from typing import Any
from urllib.parse import urlparse

from django.conf import settings
from django.db import connections
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_safe

# The bound of each readiness check, in seconds (DB_CONNECT_TIMEOUT bounds a new database
# connection the same way).
CHECK_TIMEOUT_SECONDS = 2.0


def _ms(start: float) -> float:
    return round((time.perf_counter() - start) * 1000, 1)


def _error_text(exc: BaseException) -> str:
    # The class and the first line only: enough to diagnose, never a connection string.
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {first}"[:200]


def check_database(alias: str = "default") -> dict[str, Any]:
    start = time.perf_counter()
    connection = connections[alias]
    try:
        pool = getattr(connection, "pool", None)
        if pool is not None:
            # DB_POOL=1: borrow a pooled connection for at most CHECK_TIMEOUT_SECONDS (the
            # pool's own timeout may be longer) and give it straight back.
            pool.open()  # as Django does on first use; no-op once open
            conn = pool.getconn(timeout=CHECK_TIMEOUT_SECONDS)
            try:
                conn.execute("SELECT 1")
            finally:
                pool.putconn(conn)
        else:
            # Persistent connection (CONN_HEALTH_CHECKS) or SQLite: a fresh connection is
            # bounded by connect_timeout.
            with connection.cursor() as cursor:
                cursor.execute("SELECT 1")
                cursor.fetchone()
    except Exception as exc:  # any failure means "not ready", never a 500
        connection.close_if_unusable_or_obsolete()
        return {"ok": False, "ms": _ms(start), "error": _error_text(exc)}
    return {"ok": True, "ms": _ms(start)}


_redis_clients: dict[str, Any] = {}
_redis_lock = threading.Lock()


def _redis_client(url: str) -> Any:
    """One small client per process: a probe reuses its connection rather than opening one."""
    with _redis_lock:
        client = _redis_clients.get(url)
        if client is None:
            import redis

            client = redis.Redis.from_url(
                url,
                socket_connect_timeout=CHECK_TIMEOUT_SECONDS,
                socket_timeout=CHECK_TIMEOUT_SECONDS,
                retry_on_timeout=False,
                max_connections=4,
            )
            _redis_clients[url] = client
        return client


def redis_hosts() -> list[str]:
    """The Redis hosts in use: REDIS_URLS, whose first host is REDIS_URL; a REDIS_URL that is
    not their first (set alone, or overridden by a test) is one host."""
    url = str(getattr(settings, "REDIS_URL", "") or "")
    urls = [str(u) for u in getattr(settings, "REDIS_URLS", None) or [] if u]
    if urls and urls[0] == url:
        return urls
    return [url] if url else []


def check_redis() -> dict[str, Any]:
    """PING every Redis host (REDIS_URLS, or REDIS_URL alone): an outage of any one loses the
    live events of the channels it shards. With several hosts, each one's answer is in
    `hosts` (host:port only, never a password)."""
    urls = redis_hosts()
    if not urls:
        # Not configured: the in-memory channel layer and cache; nothing to wait for.
        return {"ok": None, "configured": False}
    start = time.perf_counter()
    hosts: list[dict[str, Any]] = []
    for url in urls:
        one = time.perf_counter()
        parsed = urlparse(url)
        entry: dict[str, Any] = {"host": f"{parsed.hostname or ''}:{parsed.port or 6379}"}
        try:
            _redis_client(url).ping()
        except Exception as exc:
            entry.update(ok=False, ms=_ms(one), error=_error_text(exc))
        else:
            entry.update(ok=True, ms=_ms(one))
        hosts.append(entry)
    result: dict[str, Any] = {
        "ok": all(h["ok"] for h in hosts),
        "configured": True,
        "ms": _ms(start),
    }
    failed = [h for h in hosts if not h["ok"]]
    if failed:
        result["error"] = failed[0]["error"]
    if len(hosts) > 1:
        result["hosts"] = hosts
    return result


@csrf_exempt
@require_safe
@never_cache
def healthz(request: HttpRequest) -> HttpResponse:
    return JsonResponse({"status": "ok"})


@csrf_exempt
@require_safe
@never_cache
def readyz(request: HttpRequest) -> HttpResponse:
    checks = {"database": check_database(), "redis": check_redis()}
    if "replica" in settings.DATABASES:
        checks["replica"] = check_database("replica")
    # A replica that does not answer is reported but leaves the node ready: moves, sign-ins
    # and games only need the primary; the reads that may lag answer 503 until it is back.
    ready = all(check["ok"] is not False for name, check in checks.items() if name != "replica")
    return JsonResponse(
        {"status": "ready" if ready else "unavailable", "checks": checks},
        status=200 if ready else 503,
    )
