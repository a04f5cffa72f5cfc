"""NDJSON stream test helpers (games.live.streams): one GET of a stream on the in-process ASGI
application, read message by message as a server would write it, and a client that goes away
(`http.disconnect`, what a server reports when the connection closes or a write fails).

Every wait is on the next message or on the application's end; WAIT only bounds how long a
failing test takes to say so."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import urlencode

from demineur_site.asgi import application

WAIT = 10.0


def request_headers(
    *,
    host: str | None,
    token: str | None,
    origin: str | None,
    cookie: str | None,
    headers: list[tuple[str, str]] | None,
) -> list[tuple[bytes, bytes]]:
    """The raw headers of a request to the in-process application (a stream's GET or a socket's
    handshake): Host, the token's Authorization, Origin and Cookie where given, then `headers`
    (names lower-cased, as the ASGI scope holds them)."""
    raw: list[tuple[bytes, bytes]] = []
    if host is not None:
        raw.append((b"host", host.encode()))
    if token is not None:
        raw.append((b"authorization", f"Token {token}".encode()))
    if origin is not None:
        raw.append((b"origin", origin.encode()))
    if cookie is not None:
        raw.append((b"cookie", cookie.encode()))
    for name, value in headers or []:
        raw.append((name.lower().encode(), value.encode()))
    return raw


class StreamCall:
    """`GET path` on the ASGI application, as a server would call it for one client."""

    def __init__(
        self,
        path: str,
        *,
        token: str | None = None,
        token_query: str | None = None,
        cookie: str | None = None,
        origin: str | None = None,
        client: tuple[str, int] = ("127.0.0.1", 40000),
        headers: list[tuple[str, str]] | None = None,
    ) -> None:
        raw = request_headers(
            host="testserver", token=token, origin=origin, cookie=cookie, headers=headers
        )
        query = urlencode({"token": token_query}) if token_query is not None else ""
        self.scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "GET",
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "query_string": query.encode(),
            "root_path": "",
            "headers": raw,
            "client": client,
            "server": ("testserver", 80),
        }
        self._in: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self._out: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.task: asyncio.Task[None] | None = None
        self.status = 0
        self.headers: dict[bytes, bytes] = {}
        self.finished = False

    async def open(self) -> int:
        """Send the request; return the answer's status once its headers came."""
        self.task = asyncio.ensure_future(application(self.scope, self._in.get, self._out.put))
        await self._in.put({"type": "http.request", "body": b"", "more_body": False})
        start = await self._next()
        assert start["type"] == "http.response.start", start
        self.status = int(start["status"])
        self.headers = dict(start["headers"])
        return self.status

    async def _next(self) -> dict[str, Any]:
        assert self.task is not None, "open() first"
        message = asyncio.ensure_future(self._out.get())
        try:
            await asyncio.wait(
                [message, self.task], timeout=WAIT, return_when=asyncio.FIRST_COMPLETED
            )
        finally:
            if not message.done():
                message.cancel()
        if message.done() and not message.cancelled():
            return message.result()
        if self.task.done():
            self.task.result()  # the application's own error, if it failed
            raise AssertionError("the application returned without answering more")
        raise AssertionError(f"nothing was written within {WAIT} s")

    async def line(self) -> str | None:
        """The next line of the answer without its newline (the adapter writes one line per
        body message), or None once the answer has ended."""
        if self.finished:
            return None
        message = await self._next()
        assert message["type"] == "http.response.body", message
        if not message.get("more_body", False):
            self.finished = True
            assert message.get("body", b"") == b"", message
            return None
        body = bytes(message["body"])
        assert body.endswith(b"\n") and body.count(b"\n") == 1, body
        return body[:-1].decode()

    async def frame(self) -> dict[str, Any]:
        """The next line that is not a keep-alive, decoded."""
        while True:
            text = await self.line()
            assert text is not None, "the answer ended"
            if text:
                value: dict[str, Any] = json.loads(text)
                return value

    async def rest(self) -> list[str]:
        """Every line until the answer ends."""
        lines: list[str] = []
        while (text := await self.line()) is not None:
            lines.append(text)
        return lines

    async def error_body(self) -> dict[str, Any]:
        """The JSON body of a refusal (not a stream)."""
        message = await self._next()
        assert message["type"] == "http.response.body" and not message.get("more_body"), message
        self.finished = True
        value: dict[str, Any] = json.loads(message["body"])
        return value

    async def leave(self) -> None:
        """The client goes away without reading the end: the server reports http.disconnect."""
        await self._in.put({"type": "http.disconnect"})

    async def done(self) -> None:
        """Wait for the application to return (its socket stack ended, its slot released)."""
        assert self.task is not None
        await asyncio.wait_for(asyncio.shield(self.task), timeout=WAIT)

    async def close(self) -> None:
        """Test clean-up: the client leaves, and the application is waited for."""
        if self.task is None:
            return
        if not self.task.done():
            await self.leave()
        await self.done()


@contextlib.asynccontextmanager
async def open_stream(path: str, **kwargs: Any) -> AsyncIterator[StreamCall]:
    """`StreamCall(path, **kwargs)` opened, its answer a 200, for the block; closed when it ends
    (`StreamCall.close`), whether the block failed or not."""
    stream = StreamCall(path, **kwargs)
    try:
        assert await stream.open() == 200
        yield stream
    finally:
        await stream.close()
