"""No secret in any log.

Real servers with their access logs on: uvicorn (as `make run` would log without
--no-access-log) and gunicorn (`--access-logfile -`, as docker-compose.yml runs it). Requests
carry `?token=SECRET` (how a bot authenticates a WebSocket handshake), an Authorization header
and a password; the servers' whole output must not contain the secrets, while the access log
lines themselves are there (redacted, not dropped)."""

from __future__ import annotations

import logging
import sys
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import pytest
from websockets.sync.client import connect

from .http_servers import Server, migrated_sqlite, post_json

QUERY_SECRET = "qsecret" + uuid.uuid4().hex
HEADER_SECRET = "hsecret" + uuid.uuid4().hex
PASSWORD_SECRET = "psecret" + uuid.uuid4().hex


def _get(url: str, headers: dict[str, str] | None = None) -> int:
    try:
        with urllib.request.urlopen(
            urllib.request.Request(url, headers=headers or {}), timeout=30
        ) as r:
            return int(r.status)
    except urllib.error.HTTPError as error:
        return int(error.code)


@pytest.mark.parametrize(
    ("kind", "args"),
    [
        ("uvicorn", ["--log-level", "debug", "--access-log"]),
        ("gunicorn", ["--access-logfile", "-", "--log-level", "debug"]),
    ],
)
def test_the_servers_logs_carry_no_token_and_no_password(
    tmp_path: Path, kind: str, args: list[str]
) -> None:
    template = migrated_sqlite()
    game = uuid.uuid4()
    with Server(kind, tmp_path / kind, template, args=args, LOG_LEVEL="DEBUG") as server:
        assert _get(f"{server.url}/api/games?token={QUERY_SECRET}&state=playing") == 200
        assert _get(f"{server.url}/api/me?access_token={QUERY_SECRET}") == 401
        assert _get(f"{server.url}/api/me", {"Authorization": f"Token {HEADER_SECRET}"}) == 401
        assert (
            post_json(
                f"{server.url}/api/auth/token", {"username": "x", "password": PASSWORD_SECRET}
            )
            == 401
        )
        if kind == "uvicorn":  # the WebSocket handshake, as a bot opens it
            with connect(
                f"ws://127.0.0.1:{server.port}/ws/games/{game}?token={QUERY_SECRET}"
            ) as ws:
                ws.recv(timeout=30)  # the 404 error frame for an unknown game
        server.stop()
        output = server.output()
    assert "/api/games?token=" in output, output  # the access log is on and logs the request
    for secret in (QUERY_SECRET, HEADER_SECRET, PASSWORD_SECRET):
        assert secret not in output, output


def test_the_filter_redacts_tokens_headers_and_passwords() -> None:
    from demineur_site.log_redaction import redact

    key = "a1b2c3d4e5f6a7b8c9d0"
    samples = {
        f'127.0.0.1:5555 - "GET /ws/games/1?token={key}&x=1 HTTP/1.1" 101': "&x=1",
        f"Authorization: Token {key}": "Authorization",
        f"{{'HTTP_AUTHORIZATION': 'Token {key}', 'PATH_INFO': '/api/me'}}": "PATH_INFO",
        f'{{"username": "alice", "password": "{key}"}}': "alice",
        f"username=alice&password={key}": "username=alice",
        f"Bearer {key}": "Bearer",
    }
    for text, kept in samples.items():
        cleaned = redact(text)
        assert key not in cleaned, cleaned
        assert kept in cleaned and "[REDACTED]" in cleaned


def test_every_record_is_redacted_by_the_configured_logging() -> None:
    from demineur_site.log_redaction import RedactSecretsFilter

    key = "k" + uuid.uuid4().hex
    root_handlers = logging.getLogger().handlers
    assert any(isinstance(f, RedactSecretsFilter) for h in root_handlers for f in h.filters), (
        "LOGGING puts the filter on the root's handler"
    )
    for name in ("uvicorn.access", "uvicorn.error", "gunicorn.access", "gunicorn.error"):
        assert any(isinstance(f, RedactSecretsFilter) for f in logging.getLogger(name).filters)
    try:
        raise ValueError(f"bad token={key}")
    except ValueError:
        record = logging.LogRecord(
            "x", logging.ERROR, __file__, 1, "request %s %s", (f"/a?token={key}", 5), None
        )
        record.exc_info = sys.exc_info()
    assert RedactSecretsFilter().filter(record) is True
    text = logging.Formatter().format(record)
    assert key not in text
    assert record.args == ("/a?token=[REDACTED]", 5)  # positions and types kept
