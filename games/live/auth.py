"""Who is on the other end of a WebSocket (API.md, Live updates), and how many sockets they hold.

Three ways in, decided once at the handshake:

* **API token** (bots, scripts, apps): ``Authorization: Token <key>`` (or ``Bearer <key>``)
  or ``?token=<key>``.
  No Origin is required: a token is a credential no other site can make a browser send.
  A token that matches nobody is refused: the socket is accepted, gets one ``error``
  message (401 ``authentication_failed``) and is closed with code 4401, so a bot can read why.
* **Session cookie** (the web page): only with an ``Origin`` that is exactly this site's own
  origin (scheme, host and port: the handshake's ``Host`` header, itself one of
  ``ALLOWED_HOSTS``, with ``ws`` <-> ``http`` and ``wss`` <-> ``https``) or exactly an entry of
  ``CSRF_TRUSTED_ORIGINS``. That check is what stops another site's page, or a page on another
  port or scheme of the same host, from opening a socket with the visitor's cookie
  (cross-site WebSocket hijacking). A browser always sends Origin on a WebSocket handshake; a
  foreign one is refused before the handshake completes (HTTP 403).
* **Anonymous, read-only**: no token and no Origin (a bot or a script just watching).
  Cookies are ignored then, since nothing proves which site the request comes from.
  Watching is public, as it is over REST; any move from such a socket is refused with 401.

The scheme of the handshake is ``scope["scheme"]`` (``ws`` or ``wss``; uvicorn sets it from
TLS, or from ``X-Forwarded-Proto`` for the proxies in ``--forwarded-allow-ips``). When
``TRUSTED_PROXIES`` > 0 the ``X-Forwarded-Proto`` header is believed as well (the same trust
that setting gives ``X-Forwarded-For``).

Then the caps of games.live.guard (sockets per account and per address: 429
``too_many_sockets``, close 4429). The consumer reads ``scope["user"]``,
``scope["auth_method"]`` ("token", "session" or "anonymous") and ``scope["credential"]`` (an
accounts.socket_credentials.SocketCredential, or None for anonymous sockets): the group a
revocation or a sign-out kicks, and what each move re-checks.

Nothing here logs: the query string (``?token=``) and the headers are credentials. And since
uvicorn logs every handshake's path *with its query string* at INFO ("WebSocket
/ws/games/…?token=…" [accepted]) from the scope it passed us, even with ``--no-access-log``,
the middleware overwrites the token in that scope once it has read it (``token=[REDACTED]``,
as demineur_site.log_redaction writes it).
"""

from __future__ import annotations

import json
import logging
from typing import Any
from urllib.parse import parse_qs, parse_qsl, urlencode, urlsplit

from channels.auth import AuthMiddlewareStack
from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.http.request import split_domain_port, validate_host

from accounts import scopes
from accounts.authentication import token_key, user_for_token_key
from accounts.socket_credentials import SocketCredential
from demineur_site.api_errors import (
    SERVICE_UNAVAILABLE_RETRY_AFTER,
    is_database_unavailable,
    socket_error,
)
from games.live.dbcall import db_call
from games.live.guard import CLOSE_TOO_MANY_SOCKETS, Refusal, client_address, slots

Scope = dict[str, Any]
Origin = tuple[str, str, int]
TOKEN_KEYWORD = "token"
log = logging.getLogger(__name__)
CLOSE_UNAUTHENTICATED = 4401
CLOSE_FOREIGN_ORIGIN = 4403
_DEFAULT_PORTS = {"http": 80, "https": 443}


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if bytes(key).lower() == name:
            return bytes(value).decode("latin1")
    return None


def token_from_scope(scope: Scope) -> str | None:
    """The API token of the handshake, from the header first, then the query string."""
    header = _header(scope, b"authorization")
    if header is not None:
        key = token_key(header)
        if key is not None:
            return key
    query = parse_qs(bytes(scope.get("query_string", b"")).decode("latin1"))
    values = query.get("token")
    if values and values[-1]:
        return values[-1]
    return None


def redact_token_query(scope: Scope) -> None:
    """Replace the value of every `token` in the handshake's query string, in the server's own
    scope (mutated on purpose: uvicorn logs the path from that dict)."""
    raw = bytes(scope.get("query_string", b""))
    if b"token" not in raw.lower():
        return
    pairs = parse_qsl(raw.decode("latin1"), keep_blank_values=True)
    redacted = [(k, "[REDACTED]" if k.lower() == TOKEN_KEYWORD else v) for k, v in pairs]
    scope["query_string"] = urlencode(redacted, safe="[]").encode("latin1")


def parse_origin(text: str) -> Origin | None:
    """`scheme://host[:port]` as (scheme, host, port), the port made explicit; None for
    anything else (the opaque "null", other schemes, paths, user info, a bad port)."""
    try:
        parts = urlsplit(text.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS or not parts.hostname:
        return None
    if parts.path not in ("", "/") or parts.query or parts.fragment or "@" in parts.netloc:
        return None
    return scheme, parts.hostname.lower(), port or _DEFAULT_PORTS[scheme]


def _secure(scope: Scope) -> bool:
    if int(getattr(settings, "TRUSTED_PROXIES", 0) or 0) > 0:
        forwarded = _header(scope, b"x-forwarded-proto")
        if forwarded:
            return forwarded.split(",")[-1].strip().lower() in ("https", "wss")
    return str(scope.get("scheme", "ws")).lower() in ("wss", "https")


def site_origin(scope: Scope) -> Origin | None:
    """The origin of the page this handshake's server serves: the Host header (one of
    ALLOWED_HOSTS) with the handshake's scheme."""
    host = _header(scope, b"host")
    if not host:
        return None
    domain, _ = split_domain_port(host)
    if not domain or not validate_host(domain, settings.ALLOWED_HOSTS):
        return None
    scheme = "https" if _secure(scope) else "http"
    return parse_origin(f"{scheme}://{host}")


def origin_allowed(origin: str, scope: Scope) -> bool:
    """True when a browser's Origin is exactly this site's origin or an exact entry of
    CSRF_TRUSTED_ORIGINS (same scheme, host and port; wildcard entries are not honoured)."""
    parsed = parse_origin(origin)
    if parsed is None:
        return False
    if parsed == site_origin(scope):
        return True
    return any(
        "*" not in entry and parse_origin(entry) == parsed
        for entry in settings.CSRF_TRUSTED_ORIGINS
    )


async def _refuse_handshake(receive: Any, send: Any) -> None:
    """Close before accepting: the server answers the handshake with HTTP 403."""
    while True:
        message = await receive()
        if message["type"] == "websocket.connect":
            await send({"type": "websocket.close", "code": CLOSE_FOREIGN_ORIGIN})
            return
        if message["type"] == "websocket.disconnect":
            return


async def _refuse_with(receive: Any, send: Any, body: dict[str, Any], code: int) -> None:
    """Accept, say why in the API.md error body, then close with `code`."""
    while True:
        message = await receive()
        if message["type"] == "websocket.connect":
            await send({"type": "websocket.accept"})
            await send({"type": "websocket.send", "text": json.dumps(body)})
            await send({"type": "websocket.close", "code": code})
            return
        if message["type"] == "websocket.disconnect":
            return


async def _refuse_token(receive: Any, send: Any) -> None:
    body = socket_error("authentication_failed", "Invalid token.")
    await _refuse_with(receive, send, body, CLOSE_UNAUTHENTICATED)


CLOSE_TRY_AGAIN_LATER = 1013  # RFC 6455: the server cannot serve the socket right now


class _Seen:
    """The handshake's steps seen so far, between the server and the socket (kept for the
    socket's whole life: slots, no closures)."""

    __slots__ = ("_receive", "_send", "accept", "close", "connect")

    def __init__(self, receive: Any, send: Any) -> None:
        self._receive, self._send = receive, send
        self.connect = self.accept = self.close = False

    async def receive(self) -> Any:
        message = await self._receive()
        if message["type"] == "websocket.connect":
            self.connect = True
        return message

    async def send(self, message: dict[str, Any]) -> None:
        kind = message["type"]
        if kind == "websocket.accept":
            self.accept = True
        elif kind == "websocket.close":
            self.close = True
        await self._send(message)


async def _unless_database_down(handler: Any, scope: Scope, receive: Any, send: Any) -> Any:
    """Run the handshake and the socket; if PostgreSQL cannot be reached (a token or session
    lookup, the first snapshot), answer as REST does -- the API.md body with 503
    `service_unavailable` -- and close with 1013 instead of letting the server answer a bare
    HTTP 500 (docs/RELIABILITY.md, PostgreSQL outage)."""
    seen = _Seen(receive, send)
    try:
        return await handler(scope, seen.receive, seen.send)
    except Exception as exc:
        if not is_database_unavailable(exc) or seen.close:
            raise
        log.warning("database unavailable for a WebSocket handshake on %s", scope.get("path"))
        from demineur_site.metrics import DATABASE_UNAVAILABLE

        DATABASE_UNAVAILABLE.labels("socket").inc()
        body = socket_error(
            "service_unavailable",
            "The service is temporarily unavailable; retry shortly.",
            {"retry_after": SERVICE_UNAVAILABLE_RETRY_AFTER},
        )
        if not seen.connect:
            return await _refuse_with(receive, send, body, CLOSE_TRY_AGAIN_LATER)
        if not seen.accept:
            await send({"type": "websocket.accept"})
        await send({"type": "websocket.send", "text": json.dumps(body)})
        await send({"type": "websocket.close", "code": CLOSE_TRY_AGAIN_LATER})
        return None


class _Capped:
    """Counts the socket against the caps of games.live.guard for as long as it is open."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> Any:
        user = scope.get("user")
        user_id = user.pk if user is not None and user.is_authenticated else None
        credential = scope.get("credential")
        if scope.get("auth_method") == "session" and user_id is not None:
            session = scope.get("session")
            key = getattr(session, "session_key", None)
            credential = SocketCredential("session", user_id, session_key=key) if key else None
        if credential is not scope.get("credential"):  # a session's: one copy of the scope
            scope = {**scope, "credential": credential}
        # A stream nobody signed in to is what any site's <img> can make a browser send: it
        # counts apart from the address's sockets (games.live.guard).
        anonymous_stream = bool(scope.get("stream")) and user_id is None
        taken = await slots.acquire(
            user_id, client_address(scope), anonymous_stream=anonymous_stream
        )
        if isinstance(taken, Refusal):
            body = socket_error(
                "too_many_sockets",
                f"Too many open sockets for this {taken.per} (at most {taken.limit}).",
                {"limit": taken.limit, "per": taken.per},
            )
            return await _refuse_with(receive, send, body, CLOSE_TOO_MANY_SOCKETS)
        try:
            return await self.inner(scope, receive, send)
        finally:
            await slots.release(taken)


class WebSocketAuthMiddleware:
    """Token, session-with-Origin, or anonymous read-only (see the module docstring)."""

    def __init__(self, inner: Any) -> None:
        self.inner = _Capped(inner)
        self.session_stack = AuthMiddlewareStack(self.inner)

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> Any:
        if scope.get("type") != "websocket":
            return await self.inner.inner(scope, receive, send)
        return await _unless_database_down(self._route, scope, receive, send)

    async def _route(self, scope: Scope, receive: Any, send: Any) -> Any:
        key = token_from_scope(scope)
        redact_token_query(scope)
        if key is not None:
            found = await db_call(user_for_token_key)(key)
            if found is None:
                return await _refuse_token(receive, send)
            user, token = found
            credential = SocketCredential("token", user.pk, token_id=token.pk)
            scope = {
                **scope,
                "user": user,
                "auth_method": "token",
                "credential": credential,
                "token_scopes": scopes.token_scopes(token),  # accounts.scopes
            }
            return await self.inner(scope, receive, send)
        origin = _header(scope, b"origin")
        if origin is None:
            anonymous = {"user": AnonymousUser(), "auth_method": "anonymous", "credential": None}
            return await self.inner({**scope, **anonymous}, receive, send)
        if not origin_allowed(origin, scope):
            return await _refuse_handshake(receive, send)
        return await self.session_stack(
            {**scope, "auth_method": "session", "credential": None}, receive, send
        )
