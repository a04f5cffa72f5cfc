"""Health endpoints for load balancers, the compose file and the soak script
(docs/RELIABILITY.md, "Health endpoints").

* ``/healthz``: the process answers. Touches neither the database nor Redis: a server whose
  database is down is alive (restarting it would not help), only not ready.
* ``/readyz``: PostgreSQL (or SQLite) and Redis answer, each one's state in the body; 200 when
  every configured service answers, else 503. Each check is bounded (about 2 s): a database
  that is down answers it with an error, not a hang.

Plain Django views, outside /api/ and DRF: no authentication, no throttle, no CSRF, no session
and no template; GET and HEAD only.
"""

from __future__ import annotations

import threading
import time
from typing import Any

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


def check_redis() -> dict[str, Any]:
    url = getattr(settings, "REDIS_URL", "")
    if not url:
        # Not configured: the in-memory channel layer and cache; nothing to wait for.
        return {"ok": None, "configured": False}
    start = time.perf_counter()
    try:
        _redis_client(url).ping()
    except Exception as exc:
        return {"ok": False, "configured": True, "ms": _ms(start), "error": _error_text(exc)}
    return {"ok": True, "configured": True, "ms": _ms(start)}


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
    ready = all(check["ok"] is not False for check in checks.values())
    return JsonResponse(
        {"status": "ready" if ready else "unavailable", "checks": checks},
        status=200 if ready else 503,
    )
