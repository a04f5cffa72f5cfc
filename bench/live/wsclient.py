"""A deliberately small WebSocket client for the benchmark.

A thousand watchers share the machine's two cores with the servers, PostgreSQL and Redis, so
the client must cost little per message: it timestamps each read at `data_received`, splits
frames with a few byte operations and reads only `type` and `seq` from the JSON text.
A full client (the `websockets` package) costs several times more per frame and would
measure itself. Client frames are masked with a zero key, which RFC 6455 allows.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import re
import time
from collections.abc import Callable
from typing import Any

_SEQ = re.compile(rb'\{"type":"(\w+)","seq":(\d+)')
Frame = tuple[float, str, int]  # (arrival time, type, seq)


class RawSocket(asyncio.Protocol):
    def __init__(
        self, host: str, port: int, path: str, on_frame: Callable[[Frame], None] | None = None
    ) -> None:
        self.host, self.port, self.path = host, port, path
        self.on_frame = on_frame
        self.frames: list[Frame] = []
        self.opened: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.closed = False
        self._buffer = b""
        self._upgraded = False
        self.transport: asyncio.Transport | None = None

    # --- asyncio.Protocol ---------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        key = base64.b64encode(os.urandom(16)).decode()
        transport.write(
            (
                f"GET {self.path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
                "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
            ).encode()
        )

    def data_received(self, data: bytes) -> None:
        now = time.perf_counter()
        buffer = self._buffer + data
        if not self._upgraded:
            head, sep, rest = buffer.partition(b"\r\n\r\n")
            if not sep:
                self._buffer = buffer
                return
            if not head.startswith(b"HTTP/1.1 101"):
                self.opened.set_exception(ConnectionError(head.split(b"\r\n")[0].decode()))
                return
            self._upgraded = True
            self.opened.set_result(None)
            buffer = rest
        self._buffer = self._split(buffer, now)

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if not self.opened.done():
            self.opened.set_exception(exc or ConnectionError("closed"))

    # --- frames -------------------------------------------------------------------------

    def _split(self, buffer: bytes, now: float) -> bytes:
        while len(buffer) >= 2:
            opcode = buffer[0] & 0x0F
            length = buffer[1] & 0x7F
            start = 2
            if length == 126:
                if len(buffer) < 4:
                    break
                length, start = int.from_bytes(buffer[2:4], "big"), 4
            elif length == 127:
                if len(buffer) < 10:
                    break
                length, start = int.from_bytes(buffer[2:10], "big"), 10
            end = start + length
            if len(buffer) < end:
                break
            payload = buffer[start:end]
            buffer = buffer[end:]
            if opcode == 0x1:
                found = _SEQ.match(payload)
                frame = (
                    (now, found[1].decode(), int(found[2]))
                    if found
                    else (now, _type_of(payload), -1)
                )
                self.frames.append(frame)
                if self.on_frame is not None:
                    self.on_frame(frame)
            elif opcode == 0x9:  # ping: answer with a pong carrying the same payload
                self._write(0xA, payload)
            elif opcode == 0x8:
                self.closed = True
        return buffer

    def _write(self, opcode: int, payload: bytes) -> None:
        assert self.transport is not None
        n = len(payload)
        if n < 126:
            header = bytes((0x80 | opcode, 0x80 | n))
        elif n < 65536:
            header = bytes((0x80 | opcode, 0x80 | 126)) + n.to_bytes(2, "big")
        else:
            header = bytes((0x80 | opcode, 0x80 | 127)) + n.to_bytes(8, "big")
        self.transport.write(header + b"\x00\x00\x00\x00" + payload)  # zero mask key

    def send_json(self, message: dict[str, Any]) -> None:
        self._write(0x1, json.dumps(message, separators=(",", ":")).encode())

    def close(self) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self._write(0x8, (1000).to_bytes(2, "big"))
            self.transport.close()


def _type_of(payload: bytes) -> str:
    try:
        return str(json.loads(payload).get("type", "?"))
    except ValueError:
        return "?"


async def open_socket(
    host: str,
    port: int,
    path: str,
    on_frame: Callable[[Frame], None] | None = None,
    timeout: float = 30,
) -> RawSocket:
    loop = asyncio.get_running_loop()
    _, protocol = await loop.create_connection(
        lambda: RawSocket(host, port, path, on_frame), host, port
    )
    await asyncio.wait_for(protocol.opened, timeout)
    return protocol


async def http_post(
    host: str, port: int, path: str, token: str, body: dict[str, Any] | None = None
) -> tuple[int, bytes]:
    """One POST on a fresh connection (gunicorn's sync workers close after each answer)."""
    data = json.dumps(body or {}).encode()
    reader, writer = await asyncio.open_connection(host, port)
    writer.write(
        (
            f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\nAuthorization: Token {token}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\nConnection: close\r\n\r\n"
        ).encode()
        + data
    )
    raw = await reader.read()
    writer.close()
    head, _, content = raw.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    if b"transfer-encoding: chunked" in head.lower():
        content = _dechunk(content)
    return status, content


def _dechunk(data: bytes) -> bytes:
    out = b""
    while data:
        size_line, _, data = data.partition(b"\r\n")
        size = int(size_line.split(b";")[0], 16)
        if size == 0:
            break
        out += data[:size]
        data = data[size + 2 :]
    return out
