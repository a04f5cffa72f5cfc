"""Errors as API.md names them: every refusal of the server is an `ApiError` carrying the
error body's `code`, `message` and `details`, with a subclass per status family so that a
caller can catch what it can handle."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class DemineurError(Exception):
    """Anything this client raises."""


class TransportError(DemineurError):
    """The server could not be reached, or did not answer in time (after the retries); the
    httpx error it stands for is its `__cause__`."""


class RequestTimeout(TransportError):
    """No answer (or no connection, or no next line of a stream) within the timeout."""


class StreamEnded(DemineurError):
    """A socket closed before the game or race it followed had ended: not a game over."""


class ApiError(DemineurError):
    """The server refused the request with API.md's error body. Its text names the status and
    the code first (`BadRequest: 400 username_taken: ...` in a traceback); `headers` are the
    answer's (`Retry-After`, `X-OAuth-Scopes`, `X-Accepted-OAuth-Scopes`, ...), looked up
    without regard to case."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        details: Any = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(f"{status} {code}: {message}" if message else f"{status} {code}")
        self.status = status
        self.code = code
        self.message = message
        self.details = details if details is not None else {}
        self.headers: Mapping[str, str] = headers if headers is not None else {}


class BadRequest(ApiError):
    """400: malformed input."""


class NotSignedIn(ApiError):
    """401: no credential, or a wrong one."""


class Forbidden(ApiError):
    """403: not yours (or a missing scope)."""


class NotFound(ApiError):
    """404: unknown."""


class Conflict(ApiError):
    """409: not allowed in the current state (game_over, race_full, ...)."""


class Throttled(ApiError):
    """429, after the retries: `retry_after` is the server's Retry-After in seconds."""

    retry_after: float | None = None


class Unavailable(ApiError):
    """503 (or another 5xx), after the retries."""


_BY_STATUS: dict[int, type[ApiError]] = {
    400: BadRequest,
    401: NotSignedIn,
    403: Forbidden,
    404: NotFound,
    409: Conflict,
    429: Throttled,
}


def error_for(status: int, body: Any, headers: Mapping[str, str] | None = None) -> ApiError:
    """The exception for an answer with `status` and its decoded `body` (API.md's error body,
    or anything else a proxy in front of the server sent)."""
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict):
        code = str(error.get("code", "unknown"))
        message = str(error.get("message", ""))
        details = error.get("details")
    else:
        code, message, details = "unknown", f"HTTP {status}", None
    kind = _BY_STATUS.get(status, Unavailable if status >= 500 else ApiError)
    return kind(status, code, message, details, headers)
