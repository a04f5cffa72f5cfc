"""Edge guards that keep bad input from ever reaching the database."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from django.conf import settings
from django.core.exceptions import BadRequest, PermissionDenied, SuspiciousOperation
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse

from .api_errors import (
    error_body,
    is_database_unavailable,
    server_error_response,
    service_unavailable_response,
)


class RejectNulCharactersMiddleware:
    """PostgreSQL text cannot hold NUL characters: a path or query string carrying one is
    malformed input (400), not a database error. JSON bodies are covered by DRF's CharField,
    which refuses NUL in every string it validates."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        query = request.GET.lists()
        if "\x00" in request.path or any("\x00" in v for _, values in query for v in values):
            return JsonResponse(
                error_body("invalid", "NUL characters are not allowed in a path or query."),
                status=400,
            )
        return self.get_response(request)


# --- Unexpected errors under /api/ ---------------------------------------------------------

logger = logging.getLogger("demineur_site.api")


class ApiServerErrorMiddleware:
    """Under /api/ an unexpected error is the API.md error body (500 `server_error`), also with
    DEBUG on, where Django would answer its HTML debug page. The traceback goes to the log.

    `process_exception` catches what a view raised; `__call__` (this middleware is the
    outermost) replaces any other non-JSON 500 that a middleware below produced."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if (
            response.status_code >= 500
            and request.path.startswith("/api/")
            and not response.get("Content-Type", "").startswith("application/json")
        ):
            if response.status_code == 503:
                return service_unavailable_response()
            answer = server_error_response()
            answer.status_code = response.status_code
            return answer
        return response

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not request.path.startswith("/api/"):
            return None
        if isinstance(exception, _ANSWERED_BY_DJANGO):
            return None  # 400/403/404 answered by the JSON handlers of demineur_site.urls
        if is_database_unavailable(exception):
            # PostgreSQL down or unreachable (docs/RELIABILITY.md): 503, retry, not a bug.
            from demineur_site.metrics import DATABASE_UNAVAILABLE

            DATABASE_UNAVAILABLE.labels("http").inc()
            logger.warning(
                "Database unavailable on %s %s: %s",
                request.method,
                request.path,
                str(exception).strip()[:200],
            )
            return service_unavailable_response()
        logger.error("Unexpected error on %s %s", request.method, request.path, exc_info=exception)
        return server_error_response()


_ANSWERED_BY_DJANGO = (Http404, PermissionDenied, SuspiciousOperation, BadRequest)


# --- Content Security Policy -----------------------------------------------------------------


class ContentSecurityPolicyMiddleware:
    """A Content-Security-Policy header on every answer that has none.

    Our own middleware rather than Django 6's `django.middleware.csp`: on Python 3.11 the
    project runs Django 5.2, which has no CSP support, and one policy string needs no package.
    The pages load scripts, styles and images from this site only (no inline script; a few
    `style="…"` attributes, hence `style-src-attr 'unsafe-inline'` while `<style>` elements and
    stylesheets stay `'self'`); the scripts call the API and open WebSockets on this host."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if "Content-Security-Policy" not in response:
            response["Content-Security-Policy"] = content_security_policy(request)
        return response


def content_security_policy(request: HttpRequest) -> str:
    connect = ["'self'"]
    try:
        host = request.get_host()
    except Exception:  # a disallowed Host is refused elsewhere; the policy stays strict
        host = ""
    if host:
        connect += [f"ws://{host}", f"wss://{host}"]  # 'self' misses ws: in older browsers
    directives = {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "style-src-attr": ["'unsafe-inline'"],
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'"],
        "connect-src": connect,
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
    return "; ".join(f"{name} {' '.join(values)}" for name, values in directives.items())


# --- Request size, before Django reads the body -------------------------------------------


def _max_request_bytes() -> int:
    return int(getattr(settings, "MAX_REQUEST_BYTES", settings.DATA_UPLOAD_MAX_MEMORY_SIZE))


def _too_large_body(limit: int) -> bytes:
    return json.dumps(
        error_body(
            "payload_too_large",
            "The request body is too large.",
            {"max_bytes": limit},
        )
    ).encode()


def _declared_length(value: str | bytes | None) -> int | None:
    if value is None:
        return None
    try:
        return int(value)
    except ValueError:
        return None  # the server refuses a malformed Content-Length itself


ASGIApp = Callable[[Any, Any, Any], Awaitable[None]]


class BodySizeLimitASGI:
    """Wraps the ASGI HTTP application: a request whose Content-Length is over
    MAX_REQUEST_BYTES is answered 413 before any of its body is read. A chunked body (no
    Content-Length) is read here, in memory, up to one message past the limit: over it, the 413
    goes out and the application never sees the request; within it, the application gets the
    body with its Content-Length (Django reads no body without one). So Django never spools a
    large body to a temporary file."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = _max_request_bytes()
        headers = list(scope.get("headers") or [])
        by_name = dict(headers)
        length = _declared_length(by_name.get(b"content-length"))
        if length is not None and length > limit:
            await self._refuse(send, limit)
            return
        if length is None and b"chunked" in by_name.get(b"transfer-encoding", b"").lower():
            chunks: list[bytes] = []
            size = 0
            while True:
                message = await receive()
                if message["type"] != "http.request":
                    return  # the client left before the end of its body
                chunk = message.get("body", b"")
                size += len(chunk)
                if size > limit:
                    await self._refuse(send, limit)
                    return
                chunks.append(chunk)
                if not message.get("more_body", False):
                    break
            body = b"".join(chunks)
            headers = [(k, v) for k, v in headers if k != b"transfer-encoding"]
            headers.append((b"content-length", str(len(body)).encode()))
            scope = {**scope, "headers": headers}
            pending = [{"type": "http.request", "body": body, "more_body": False}]

            async def buffered_receive() -> dict[str, Any]:
                if pending:
                    return pending.pop()
                message: dict[str, Any] = await receive()  # later: http.disconnect
                return message

            await self.app(scope, buffered_receive, send)
            return
        await self.app(scope, receive, send)

    @staticmethod
    async def _refuse(send: Any, limit: int) -> None:
        body = _too_large_body(limit)
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"connection", b"close"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body, "more_body": False})


class BodySizeLimitWSGI:
    """The same guard for WSGI (gunicorn in production): 413 on a Content-Length over the
    limit without reading the body; a chunked body is read up to one byte past the limit, then
    refused, or handed to Django as a plain body with its length."""

    def __init__(self, app: Callable[..., Any]) -> None:
        self.app = app

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        limit = _max_request_bytes()
        length = _declared_length(environ.get("CONTENT_LENGTH") or None)
        if length is not None and length > limit:
            return self._refuse(start_response, limit)
        if length is None and "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower():
            stream = environ["wsgi.input"]
            chunks: list[bytes] = []
            size = 0
            while size <= limit:
                chunk = stream.read(min(64 * 1024, limit + 1 - size))
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
            if size > limit:
                return self._refuse(start_response, limit)
            body = b"".join(chunks)
            environ["wsgi.input"] = io.BytesIO(body)
            environ["CONTENT_LENGTH"] = str(len(body))
        return self.app(environ, start_response)

    @staticmethod
    def _refuse(start_response: Callable[..., Any], limit: int) -> list[bytes]:
        body = _too_large_body(limit)
        start_response(
            "413 Request Entity Too Large",
            [
                ("Content-Type", "application/json"),
                ("Content-Length", str(len(body))),
                ("Connection", "close"),
            ],
        )
        return [body]
