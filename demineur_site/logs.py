"""The request id on every log line of a request, and JSON lines (docs/DEPLOYMENT.md,
"Metrics and logs").

* Each HTTP request gets an id: the proxy's `X-Request-Id` (Caddy sets it to a fresh UUID on
  every request it forwards, replacing any a client sent) when TRUSTED_PROXIES says a proxy
  is in front and the id is well formed, otherwise 32 random hex digits. `RequestIdWSGI` and
  `bind_asgi_request` (the entry points) keep it in a context variable while Django answers;
  `RequestIdMiddleware` puts it in the answer's `X-Request-Id`. A socket's consumer takes it
  from its handshake the same way (games.live.base).
* `RequestIdFilter` puts it on every record (`request_id`, None outside a request); for
  gunicorn's access lines, which are written after the request, from the answer's header.
* `JsonLines` (LOG_FORMAT=json): one JSON object per line, python-json-logger's formatter with
  the time, level, logger, message, request id (a status code when Django gives one) and,
  when there is one, the traceback that demineur_site.log_redaction has already cleaned of
  secrets; nothing else of the record.
"""

from __future__ import annotations

import contextvars
import copy
import logging
import re
import secrets
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from pythonjsonlogger.json import JsonFormatter

REQUEST_ID: contextvars.ContextVar[str | None] = contextvars.ContextVar("request_id", default=None)
HEADER = "X-Request-Id"
_WELL_FORMED = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{7,63}$")


def request_id_from(header: str | None) -> str:
    """The proxy's id when it is believed and well formed, else a fresh one."""
    if header and settings.TRUSTED_PROXIES > 0 and _WELL_FORMED.match(header):
        return header
    return secrets.token_hex(16)


class RequestIdWSGI:
    """Around Django's whole WSGI handler (demineur_site.wsgi): the id is set before Django
    starts and still set when Django logs the answer's status (django.request's `Not Found`
    lines come after the middleware chain has returned)."""

    def __init__(self, app: Callable[..., Any]) -> None:
        self.app = app

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        token = REQUEST_ID.set(request_id_from(environ.get("HTTP_X_REQUEST_ID")))
        try:
            return self.app(environ, start_response)
        finally:
            REQUEST_ID.reset(token)


def bind_asgi_request(scope: dict[str, Any]) -> None:
    """The same for an ASGI request (demineur_site.asgi): set in the request's own task, whose
    context Django's sync threads copy; a new request runs in a new task."""
    headers = dict(scope.get("headers") or [])
    REQUEST_ID.set(request_id_from(headers.get(b"x-request-id", b"").decode("latin-1")))


class RequestIdMiddleware:
    """The outermost middleware: the id in the answer's X-Request-Id. Behind the entry points'
    wrappers it finds the id already set; alone (the test client, `make run`) it sets one for
    the middleware chain."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        request_id = REQUEST_ID.get()
        if request_id is not None:
            response = self.get_response(request)
        else:
            request_id = request_id_from(request.META.get("HTTP_X_REQUEST_ID"))
            token = REQUEST_ID.set(request_id)
            try:
                response = self.get_response(request)
            finally:
                REQUEST_ID.reset(token)
        response[HEADER] = request_id
        return response


class RequestIdFilter(logging.Filter):
    """Never drops a record; sets `record.request_id`."""

    def filter(self, record: logging.LogRecord) -> bool:
        request_id = REQUEST_ID.get()
        if request_id is None and isinstance(record.args, dict):
            # gunicorn's access line: its atoms hold the answer's headers as `{name}o`.
            value = record.args.get("{x-request-id}o")
            request_id = value if isinstance(value, str) and value != "-" else None
        record.request_id = request_id
        return True


class JsonLines(JsonFormatter):
    """One JSON object per line: time, level, logger, message, request_id (and exc_info)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("fmt", "%(asctime)s %(levelname)s %(name)s %(message)s %(request_id)s")
        kwargs.setdefault(
            "rename_fields", {"asctime": "time", "levelname": "level", "name": "logger"}
        )
        kwargs.setdefault("datefmt", "%Y-%m-%dT%H:%M:%S%z")
        super().__init__(*args, **kwargs)

    # Only these keys: a record's other attributes (Django's `request` among them, whose text
    # holds the query string) would bypass the redaction of the message.
    KEYS = frozenset(
        {
            "time",
            "level",
            "logger",
            "message",
            "request_id",
            "status_code",
            "exc_info",
            "stack_info",
        }
    )

    def process_log_record(self, log_data: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in log_data.items() if k in self.KEYS}

    def format(self, record: logging.LogRecord) -> str:
        if record.exc_info and record.exc_text:
            # The traceback as the redaction filter left it, not formatted again from scratch.
            record = copy.copy(record)
            record.exc_info = None
        if not hasattr(record, "request_id"):
            RequestIdFilter().filter(record)
        return super().format(record)


def configured_loggers() -> list[logging.Logger]:
    """The root logger and every logger created so far (the servers' own among them)."""
    return [logging.getLogger()] + [
        logger
        for logger in list(logging.Logger.manager.loggerDict.values())
        if isinstance(logger, logging.Logger)
    ]


def install_on_server_handlers(log_format: str) -> None:
    """The request id on every handler of every configured logger (the servers' own among
    them); with LOG_FORMAT=json, their formatter too, so that gunicorn's and uvicorn's lines
    are JSON as well once Django has started in the worker."""
    flt = RequestIdFilter()
    for logger in configured_loggers():
        for handler in logger.handlers:
            if not any(isinstance(f, RequestIdFilter) for f in handler.filters):
                handler.addFilter(flt)
            if log_format == "json" and not isinstance(handler.formatter, JsonLines):
                handler.setFormatter(JsonLines())
