"""One HTTP request with a JSON body to a server on this machine, one connection per request:
what the harnesses that talk to a real server use (deploy/compose_stack.py's Client through the
proxy, deploy/private_services.py's AppServer). Nothing here imports Django or the tests."""

from __future__ import annotations

import http.client
import json
import time
from typing import Any, NamedTuple


class Answer(NamedTuple):
    status: int
    headers: dict[str, str]  # names in lower case
    body: Any  # the JSON body, None when empty, else the text (cut at `text_limit`)
    seconds: float


def json_request(
    host: str,
    port: int,
    method: str,
    path: str,
    body: Any = None,
    *,
    token: str | None = None,
    timeout: float,
    headers: dict[str, str],
    text_limit: int | None = None,
) -> Answer:
    """`method path` with `body` as JSON (when not None), `headers` and the token's
    Authorization header (when given); the seconds count from before the connection."""
    sent = dict(headers)
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        sent["Content-Type"] = "application/json"
    if token:
        sent["Authorization"] = f"Token {token}"
    started = time.monotonic()
    connection = http.client.HTTPConnection(host, port, timeout=timeout)
    try:
        connection.request(method, path, body=data, headers=sent)
        response = connection.getresponse()
        raw = response.read()
        answer_headers = {k.lower(): v for k, v in response.getheaders()}
    finally:
        connection.close()
    elapsed = time.monotonic() - started
    try:
        parsed: Any = json.loads(raw) if raw else None
    except ValueError:
        parsed = raw.decode(errors="replace")[:text_limit]
    return Answer(response.status, answer_headers, parsed, elapsed)
