"""Reads that may lag go to the PostgreSQL replica; everything else goes to the primary
(docs/DEPLOYMENT.md, "A PostgreSQL replica").

Without DATABASE_REPLICA_URL there is no `replica` alias and nothing here changes anything:
the router answers None (Django's own choice, the `default` alias) and the middleware passes
every request straight through.

With a replica:

* **Writes** always go to the primary (`db_for_write`), and so does every read made inside a
  transaction on the primary (a move, every ``select_for_update``, the services' atomic
  blocks): a read that decides a write never sees an old row.
* **Reads that may lag** -- leaderboards, profiles, game lists -- are marked by their selector
  (``with lagging_reads():`` or ``.using(read_alias())``) and go to the replica. Any other ORM
  read goes to the primary: a read is on the replica only because someone decided it may lag.
  A game (``games.play.selectors.game_get``) and its moves are always read on the primary: their
  reader compares them with the live events' ``seq``.
* **Read-your-own-writes**: the player who just wrote must not see the replica's past. The
  middleware identifies the client by its credential (the ``Authorization`` token or the
  session cookie, hashed; no database lookup) and, after any unsafe request (POST, PUT,
  PATCH, DELETE), leaves a marker in the cache (Redis) for REPLICA_PIN_SECONDS. While it is
  there, every read of that client goes to the primary; so does the signed-in player's own
  profile (``/api/me``) always. Other clients read the replica and may see the write up to
  the replica's lag later (milliseconds on a healthy network).
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import connections
from django.http import HttpRequest, HttpResponse

PRIMARY = "default"
REPLICA = "replica"
# Paths whose reads are always the primary's: the signed-in player's own profile.
PRIMARY_PATHS = ("/api/me",)
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})

# True while the current request (or socket message) must read the primary.
_pinned: ContextVar[bool] = ContextVar("demineur_db_pinned", default=False)
# True inside ``lagging_reads()``: the ORM reads made there may be served by the replica.
_lag_ok: ContextVar[bool] = ContextVar("demineur_db_lag_ok", default=False)


def replica_configured() -> bool:
    return REPLICA in settings.DATABASES


def read_alias() -> str:
    """Where a read that may lag goes now: the replica, unless there is none, the current
    client is pinned to the primary, or a transaction is open on the primary."""
    if not replica_configured() or _pinned.get():
        return PRIMARY
    if connections[PRIMARY].in_atomic_block:
        return PRIMARY
    return REPLICA


@contextlib.contextmanager
def lagging_reads() -> Iterator[str]:
    """The ORM reads made inside may be served by the replica; yields the alias they use
    (for raw SQL: ``connections[alias]``)."""
    token = _lag_ok.set(True)
    try:
        yield read_alias()
    finally:
        _lag_ok.reset(token)


@contextlib.contextmanager
def primary_reads() -> Iterator[None]:
    """Every read inside goes to the primary (a client that just wrote)."""
    token = _pinned.set(True)
    try:
        yield
    finally:
        _pinned.reset(token)


class PrimaryReplicaRouter:
    """DATABASE_ROUTERS entry. Without a replica every answer is None: Django's default."""

    def db_for_read(self, model: type[Any], **hints: Any) -> str | None:
        if not replica_configured():
            return None
        return read_alias() if _lag_ok.get() else PRIMARY

    def db_for_write(self, model: type[Any], **hints: Any) -> str | None:
        return PRIMARY if replica_configured() else None

    def allow_relation(self, obj1: Any, obj2: Any, **hints: Any) -> bool | None:
        # The replica is a copy of the primary: an object read on one may point at the other.
        return True if replica_configured() else None

    def allow_migrate(self, db: str, app_label: str, **hints: Any) -> bool | None:
        # The replica follows the primary's migrations through replication; never run there.
        return False if db == REPLICA else None


# --- read-your-own-writes -----------------------------------------------------------------


def client_key(request: HttpRequest) -> str | None:
    """Who is asking, from the credential alone (no database lookup): a hash of the API token
    or of the session cookie; None for a client with neither."""
    header = request.META.get("HTTP_AUTHORIZATION", "")
    credential = ""
    keyword, _, key = header.strip().partition(" ")
    if keyword.lower() in ("token", "bearer") and key.strip():
        credential = "t:" + key.strip()
    else:
        session = request.COOKIES.get(settings.SESSION_COOKIE_NAME, "")
        if session:
            credential = "s:" + session
    if not credential:
        return None
    return "dbpin:" + hashlib.sha256(credential.encode("utf-8", "replace")).hexdigest()[:32]


def pin_seconds() -> int:
    return int(getattr(settings, "REPLICA_PIN_SECONDS", 5))


class ReadYourWritesMiddleware:
    """Pins a client to the primary during its unsafe requests and for REPLICA_PIN_SECONDS
    after each one (a marker in the shared cache, so every web node sees it)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not replica_configured():
            return self.get_response(request)
        key = client_key(request)
        writes = request.method not in SAFE_METHODS
        pinned = writes or request.path.startswith(PRIMARY_PATHS)
        if not pinned and key is not None:
            pinned = bool(cache.get(key))
        if not pinned:
            return self.get_response(request)
        with primary_reads():
            response = self.get_response(request)
        if writes and key is not None:
            cache.set(key, 1, pin_seconds())
        return response
