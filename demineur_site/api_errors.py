"""One error shape for every failure under /api/ (API.md, Conventions):

{"error": {"code": "game_not_started", "message": "human readable", "details": {...}}}
"""

from __future__ import annotations

import logging
import sys
from typing import Any

from django.core.exceptions import PermissionDenied, RequestDataTooBig
from django.db import InterfaceError, OperationalError
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions, status
from rest_framework.response import Response

from .errors import DomainError

# Every code the domain raises (demineur_site.errors.DomainError), with the one status it has
# at every door: REST answers with it, sockets send the same body and close with 4000 + it.
STATUS_BY_CODE: dict[str, int] = {
    "invalid": 400,
    "out_of_bounds": 400,
    "invalid_board": 400,
    "invalid_period": 400,
    "invalid_sort": 400,
    "invalid_players": 400,
    "invalid_mode": 400,
    "invalid_style": 400,  # a times or speed board's `?style=` (docs/STATS.md)
    "invalid_season": 400,  # a race board's `?season=` (docs/RACES.md, Seasons)
    "no_guess_unavailable": 400,
    "not_authenticated": 401,
    "not_your_game": 403,
    "not_found": 404,
    "game_not_started": 409,
    "game_paused": 409,
    "game_over": 409,
    "game_not_over": 409,  # a replay file of a game still running
    "cell_open": 409,
    "cell_closed": 409,
    "idempotency_conflict": 409,
    "account_has_games": 409,
    "guest_account": 409,
    # Races (API.md, Races)
    "race_running": 403,
    "not_race_host": 403,
    "race_full": 409,
    "race_closed": 409,
    "already_racing": 409,
    "race_needs_players": 409,
    "race_game": 409,
    "not_in_race": 409,
    "too_many_rooms": 409,
    # Arenas (API.md, Arenas; docs/ARENAS.md)
    "arena_closed": 409,
    "arena_players": 403,
    "too_many_arenas": 409,
    # The daily challenge (API.md, Daily challenge)
    "daily_running": 403,
    "daily_not_over": 409,
    "daily_unavailable": 503,
    # Puzzles (API.md, Puzzles): the attempt (or its storm's time) is over
    "attempt_over": 409,
    # The account's lifecycle (API.md; docs/ACCOUNTS.md)
    "token_invalid": 400,
    "otp_required": 401,
    "otp_invalid": 401,
    "account_closed": 403,
    # A signed-in caller's password is wrong (changing it, closing the account): 403, never
    # 401, which tells a client its sign-in is gone when its session or token still works.
    "wrong_password": 403,
    "wrong_otp": 403,
    "email_taken": 409,
    "totp_active": 409,
    "totp_inactive": 409,
    # A staff account turning two-factor sign-in on without an operator's enrolment code, or
    # with a wrong one (accounts.two_factor, `manage.py staff_enrol`).
    "enrolment_code_required": 403,
    "enrolment_code_invalid": 403,
    # The doors' own refusals (ApiError): paging, sign-in, frames, limits, outages.
    "malformed_json": 400,
    "frame_too_large": 400,
    "invalid_page": 400,
    "invalid_page_size": 400,
    "invalid_around": 400,
    "no_token": 400,
    "authentication_failed": 401,
    "invalid_credentials": 401,
    "forbidden": 403,
    "missing_scope": 403,  # a token without the scope (accounts.scopes)
    "unknown_scope": 400,
    "csrf_failed": 403,
    "method_not_allowed": 405,
    "already_signed_in": 409,
    "payload_too_large": 413,
    "unsupported_media_type": 415,
    "throttled": 429,
    "too_many_sockets": 429,
    "server_error": 500,
    "service_unavailable": 503,
}


def status_for(code: str) -> int:
    """The status of a domain code; an unlisted code is a refusal of the input (400)."""
    return STATUS_BY_CODE.get(code, 400)


def status_of(exc: DomainError | ApiError) -> int:
    return exc.status_code if isinstance(exc, ApiError) else status_for(exc.code)


class ApiError(exceptions.APIException):
    """An error of the doors themselves: paging, throttling, a frame too large, a server error.
    Its status is its code's in STATUS_BY_CODE, like a domain error's (an unlisted code is a
    KeyError: every code has its one status in the table). Domain code raises DomainError."""

    def __init__(self, code: str, message: str, details: dict[str, Any] | None = None) -> None:
        super().__init__(detail=message, code=code)
        self.status_code = STATUS_BY_CODE[code]
        self.code = code
        self.message = message
        self.details = details or {}


def error_body(code: str, message: str, details: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "details": details or {}}}


def socket_error(
    code: str, message: str, details: dict[str, Any] | None = None, **extra: Any
) -> dict[str, Any]:
    """A socket `error` frame: the REST error body plus `status`, the HTTP status the same
    refusal has over REST, so that a client keeps no copy of STATUS_BY_CODE."""
    return {
        "type": "error",
        "status": status_for(code),
        **extra,
        **error_body(code, message, details),
    }


_DEFAULT_CODES: dict[type[exceptions.APIException], str] = {
    exceptions.ParseError: "malformed_json",
    exceptions.NotAuthenticated: "not_authenticated",
    exceptions.AuthenticationFailed: "authentication_failed",
    exceptions.PermissionDenied: "forbidden",
    exceptions.NotFound: "not_found",
    exceptions.MethodNotAllowed: "method_not_allowed",
    exceptions.NotAcceptable: "not_acceptable",
    exceptions.UnsupportedMediaType: "unsupported_media_type",
    exceptions.Throttled: "throttled",
    exceptions.ValidationError: "invalid",
}


def flatten_detail(detail: Any) -> Any:
    """DRF's validation detail as plain JSON (REST and socket frames alike)."""
    if isinstance(detail, dict):
        return {str(k): flatten_detail(v) for k, v in detail.items()}
    if isinstance(detail, list):
        return [flatten_detail(v) for v in detail]
    # A message quoting the client's input back may hold a lone surrogate, which no JSON
    # encoder writes as UTF-8: escape it instead of answering 500.
    return str(detail).encode("utf-8", "backslashreplace").decode("utf-8")


# --- The database is down (docs/RELIABILITY.md, "PostgreSQL outage") -----------------------

# Seconds a client is told to wait before retrying while the database is unreachable.
SERVICE_UNAVAILABLE_RETRY_AFTER = 5


def _database_errors() -> tuple[type[BaseException], ...]:
    errors: list[type[BaseException]] = [OperationalError, InterfaceError]
    try:  # the psycopg pool's own errors (DB_POOL=1), in case one reaches us unwrapped
        from psycopg_pool import PoolTimeout, TooManyRequests

        errors += [PoolTimeout, TooManyRequests]
    except ImportError:  # pragma: no cover - psycopg[pool] is a dependency
        pass
    return tuple(errors)


DATABASE_ERRORS = _database_errors()


def is_database_unavailable(exc: BaseException | None) -> bool:
    """A database that cannot be reached or answer (connection refused or lost, a pool that
    lends no connection in time) rather than a bug: the client may retry, so it is 503."""
    return isinstance(exc, DATABASE_ERRORS)


def service_unavailable_response() -> JsonResponse:
    response = JsonResponse(
        error_body(
            "service_unavailable",
            "The service is temporarily unavailable; retry shortly.",
            {"retry_after": SERVICE_UNAVAILABLE_RETRY_AFTER},
        ),
        status=503,
    )
    response["Retry-After"] = str(SERVICE_UNAVAILABLE_RETRY_AFTER)
    return response


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF's EXCEPTION_HANDLER: turn every error into the API.md body."""
    headers: dict[str, str] = {}
    if is_database_unavailable(exc):
        _log_unavailable(context.get("request"), exc)
        return Response(
            error_body(
                "service_unavailable",
                "The service is temporarily unavailable; retry shortly.",
                {"retry_after": SERVICE_UNAVAILABLE_RETRY_AFTER},
            ),
            status=status.HTTP_503_SERVICE_UNAVAILABLE,
            headers={"Retry-After": str(SERVICE_UNAVAILABLE_RETRY_AFTER)},
        )
    if isinstance(exc, DomainError | ApiError):
        return Response(error_body(exc.code, exc.message, exc.details), status=status_of(exc))
    if isinstance(exc, RequestDataTooBig):
        return Response(
            error_body("payload_too_large", "The request body is too large."),
            status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE,
        )
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()
    elif isinstance(exc, exceptions.PermissionDenied) and str(exc.detail).startswith("CSRF Failed"):
        # DRF's SessionAuthentication refuses a session request without a valid CSRF token.
        return Response(
            error_body("csrf_failed", str(exc.detail)), status=status.HTTP_403_FORBIDDEN
        )
    if not isinstance(exc, exceptions.APIException):
        return None  # a real bug: let Django log it and answer 500
    wait = getattr(exc, "wait", None)
    if isinstance(exc, exceptions.Throttled) and wait is not None:
        headers["Retry-After"] = str(int(wait) + 1)
    if getattr(exc, "auth_header", None):
        headers["WWW-Authenticate"] = exc.auth_header  # type: ignore[attr-defined]
    code = _DEFAULT_CODES.get(type(exc), "error")
    if isinstance(exc, exceptions.ValidationError):
        # `codes` gives each field's stable machine-readable reasons (e.g. "username_taken").
        details = {"fields": flatten_detail(exc.detail), "codes": flatten_detail(exc.get_codes())}
        message = "The request is malformed."
    else:
        details = {}
        message = str(exc.detail)
    response = Response(error_body(code, message, details), status=exc.status_code, headers=headers)
    if isinstance(exc, exceptions.NotAuthenticated | exceptions.AuthenticationFailed):
        # DRF answers 403 for session-only auth; we always say 401 for "not signed in".
        response.status_code = status.HTTP_401_UNAUTHORIZED
    return response


def _log_unavailable(request: Any, exc: BaseException) -> None:
    # One line, no traceback: an outage is not a bug, and it would repeat on every request.
    from demineur_site.metrics import DATABASE_UNAVAILABLE

    DATABASE_UNAVAILABLE.labels("http").inc()
    method = getattr(request, "method", "?")
    path = getattr(request, "path", "?")
    logger.warning("Database unavailable on %s %s: %s", method, path, str(exc).strip()[:200])


logger = logging.getLogger("demineur_site.api")


def _json_error(status_code: int, code: str, message: str) -> JsonResponse:
    return JsonResponse(error_body(code, message), status=status_code)


@csrf_exempt  # an unknown path is 404 for every method: a CSRF refusal never comes first
def api_not_found(request: HttpRequest) -> HttpResponse:
    return _json_error(404, "not_found", "Not found.")


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """CSRF_FAILURE_VIEW: under /api/ the JSON error body, elsewhere Django's page."""
    if request.path.startswith("/api/"):
        return JsonResponse(
            error_body(
                "csrf_failed", f"CSRF check failed: {reason}" if reason else "CSRF check failed."
            ),
            status=403,
        )
    from django.views.csrf import csrf_failure as django_csrf_failure

    return django_csrf_failure(request, reason=reason)


def server_error_response() -> JsonResponse:
    return _json_error(500, "server_error", "Internal server error.")


def handler404(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if request.path.startswith("/api/"):
        return _json_error(404, "not_found", "Not found.")
    from django.views.defaults import page_not_found

    return page_not_found(request, exception or Http404())


def handler500(request: HttpRequest) -> HttpResponse:
    # Django calls this inside its `except` block: an error raised by a middleware (a session
    # read while the database is down, say) is still the current exception here.
    outage = is_database_unavailable(sys.exc_info()[1])
    if outage:
        _log_unavailable(request, sys.exc_info()[1])  # type: ignore[arg-type]
    if request.path.startswith("/api/"):
        if outage:
            return service_unavailable_response()
        return _json_error(500, "server_error", "Internal server error.")
    # frontend/templates/500.html, rendered without the request's context processors: during an
    # outage nothing may read the database (the user, the session).
    from django.template import loader

    page = loader.get_template("500.html").render({"outage": outage})
    response = HttpResponse(page, status=503 if outage else 500)
    if outage:
        response["Retry-After"] = str(SERVICE_UNAVAILABLE_RETRY_AFTER)
    return response


def handler400(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if request.path.startswith("/api/"):
        return _json_error(400, "bad_request", "Bad request.")
    from django.views.defaults import bad_request

    return bad_request(request, exception or Exception())


def handler403(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if request.path.startswith("/api/"):
        return _json_error(403, "forbidden", "Forbidden.")
    from django.views.defaults import permission_denied

    return permission_denied(request, exception or PermissionDenied())
