"""Who is on the other end of a WebSocket (API.md, Live updates).

Three ways in, decided once at the handshake:

* **API token** (bots, scripts, apps): ``Authorization: Token <key>`` or ``?token=<key>``.
  No Origin is required: a token is a credential no other site can make a browser send.
  A token that matches nobody is refused: the socket is accepted, gets one ``error``
  message (401 ``authentication_failed``) and is closed with code 4401, so a bot can read why.
* **Session cookie** (the web page): only with an ``Origin`` whose host is one of
  ``ALLOWED_HOSTS`` (or is listed in ``CSRF_TRUSTED_ORIGINS``). That check is what stops
  another site's page from opening a socket with the visitor's cookie (cross-site WebSocket
  hijacking). A browser always sends Origin on a WebSocket handshake; a foreign one is refused
  before the handshake completes (HTTP 403).
* **Anonymous, read-only**: no token and no Origin (a bot or a script just watching).
  Cookies are ignored then, since nothing proves which site the request comes from.
  Watching is public, as it is over REST; any move from such a socket is refused with 401.

The consumer reads ``scope["user"]`` and ``scope["auth_method"]`` ("token", "session" or
"anonymous").
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qs, urlparse

from channels.auth import AuthMiddlewareStack
from channels.db import database_sync_to_async
from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.utils.http import is_same_domain

from accounts.authentication import user_for_token_key
from demineur_site.api_errors import error_body

Scope = dict[str, Any]
TOKEN_KEYWORD = "token"
CLOSE_UNAUTHENTICATED = 4401


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return bytes(value).decode("latin1")
    return None


def token_from_scope(scope: Scope) -> str | None:
    """The API token of the handshake, from the header first, then the query string."""
    header = _header(scope, b"authorization")
    if header is not None:
        keyword, _, key = header.strip().partition(" ")
        if keyword.lower() == TOKEN_KEYWORD and key.strip():
            return key.strip()
    query = parse_qs(bytes(scope.get("query_string", b"")).decode("latin1"))
    values = query.get("token")
    if values and values[-1]:
        return values[-1]
    return None


def origin_allowed(origin: str) -> bool:
    """True when a browser's Origin names this site: a host of ALLOWED_HOSTS (with the same
    wildcard rules as Django) or an exact entry of CSRF_TRUSTED_ORIGINS."""
    if origin in settings.CSRF_TRUSTED_ORIGINS:
        return True
    parsed = urlparse(origin)
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        return False  # includes the opaque "null" origin of sandboxed frames and files
    host = parsed.hostname
    if ":" in host:  # urlparse strips the brackets of an IPv6 literal; ALLOWED_HOSTS keeps them
        host = f"[{host}]"
    return any(
        pattern == "*" or is_same_domain(host, pattern) for pattern in settings.ALLOWED_HOSTS
    )


async def _refuse_handshake(receive: Any, send: Any) -> None:
    """Close before accepting: the server answers the handshake with HTTP 403."""
    while True:
        message = await receive()
        if message["type"] == "websocket.connect":
            await send({"type": "websocket.close", "code": 4403})
            return
        if message["type"] == "websocket.disconnect":
            return


async def _refuse_token(receive: Any, send: Any) -> None:
    """Accept, say why in the API.md error body, then close with 4401."""
    while True:
        message = await receive()
        if message["type"] == "websocket.connect":
            await send({"type": "websocket.accept"})
            body = error_body("authentication_failed", "Invalid token.")
            await send({"type": "websocket.send", "text": json.dumps({"type": "error", **body})})
            await send({"type": "websocket.close", "code": CLOSE_UNAUTHENTICATED})
            return
        if message["type"] == "websocket.disconnect":
            return


class WebSocketAuthMiddleware:
    """Token, session-with-Origin, or anonymous read-only (see the module docstring)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.session_stack = AuthMiddlewareStack(inner)

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> Any:
        if scope.get("type") != "websocket":
            return await self.inner(scope, receive, send)
        key = token_from_scope(scope)
        if key is not None:
            found = await database_sync_to_async(user_for_token_key)(key)
            if found is None:
                return await _refuse_token(receive, send)
            scope = {**scope, "user": found[0], "auth_method": "token"}
            return await self.inner(scope, receive, send)
        origin = _header(scope, b"origin")
        if origin is None:
            scope = {**scope, "user": AnonymousUser(), "auth_method": "anonymous"}
            return await self.inner(scope, receive, send)
        if not origin_allowed(origin):
            return await _refuse_handshake(receive, send)
        return await self.session_stack({**scope, "auth_method": "session"}, receive, send)
