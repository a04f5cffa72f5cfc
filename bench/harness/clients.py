"""The HTTP and WebSocket clients of the benchmarks and their bots.

* `Api` / `api_json` / `register`: JSON over HTTP/1.1, one connection a request, blocking: the
  setup and the untimed calls, the server checks (with a cookie jar).
* `http_post`: one POST on a fresh asyncio connection: the bots' timed moves (gunicorn's sync
  workers close the connection after each answer anyway).
* `RawSocket` / `open_socket` / `open_watchers`: a deliberately small WebSocket client for
  thousands of watchers, and `Delivered`, their frames' arrivals against the moves sent.
* `connect_game` / `game_socket`: a full client (`websockets`) for the bots that play over
  their game socket.
* `WsgiClient`: requests through Django's WSGI handler in this process (no server, no network).
* `wrk`: the wrk load generator; `MOVE_LUA` plays moves from a file with it.
"""

from __future__ import annotations

import asyncio
import base64
import http.client
import json
import os
import re
import subprocess
import sys
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any

from .report import Progress

HOST = "127.0.0.1"
# wrk's script of moves: `wrk -s MOVE_LUA URL -- <flag|reveal> <moves file> <threads>`.
MOVE_LUA = Path(__file__).with_name("move.lua")


@dataclass(frozen=True)
class Account:
    """A player as its client knows it: a name and an API token."""

    username: str
    token: str


# --- HTTP, blocking ---------------------------------------------------------------------------


@dataclass
class Reply:
    status: int
    headers: dict[str, str]  # names in lower case
    raw: bytes

    def json(self) -> Any:
        """The JSON body; None when empty or not JSON."""
        try:
            return json.loads(self.raw or b"null")
        except ValueError:
            return None


class Api:
    """HTTP/1.1 to a server on this machine, one connection a request (as a new browser tab
    opens one), JSON bodies; with `cookies`, a cookie jar kept across requests."""

    def __init__(self, port: int, *, cookies: bool = False, timeout: float = 30.0) -> None:
        self.port = port
        self.timeout = timeout
        self.cookies: dict[str, str] | None = {} if cookies else None

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        token: str = "",
        headers: Mapping[str, str] | None = None,
    ) -> Reply:
        """`body` as JSON (bytes: as they are), the token's Authorization when given."""
        sent = {"Content-Type": "application/json", **(headers or {})}
        if token:
            sent["Authorization"] = f"Token {token}"
        if self.cookies:
            sent["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        data = body if isinstance(body, bytes) or body is None else json.dumps(body).encode()
        conn = http.client.HTTPConnection(HOST, self.port, timeout=self.timeout)
        try:
            conn.request(method, path, body=data, headers=sent)
            answer = conn.getresponse()
            raw = answer.read()
        finally:
            conn.close()
        if self.cookies is not None:
            for value in answer.headers.get_all("Set-Cookie") or []:
                jar: SimpleCookie = SimpleCookie()
                jar.load(value)
                self.cookies.update((name, morsel.value) for name, morsel in jar.items())
        return Reply(answer.status, {k.lower(): v for k, v in answer.getheaders()}, raw)

    def csrf(self) -> dict[str, str]:
        """The CSRF header of a session's unsafe request (from the jar's csrftoken)."""
        return {"X-CSRFToken": (self.cookies or {}).get("csrftoken", "")}


def api_json(
    port: int, method: str, path: str, body: Any = None, token: str = ""
) -> tuple[int, Any]:
    """One JSON request (untimed setup), with a token or anonymous: the status and the body."""
    reply = Api(port).request(method, path, body, token=token)
    return reply.status, reply.json()


def register(port: int, username: str, password: str, *, kind: str = "bot") -> Account:
    """An account of `kind` signed up and signed in through the API."""
    status, body = api_json(
        port,
        "POST",
        "/api/auth/register",
        {"username": username, "password": password, "kind": kind},
    )
    if status != 201 or (body or {}).get("kind") != kind:
        raise SystemExit(f"sign-up of {username}: {status} {body}")
    status, body = api_json(
        port, "POST", "/api/auth/token", {"username": username, "password": password}
    )
    if status != 200:
        raise SystemExit(f"sign-in of {username}: {status} {body}")
    return Account(username, body["token"])


# --- HTTP, asyncio ----------------------------------------------------------------------------


async def http_post(
    host: str, port: int, path: str, token: str, body: dict[str, Any] | None = None
) -> tuple[int, bytes]:
    """One POST on a fresh connection: the status and the body."""
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


async def flag_move(port: int, game_id: str, token: str, **fields: Any) -> tuple[int, float, float]:
    """A flag move over HTTP (`fields`: x, y and the rest of the body): its seq, when it was sent
    and when its answer came (perf_counter); SystemExit when it is refused."""
    sent = time.perf_counter()
    status, body = await http_post(HOST, port, f"/api/games/{game_id}/flag", token, fields)
    answered = time.perf_counter()
    if status != 200:
        raise SystemExit(f"move refused: {status} {body[:200]!r}")
    return int(json.loads(body)["seq"]), sent, answered


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


# --- WebSocket: the small client ----------------------------------------------------------------

# A thousand watchers share the machine's two cores with the servers, PostgreSQL and Redis, so
# this client must cost little per message: it timestamps each read at `data_received`, splits
# frames with a few byte operations and reads only `type` and `seq` from the JSON text. A full
# client (the `websockets` package) costs several times more per frame and would measure
# itself. It offers no permessage-deflate; its frames are masked with a zero key, which RFC 6455
# allows.

_SEQ = re.compile(rb'\{"type":"(\w+)","seq":(\d+)')
Frame = tuple[float, str, int]  # (arrival, perf_counter; type; seq, -1 when it has none)


class RawSocket(asyncio.Protocol):
    def __init__(
        self, host: str, port: int, path: str, on_frame: Callable[[Frame], None] | None = None
    ) -> None:
        self.host, self.port, self.path = host, port, path
        self.on_frame = on_frame
        self.frames: list[Frame] = []
        loop = asyncio.get_running_loop()
        self.opened: asyncio.Future[None] = loop.create_future()
        self.heard = asyncio.Event()  # a first frame came, or the socket closed
        self.closed = False
        self._buffer = b""
        self._upgraded = False
        self.transport: asyncio.Transport | None = None

    async def snapshot(self, timeout: float = 60.0) -> Frame:
        """The first frame (the snapshot the server sends on connect), waited for."""
        await asyncio.wait_for(self.heard.wait(), timeout)
        if not self.frames:
            raise ConnectionError(f"{self.path}: closed before its first frame")
        return self.frames[0]

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
        self.heard.set()

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
                self.heard.set()
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


async def open_watchers(
    port: int, paths: Sequence[str], *, at_once: int = 32, every: int = 250, timeout: float = 60
) -> tuple[list[RawSocket], float]:
    """An anonymous RawSocket on each of `paths`, at most `at_once` opening at a time, each
    counted once its snapshot has come (within `timeout`); a progress line every `every`; the
    sockets and the seconds it all took."""
    started = time.perf_counter()
    gate = asyncio.Semaphore(at_once)
    progress = Progress(len(paths), "watchers connected", every=every, indent="    ")

    async def one(path: str) -> RawSocket:
        async with gate:
            sock = await open_socket(HOST, port, path, timeout=timeout)
            await sock.snapshot(timeout)
            progress.step()
            return sock

    sockets = await asyncio.gather(*(one(path) for path in paths))
    return list(sockets), time.perf_counter() - started


@dataclass
class Delivered:
    """Frames of `kind` against the moves that caused them: ms from the mover's answer and
    from the move's sending to each arrival, the (move, socket) pairs never delivered, and the
    frames that came after one with a higher seq."""

    from_answer: list[float] = field(default_factory=list)
    from_sent: list[float] = field(default_factory=list)
    missing: int = 0
    out_of_order: int = 0

    def add(
        self,
        frames: Sequence[Frame],
        sent: Mapping[int, tuple[float, float]],
        kind: str = "move",
    ) -> list[float]:
        """One socket's frames against `sent` (seq -> (sent, answered), perf_counter); the ms
        from the answer of this socket's deliveries."""
        arrivals: dict[int, float] = {}
        last = -1
        for at, frame_kind, seq in frames:
            if frame_kind != kind:
                continue
            if seq <= last:
                self.out_of_order += 1
            last = seq
            arrivals[seq] = at
        mine = []
        for seq, (at_sent, at_answer) in sent.items():
            arrived = arrivals.get(seq)
            if arrived is None:
                self.missing += 1
                continue
            mine.append((arrived - at_answer) * 1000)
            self.from_sent.append((arrived - at_sent) * 1000)
        self.from_answer += mine
        return mine


# --- WebSocket: a full client -------------------------------------------------------------------


async def connect_game(
    url: str, *, timeout: float, close_timeout: float = 2.0, token: str = ""
) -> tuple[Any, dict[str, Any]]:
    """A socket (`websockets`; signed in by an Authorization header with `token`) and its first
    frame, read within `timeout`: API.md's snapshot, which the caller checks."""
    from websockets.asyncio.client import connect

    headers = {"Authorization": f"Token {token}"} if token else None
    ws = await connect(
        url,
        additional_headers=headers,
        open_timeout=timeout,
        close_timeout=close_timeout,
        max_size=2**22,
    )
    try:
        first = json.loads(await asyncio.wait_for(ws.recv(), timeout))
    except BaseException:
        await ws.close()
        raise
    return ws, dict(first)


@asynccontextmanager
async def game_socket(
    url: str, *, timeout: float, close_timeout: float = 2.0
) -> AsyncIterator[tuple[Any, dict[str, Any]]]:
    """connect_game, closed on the way out."""
    ws, first = await connect_game(url, timeout=timeout, close_timeout=close_timeout)
    try:
        yield ws, first
    finally:
        await ws.close()


# --- in process -------------------------------------------------------------------------------


def wsgi_environ(path: str, body: bytes, token: str, method: str = "POST") -> dict[str, Any]:
    import io

    return {
        "REQUEST_METHOD": method,
        "PATH_INFO": path,
        "SCRIPT_NAME": "",
        "QUERY_STRING": "",
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "8000",
        "REMOTE_ADDR": "127.0.0.1",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "CONTENT_TYPE": "application/json",
        "CONTENT_LENGTH": str(len(body)),
        "HTTP_AUTHORIZATION": f"Token {token}",
        "HTTP_HOST": "127.0.0.1",
        "wsgi.input": io.BytesIO(body),
        "wsgi.url_scheme": "http",
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": False,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
    }


class WsgiClient:
    """Requests through Django's WSGI handler in this process (Django set up first): the whole
    stack a server runs (middleware, DRF, the view, the JSON answer) without the server's own
    parsing and without a network. The statuses of the answers are counted."""

    def __init__(self) -> None:
        from django.core.wsgi import get_wsgi_application

        self.app = get_wsgi_application()
        self.statuses: Counter[str] = Counter()

    def _start(
        self, status: str, headers: list[tuple[str, str]], exc_info: Any = None
    ) -> Callable[[bytes], object]:
        self.statuses[status] += 1
        return len  # the body's write(): the body is not kept

    def post(self, path: str, body: bytes, token: str) -> None:
        response = self.app(wsgi_environ(path, body, token), self._start)
        for _chunk in response:
            pass
        response.close()  # request_finished, as a server sends it


# --- wrk --------------------------------------------------------------------------------------


@dataclass
class WrkFigures:
    """What wrk prints of a run (latencies in ms), and the command line and output (`log`)."""

    rps: float
    p50: float
    p99: float
    requests: int
    non2xx: int
    sock_errors: int
    log: str = ""


def _ms(value: str, unit: str) -> float:
    return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]


def parse_wrk(out: str) -> WrkFigures:
    rps = re.search(r"Requests/sec:\s+([\d.]+)", out)
    if rps is None:
        raise SystemExit(f"wrk output not understood:\n{out}")
    p50 = re.search(r"50%\s+([\d.]+)(us|ms|s)\b", out)
    p99 = re.search(r"99%\s+([\d.]+)(us|ms|s)\b", out)
    total = re.search(r"(\d+) requests in", out)
    non2xx = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", out)
    errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    return WrkFigures(
        float(rps[1]),
        _ms(p50[1], p50[2]) if p50 else float("nan"),
        _ms(p99[1], p99[2]) if p99 else float("nan"),
        int(total[1]) if total else 0,
        int(non2xx[1]) if non2xx else 0,
        sum(int(v) for v in errors.groups()) if errors else 0,
    )


def wrk(
    url: str,
    *,
    threads: int,
    conns: int,
    seconds: float,
    script: Path | None = None,
    script_args: Sequence[str] = (),
    timeout: str | None = None,
) -> WrkFigures:
    """One wrk run (`timeout`: wrk's per-request timeout, e.g. "10s") and its figures."""
    argv = ["wrk", f"-t{threads}", f"-c{conns}", f"-d{seconds:g}s"]
    if timeout:
        argv += ["--timeout", timeout]
    argv.append("--latency")
    if script is not None:
        argv += ["-s", str(script)]
    argv.append(url)
    if script_args:
        argv += ["--", *script_args]
    out = subprocess.run(argv, capture_output=True, text=True, timeout=seconds + 60).stdout
    figures = parse_wrk(out)
    figures.log = f"{' '.join(argv)}\n{out}"
    return figures
