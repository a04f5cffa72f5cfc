"""The sockets' calls into the database: channels' `database_sync_to_async`, but the one
database thread keeps its pooled connection from one call to the next (a fresh connection per call cost the socket move a connect).

Every socket of a process runs its sync code in one thread (channels' calls are
thread-sensitive). channels closes the thread's connections before and after every call
(`close_old_connections`); with the pool (`DB_POOL=1`, `CONN_MAX_AGE=0`, what the live process
runs) that gives the connection back and takes one again at the next call: the pool's check of
the lent connection (a round trip), Django's connection set-up, and psycopg's prepared
statements met on another connection. A socket move paid that on every frame
(docs/PERFORMANCE.md, The move over the socket).

Here a pooled connection stays with the thread while it is in use, with the same safety as
demineur_site.db_health gives the WSGI workers' persistent connections:

* a connection idle for `RECENTLY_USED_S` or longer is tested (`is_usable`, one `SELECT 1`)
  before the next call uses it, and given back if it fails: a PostgreSQL restart between two
  moves is met by the test, not by the move;
* a call that left an error (other than a data or integrity error), an open transaction or
  autocommit off gives its connection back at once, as Django would;
* a connection is given back after `HOLD_S` seconds, so that the pool still recycles it
  (its `max_lifetime`) and an idle process holds nothing for long.

Connections without the pool (`make run`'s SQLite, the tests' persistent ones) are handled
exactly as channels does (`close_old_connections`).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from asgiref.sync import SyncToAsync
from django.db import close_old_connections, connections

from demineur_site import publish
from demineur_site.db_health import RECENTLY_USED_S

T = TypeVar("T")
HOLD_S = 30.0
_HELD = "_demineur_socket_held"  # (the driver connection, taken at, last used at)


def _pooled(conn: Any) -> bool:
    return bool(getattr(conn, "pool", None))


def _give_back(conn: Any) -> None:
    setattr(conn, _HELD, None)
    conn.close()


def _each_pooled(visit: Callable[[Any], None]) -> None:
    """Run `visit` on each pooled connection the thread has set up; when it also has some
    without the pool, they are then handled exactly as channels does (`close_old_connections`)."""
    plain = False
    for conn in connections.all(initialized_only=True):
        if _pooled(conn):
            visit(conn)
        else:
            plain = True
    if plain:
        close_old_connections()


def before_call(now: float | None = None) -> None:
    """Before the thread runs a socket's call: a held connection still fit for use stays."""
    now = time.monotonic() if now is None else now

    def check(conn: Any) -> None:
        if conn.connection is None:
            return
        held = getattr(conn, _HELD, None)
        if (
            held is None
            or held[0] is not conn.connection
            or now - held[1] >= HOLD_S
            or (now - held[2] >= RECENTLY_USED_S and not conn.is_usable())
        ):
            _give_back(conn)

    _each_pooled(check)


def after_call(now: float | None = None) -> None:
    """After the call: keep a healthy pooled connection for the next one."""
    now = time.monotonic() if now is None else now

    def keep(conn: Any) -> None:
        if conn.connection is None:
            setattr(conn, _HELD, None)
            return
        if (
            conn.errors_occurred
            or conn.in_atomic_block
            or conn.get_autocommit() != conn.settings_dict["AUTOCOMMIT"]
        ):
            _give_back(conn)
            return
        held = getattr(conn, _HELD, None)
        taken = held[1] if held is not None and held[0] is conn.connection else now
        setattr(conn, _HELD, (conn.connection, taken, now))

    _each_pooled(keep)


class SocketDatabaseCall(SyncToAsync[..., Any]):
    """`database_sync_to_async` with the connection kept (see the module docstring)."""

    def thread_handler(self, loop: Any, *args: Any, **kwargs: Any) -> Any:
        before_call()
        try:
            return super().thread_handler(loop, *args, **kwargs)  # type: ignore[no-untyped-call]
        finally:
            after_call()


def db_call(func: Callable[..., T]) -> Callable[..., Awaitable[T]]:
    """`await db_call(f)(*args)`: run `f` in the sockets' database thread. The live events it
    publishes are sent from the calling loop once it returns, or raises, before the caller goes
    on (demineur_site.publish.collect_into): the thread is not held for Redis."""
    call = SocketDatabaseCall(func, thread_sensitive=True)

    async def run(*args: Any, **kwargs: Any) -> T:
        events: publish.Collected = []
        token = publish.collect_into(events)
        try:
            result: T = await call(*args, **kwargs)
        finally:
            publish.stop_collecting(token)
            await publish.send_collected(events)
        return result

    return run
