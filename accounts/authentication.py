"""`Authorization: Token <key>` (or `Bearer <key>`) against the hashed ApiToken table (REST and
WebSockets)."""

from __future__ import annotations

import functools
from datetime import timedelta
from typing import Any

from django.utils import timezone
from rest_framework import authentication, exceptions
from rest_framework.authentication import get_authorization_header
from rest_framework.request import Request

from accounts import scopes
from accounts.models import ApiToken, User, hash_token_key
from demineur_site.rawsql import columns, run

# last_used_at is refreshed at most this often, so that a bot's moves cost no extra write.
LAST_USED_RESOLUTION = timedelta(hours=1)


@functools.cache
def _token_user_sql() -> str:
    """The user's columns, then the token's (the same text on SQLite and PostgreSQL)."""
    users, tokens = columns(User), columns(ApiToken)
    return (
        f"SELECT {users.select_list}, {tokens.select_list} FROM {users.table}"
        f" JOIN {tokens.table} ON {tokens.table}.user_id = {users.table}.{users.pk_name}"
        f" WHERE {tokens.table}.key_hash = %s"
    )


def user_for_token_key(key: str) -> tuple[User, ApiToken] | None:
    """The active user of an API token key, and the token. Every authenticated request runs
    this, so it is one hand-written statement (the user's row with the token's), read into
    instances as the ORM would (demineur_site.rawsql): the ORM's `select_related` join cost
    about 0.8 ms of query building per request on this machine against 0.15 ms for the
    statement itself (docs/PERFORMANCE.md). The same rows as
    `ApiToken.objects.select_related("user").get(key_hash=...)`: tests/accounts/
    test_token_lookup.py compares them. Always the primary: a revoked token stops at once."""
    if not key or len(key) > 128:
        return None
    key_hash = hash_token_key(key)
    row = run("default", _token_user_sql(), [key_hash], fetch=True)
    if row is None:
        return None
    users = columns(User)
    user = users.instance(row[: len(users.fields)])
    if not user.is_active:
        return None
    token = columns(ApiToken).instance(row[len(users.fields) :])
    token.user = user
    now = timezone.now()
    if token.expires_at is not None and token.expires_at <= now:
        return None  # an app's access token past its lifetime (accounts.oauth)
    if token.last_used_at is None or now - token.last_used_at > LAST_USED_RESOLUTION:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
    return user, token


# The words that may come before a token's key in `Authorization`: `Token` (API.md) and
# `Bearer` (RFC 6750), which OAuth libraries and clients generated from the schema send.
KEYWORDS = (b"token", b"bearer")


def token_key(header: str) -> str | None:
    """The key of an `Authorization: Token <key>` or `Bearer <key>` header, else None."""
    keyword, _, key = header.strip().partition(" ")
    if keyword.lower().encode() in KEYWORDS and key.strip():
        return key.strip()
    return None


class ApiTokenAuthentication(authentication.TokenAuthentication):
    keyword = "Token"

    def authenticate(self, request: Request) -> tuple[Any, Any] | None:
        parts = get_authorization_header(request).split()
        if not parts or parts[0].lower() not in KEYWORDS:
            return None
        if len(parts) != 2:
            raise exceptions.AuthenticationFailed(
                "Invalid token header: `Token <key>` or `Bearer <key>`, one key without spaces."
            )
        try:
            key = parts[1].decode()
        except UnicodeError:
            raise exceptions.AuthenticationFailed(
                "Invalid token header: the key holds characters no key has."
            ) from None
        found = self.authenticate_credentials(key)
        scopes.check_request(request._request, found[1])
        return found

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
