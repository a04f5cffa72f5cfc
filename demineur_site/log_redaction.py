"""No secret in any log (docs/SECURITY.md).

`RedactSecretsFilter` rewrites a log record before any handler formats it: a token in a query
string (`?token=…`, how bots authenticate a WebSocket handshake), an `Authorization` header or
a `Token …`/`Bearer …` credential, and password fields (`"password": "…"`, `password=…`) become
`[REDACTED]`. It works on the message, on each string argument (uvicorn's access formatter
reads its arguments one by one, so they keep their positions and types) and on the traceback.

`configure` is Django's LOGGING_CONFIG: it applies LOGGING, then puts the same filter on the
servers' loggers and on their handlers, which uvicorn and gunicorn set up themselves before
they load the application. Their formats and destinations are left as they are.
"""

from __future__ import annotations

import logging
import logging.config
import re
from typing import Any

REDACTED = "[REDACTED]"

# Loggers that the servers configure on their own (handlers not declared in LOGGING).
SERVER_LOGGERS = ("uvicorn", "uvicorn.error", "uvicorn.access", "gunicorn.error", "gunicorn.access")

_SECRET_PARAMS = (
    r"(?:access_token|token|key|password|passwd|secret|sessionid|csrftoken|csrfmiddlewaretoken)"
)
_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    # Query strings and form bodies: token=…, password=… (raw or percent-encoded values).
    (re.compile(rf"(?i)(?<![A-Za-z0-9_])({_SECRET_PARAMS}=)[^&\s\"'<>;,]+"), rf"\g<1>{REDACTED}"),
    # Authorization / Cookie headers, as text or as a dict/JSON entry.
    (
        re.compile(
            r"(?i)((?:HTTP_)?(?:authorization|proxy-authorization|cookie)[\"']?\s*[:=]\s*[\"']?)"
            r"[^\"'\r\n]+"
        ),
        rf"\g<1>{REDACTED}",
    ),
    # A credential on its own: "Token abc…", "Bearer abc…", "Basic abc…".
    (
        re.compile(r"(?i)\b(Token|Bearer|Basic)(\s+)[A-Za-z0-9._~+/=-]{8,}"),
        rf"\g<1>\g<2>{REDACTED}",
    ),
    # JSON or repr of a password field: "password": "…", 'new_password': '…'.
    (
        re.compile(
            r"(?i)([\"'][a-z_]*(?:password|passwd|secret|token)[\"']\s*:\s*)([\"'])(?:\\.|(?!\2).)*\2"
        ),
        rf"\g<1>\g<2>{REDACTED}\g<2>",
    ),
]


def redact(text: str) -> str:
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
    return text


def _redact_value(value: Any) -> Any:
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, bytes):
        return redact(value.decode("utf-8", "replace"))
    return value


class RedactSecretsFilter(logging.Filter):
    """Never drops a record; rewrites its secrets in place."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        args = record.args
        if isinstance(args, tuple):
            record.args = tuple(_redact_value(a) for a in args)
        elif isinstance(args, dict):
            record.args = {k: _redact_value(v) for k, v in args.items()}
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        if record.stack_info:
            record.stack_info = redact(record.stack_info)
        return True


def _add_filter(target: logging.Filterer, flt: logging.Filter) -> None:
    if not any(isinstance(f, RedactSecretsFilter) for f in target.filters):
        target.addFilter(flt)


def install_on_server_loggers() -> None:
    """The filter on the servers' loggers (records logged on them directly) and on every
    handler of every logger configured so far (records that propagate to them): Django's own
    `django` console handler, uvicorn's and gunicorn's handlers, the root's."""
    from demineur_site.logs import configured_loggers

    flt = RedactSecretsFilter()
    for name in SERVER_LOGGERS:
        _add_filter(logging.getLogger(name), flt)
    for logger in configured_loggers():
        for handler in logger.handlers:
            _add_filter(handler, flt)


def configure(logging_settings: dict[str, Any] | None) -> None:
    """Django's LOGGING_CONFIG callable: dictConfig(LOGGING), then the servers' loggers."""
    from django.conf import settings

    from demineur_site.logs import install_on_server_handlers

    if logging_settings:
        logging.config.dictConfig(logging_settings)
    install_on_server_loggers()
    install_on_server_handlers(getattr(settings, "LOG_FORMAT", "text"))
