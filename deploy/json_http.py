"""HTTP requests with a JSON body to a server on this machine, one connection per request:
what the harnesses that talk to a real server use (deploy/compose_stack.py's Client through the
proxy, deploy/private_services.py's AppServer), both a `JsonServer`. Nothing here imports
Django or the tests."""

from __future__ import annotations

import http.client
import json
import time
from collections.abc import Collection
from typing import Any, NamedTuple


class ApiError(Exception):
    """An answer whose status was not one of those expected (`Answer.ok`)."""

    def __init__(self, status: int, body: Any) -> None:
        super().__init__(f"{status}: {body}")
        self.status = status
        self.body = body


class Answer(NamedTuple):
    status: int
    headers: dict[str, str]  # names in lower case
    body: Any  # the JSON body, None when empty, else the text (cut at `text_limit`)
    seconds: float

    def ok(self, expect: Collection[int] = (200, 201)) -> Any:
        """The body, when the status is one of `expect`; else ApiError."""
        if self.status not in expect:
            raise ApiError(self.status, self.body)
        return self.body


class JsonServer:
    """A server on `host`:`port` spoken to in JSON. A kind of server says which headers every
    request to it carries (`request_headers`), its default timeout and how much of a body that
    is not JSON an Answer keeps (`text_limit`, None: all)."""

    host: str = "127.0.0.1"
    port: int
    request_timeout: float = 30.0
    text_limit: int | None = None

    def request_headers(self) -> dict[str, str]:
        return {"Host": self.host}

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        token: str | None = None,
        timeout: float | None = None,
    ) -> Answer:
        """`method path` with `body` as JSON (when not None), the server's headers and the
        token's Authorization header (when given); the seconds count from before the
        connection."""
        sent = self.request_headers()
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            sent["Content-Type"] = "application/json"
        if token:
            sent["Authorization"] = f"Token {token}"
        started = time.monotonic()
        connection = http.client.HTTPConnection(
            self.host, self.port, timeout=timeout or self.request_timeout
        )
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
            parsed = raw.decode(errors="replace")[: self.text_limit]
        return Answer(response.status, answer_headers, parsed, elapsed)
