"""The sockets a credential opened, and closing them when the credential ends.

API.md, Fine points: "Revoking a token (or signing out) closes every socket it opened."

* Every socket signed in with an API token joins the channel-layer group ``token.<id>``;
  every socket signed in with a session cookie joins ``session.<sha256 of the session key>``
  (the key itself never leaves the session store: it is what the cookie carries).
* Revoking a token or signing out sends one ``auth.kick`` message to that group after the
  transaction commits; each consumer answers with one ``error`` (401
  ``authentication_failed``) and closes with code 4401 (games.live.base).
* Channel-layer messages are fire-and-forget (Redis Pub/Sub), so the consumer also checks,
  before each move it stores, that its credential still exists: a move sent after the
  revocation committed is refused even if the kick is lost or late. A token is checked by
  the statement that locks the game (`still_signed_in_condition`), a session by
  `credential_is_valid`; nothing about either is cached between moves.

Nothing here imports the games app; games.live.auth, games.live.base and games.play.sockets import
this module.
"""

from __future__ import annotations

import functools
import hashlib
import logging
from dataclasses import dataclass
from importlib import import_module
from typing import Any

from django.conf import settings
from django.contrib.auth import HASH_SESSION_KEY, SESSION_KEY
from django.utils.crypto import constant_time_compare

from accounts.models import ApiToken, User
from demineur_site import publish
from demineur_site.rawsql import columns, run

log = logging.getLogger(__name__)

KICK_TYPE = "auth.kick"  # dispatched to the consumers' auth_kick()
REASON_TOKEN_REVOKED = "token_revoked"
REASON_SIGNED_OUT = "signed_out"


def token_group(token_id: int) -> str:
    return f"token.{int(token_id)}"


def session_group(session_key: str) -> str:
    # Group names travel in Redis channel names: a hash, never the key a cookie carries.
    return "session." + hashlib.sha256(session_key.encode()).hexdigest()[:48]


@dataclass(frozen=True)
class SocketCredential:
    """How a socket signed in, decided once at the handshake (games.live.auth)."""

    method: str  # "token" or "session"
    user_id: int
    token_id: int | None = None
    session_key: str | None = None

    @property
    def group(self) -> str:
        if self.token_id is not None:
            return token_group(self.token_id)
        return session_group(self.session_key or "")


@functools.cache
def _token_still_valid_sql() -> str:
    """The token exists, is the user's, and the user is active (what
    `ApiToken.objects.filter(pk=..., user_id=..., user__is_active=True).exists()` asks)."""
    users, tokens = columns(User), columns(ApiToken)
    return (
        f"SELECT 1 FROM {tokens.table} JOIN {users.table}"
        f" ON {users.table}.{users.pk_name} = {tokens.table}.user_id"
        f" WHERE {tokens.table}.{tokens.pk_name} = %s AND {tokens.table}.user_id = %s"
        f" AND {users.table}.is_active"
    )


def still_signed_in_condition(credential: SocketCredential | None) -> tuple[str, list[Any]] | None:
    """The token re-check as a condition of the move's own row lock (games.play.move_store
    `lock_only_if`): `EXISTS (...)` and its parameters, the same question as
    `credential_is_valid` asks, answered by the statement that locks the game, so a socket
    move costs no round trip for it (the socket is the fast door). None for a session (or no credential): its
    check stays the separate `credential_is_valid`. When the lock then finds no row, the
    caller asks `credential_is_valid` to tell a revoked token from an unknown game."""
    if credential is None or credential.token_id is None:
        return None
    return f"EXISTS ({_token_still_valid_sql()})", [credential.token_id, credential.user_id]


def credential_is_valid(credential: SocketCredential) -> bool:
    """Still the same signed-in user? Sync (database); the consumer calls it in the thread of
    each move, before the move is stored."""
    if credential.token_id is not None:
        # Every socket move asks this: one hand-written statement (demineur_site.rawsql), as
        # the REST token lookup, instead of the ORM's join built afresh each time.
        found = run(
            "default",
            _token_still_valid_sql(),
            [credential.token_id, credential.user_id],
            fetch=True,
        )
        return found is not None
    if not credential.session_key:
        return False
    store = import_module(settings.SESSION_ENGINE).SessionStore(credential.session_key)
    data: dict[str, Any] = store.load()  # no side effect: a missing session loads as {}
    if str(data.get(SESSION_KEY)) != str(credential.user_id):
        return False
    user = User.objects.filter(pk=credential.user_id, is_active=True).first()
    if user is None:
        return False
    stored_hash = data.get(HASH_SESSION_KEY) or ""
    # As django.contrib.auth.get_user does (a password change signs other sessions out), but
    # without writing anything: a session that only verifies with a fallback secret still
    # counts, the next HTTP request rotates it.
    hashes = [user.get_session_auth_hash(), *user.get_session_auth_fallback_hash()]
    return bool(stored_hash) and any(constant_time_compare(stored_hash, h) for h in hashes)


def kick_on_commit(group: str, reason: str) -> None:
    """Close every socket of `group` once the current transaction commits (at once outside
    one), through the one publisher (its breaker; never silenced by LIVE_EVENTS). If the kick
    cannot be sent the revocation still stands: the consumer re-checks the credential on
    every move."""
    publish.on_commit(group, {"type": KICK_TYPE, "reason": reason}, live=False)


def kick_token_sockets(token_id: int) -> None:
    kick_on_commit(token_group(token_id), REASON_TOKEN_REVOKED)


def kick_session_sockets(session_key: str | None) -> None:
    if session_key:
        kick_on_commit(session_group(session_key), REASON_SIGNED_OUT)
