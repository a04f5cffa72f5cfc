"""The persistent connection's health check, only when the connection has been idle.

With CONN_HEALTH_CHECKS, Django tests a persistent connection with a `SELECT 1` before the
first query of every request: a whole round trip to PostgreSQL per move, about a seventh of
the move's statements (docs/PERFORMANCE.md). The check is for a connection that died while
the worker was idle (PostgreSQL restarted, a proxy dropped it), which the next request would
otherwise meet. A connection that answered a request less than `RECENTLY_USED_S` ago is taken
as alive and not tested; one idle for longer is tested as before.

The window is short on purpose. A worker under load serves a request every few milliseconds
and skips the check. A connection that could have been cut between two requests has been idle
far longer than that, since a PostgreSQL restart (a stop, a start, its recovery) takes far
longer, so it is tested: tests/reliability/test_postgres_outage.py restarts PostgreSQL between
two requests and expects every request after it to work. (A first version skipped the check
for a whole second, which leaves room for a restart between two requests of one worker; one
failure of that test in a full run fitted that.) A connection that breaks under load
fails that request, as it would with the check, which cannot see a failure that happens after
it; Django closes it at the end of that request, since an error occurred, and the next request
connects afresh.
"""

from __future__ import annotations

import time
from typing import Any

from django.core.signals import request_finished, request_started
from django.db import connections

RECENTLY_USED_S = 0.05
_USED_AT = "_demineur_used_at"


def _remember_use(**_: Any) -> None:
    now = time.monotonic()
    for conn in connections.all(initialized_only=True):
        if conn.connection is not None and not conn.errors_occurred:
            setattr(conn, _USED_AT, now)


def _skip_check_if_recent(**_: Any) -> None:
    now = time.monotonic()
    for conn in connections.all(initialized_only=True):
        used_at = getattr(conn, _USED_AT, None)
        if (
            conn.connection is not None
            and getattr(conn, "health_check_enabled", False)
            and used_at is not None
            and now - used_at < RECENTLY_USED_S
        ):
            conn.health_check_done = True  # type: ignore[attr-defined]


def connect() -> None:
    """Called once at start-up (accounts.apps). Django's own `close_old_connections` was
    connected to both signals when django.db was imported, so it runs first: it resets
    `health_check_done` at the start of the request, and this sets it back for a connection
    in use a moment ago."""
    request_started.connect(_skip_check_if_recent, dispatch_uid="demineur_db_health_start")
    request_finished.connect(_remember_use, dispatch_uid="demineur_db_health_finish")
