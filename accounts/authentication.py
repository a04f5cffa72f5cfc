"""`Authorization: Token <key>` against the hashed ApiToken table (REST and WebSockets)."""

from __future__ import annotations

from datetime import UTC, timedelta
from typing import Any

from django.db.models import DateTimeField
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from rest_framework import authentication, exceptions
from rest_framework.request import Request

from .models import ApiToken, User, hash_token_key

# last_used_at is refreshed at most this often, so that a bot's moves cost no extra write.
LAST_USED_RESOLUTION = timedelta(hours=1)


# The token's own columns, read beside the user's in one statement (see user_for_token_key).
_TOKEN_COLUMNS = ("id", "name", "prefix", "created_at", "last_used_at")


def _token_user_sql() -> str:
    users, tokens = User._meta.db_table, ApiToken._meta.db_table
    picked = ", ".join(f"t.{c} AS token_{c}" for c in _TOKEN_COLUMNS)
    return (
        f"SELECT u.*, {picked} FROM {users} u JOIN {tokens} t ON t.user_id = u.id"
        " WHERE t.key_hash = %s"
    )


_TOKEN_USER_SQL = _token_user_sql()


def _token_value(name: str, raw: Any) -> Any:
    """A token column read beside the user: what the ORM would have made of it."""
    field = ApiToken._meta.get_field(name)
    if not isinstance(field, DateTimeField) or raw is None:
        return raw
    # SQLite gives text or a naive datetime (in UTC); PostgreSQL an aware datetime.
    value = parse_datetime(raw) if isinstance(raw, str) else raw
    if value is not None and timezone.is_naive(value):
        value = timezone.make_aware(value, UTC)
    return value


def user_for_token_key(key: str) -> tuple[User, ApiToken] | None:
    """The active user of an API token key, and the token. Every authenticated request runs
    this, so it is one hand-written statement (the user's row with the token's columns):
    the ORM's `select_related` join cost about 0.8 ms of query building per request on this
    machine against 0.15 ms for the statement itself (docs/PERFORMANCE.md). The same rows as
    `ApiToken.objects.select_related("user").get(key_hash=...)`: tests/accounts/
    test_token_lookup.py compares them."""
    if not key or len(key) > 128:
        return None
    key_hash = hash_token_key(key)
    found = list(User.objects.raw(_TOKEN_USER_SQL, [key_hash]))
    if not found:
        return None
    user = found[0]
    if not user.is_active:
        return None
    columns = {c: _token_value(c, getattr(user, f"token_{c}")) for c in _TOKEN_COLUMNS}
    token = ApiToken(user=user, key_hash=key_hash, **columns)
    token._state.adding = False
    token._state.db = user._state.db
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at > LAST_USED_RESOLUTION:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
    return token.user, token


class ApiTokenAuthentication(authentication.TokenAuthentication):
    keyword = "Token"

    def authenticate_credentials(self, key: str) -> tuple[Any, Any]:
        found = user_for_token_key(key)
        if found is None:
            raise exceptions.AuthenticationFailed("Invalid token.")
        return found


class GuestSessionAuthentication(authentication.SessionAuthentication):
    """For sign-up only (docs/GUESTS.md): a guest's session, with its CSRF check (a page of
    another site must not turn a visitor's guest account into its own); any other session is
    ignored, so a client that happens to hold one registers a new account as before."""

    def authenticate(self, request: Request) -> tuple[Any, Any] | None:
        user = getattr(request._request, "user", None)
        if user is None or not user.is_active or getattr(user, "kind", None) != "guest":
            return None
        self.enforce_csrf(request)
        return (user, None)


class SessionAuthentication401(authentication.SessionAuthentication):
    """Session auth whose failures answer 401 (not signed in), with CSRF enforced."""

    def authenticate_header(self, request: Request) -> str:
        return "Session"
