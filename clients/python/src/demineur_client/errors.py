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


def field_codes(details: Any) -> str:
    """A refused body's reasons per field (`details.codes` of a 400 `invalid`), as
    `username: username_taken; password: password_too_short`: the code alone says only that
    something was malformed."""
    codes = details.get("codes") if isinstance(details, dict) else None
    if not isinstance(codes, dict):
        return ""

    def flat(value: Any) -> list[str]:
        if isinstance(value, list):
            return [code for item in value for code in flat(item)]
        if isinstance(value, dict):
            return [code for item in value.values() for code in flat(item)]
        return [str(value)]

    return "; ".join(f"{field}: {', '.join(flat(value))}" for field, value in codes.items())


class ApiError(DemineurError):
    """The server refused the request with API.md's error body. Its text names the status and
    the code first, and a malformed body's reasons per field (`BadRequest: 400 invalid
    [username: username_taken]: ...` in a traceback); `headers` are the
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
        reasons = field_codes(details)
        head = f"{status} {code} [{reasons}]" if reasons else f"{status} {code}"
        super().__init__(f"{head}: {message}" if message else head)
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
