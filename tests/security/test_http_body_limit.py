"""A huge body is refused at the edge, before Django reads it.

Real servers: uvicorn (ASGI, `make run`) and gunicorn (WSGI, production). The client declares
a 300 MiB body (or sends a chunked one with no end), sends only a small part of it, and then
waits: the 413 must come back while most of the body was never sent, so the server cannot
have read it, and nothing may be spooled into the server's temporary directory."""

from __future__ import annotations

import json
import os
import select
import socket
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.support.personas import PASSWORD

from .http_servers import Server, migrated_sqlite

LIMIT = 64 * 1024
HUGE = 300 * 1024 * 1024
# Far longer than any healthy answer takes; only a server that waits for the rest of the body
# (the bug) gets near it, and then the test fails.
ANSWER_TIMEOUT = 60


@pytest.fixture(scope="module")
def template_db() -> Path:
    return migrated_sqlite()


def _read_answer(sock: socket.socket) -> tuple[int, dict[str, str], bytes]:
    sock.settimeout(ANSWER_TIMEOUT)
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        assert chunk, f"connection closed without an answer: {data!r}"
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {k.strip().lower(): v.strip() for k, v in (line.split(":", 1) for line in lines[1:])}
    length = int(headers.get("content-length", "0"))
    while len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        body += chunk
    return status, headers, body


def _temp_files(server: Server, tmpdir: Path) -> list[str]:
    """Files in the server's temp dir, and any it holds open there (an unlinked spool file
    of Django's has no directory entry but shows in /proc/<pid>/fd)."""
    found = [str(p) for p in tmpdir.rglob("*")]
    for pid in server.pids():
        fd_dir = Path(f"/proc/{pid}/fd")
        if not fd_dir.exists():
            continue
        for fd in fd_dir.iterdir():
            try:
                target = os.readlink(fd)
            except OSError:
                continue
            if target.startswith(str(tmpdir)):
                found.append(target)
    return found


@dataclass
class Edge:
    """A server of one kind (uvicorn, gunicorn) with its own temporary directory, and a raw
    connection to it."""

    kind: str
    server: Server
    tmpdir: Path
    sock: socket.socket


@pytest.fixture(scope="module", params=["uvicorn", "gunicorn"])
def served(
    request: Any, tmp_path_factory: Any, template_db: Path
) -> Iterator[tuple[str, Server, Path]]:
    """One server of each kind for the module's tests (each test asserts its temp dir is
    empty after its own request, so none inherits another's files)."""
    kind = request.param
    home = tmp_path_factory.mktemp(f"edge-{kind}")
    tmpdir = home / "server-tmp"
    tmpdir.mkdir()
    with Server(kind, home / kind, template_db, TMPDIR=str(tmpdir)) as server:
        yield kind, server, tmpdir


@pytest.fixture
def edge(served: tuple[str, Server, Path]) -> Iterator[Edge]:
    """A new raw connection to the module's server of one kind."""
    kind, server, tmpdir = served
    with socket.create_connection(("127.0.0.1", server.port)) as sock:
        yield Edge(kind, server, tmpdir, sock)


def _headers(port: int, extra: str) -> bytes:
    return (
        f"POST /api/auth/register HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        f"Content-Type: application/json\r\n{extra}\r\n"
    ).encode()


def _assert_413(status: int, headers: dict[str, str], body: bytes) -> None:
    assert status == 413, body
    assert headers["content-type"].startswith("application/json")
    error = json.loads(body)["error"]
    assert error["code"] == "payload_too_large"
    assert set(error) == {"code", "message", "details"}


def test_a_declared_huge_body_is_refused_before_it_is_read(edge: Edge) -> None:
    edge.sock.sendall(_headers(edge.server.port, f"Content-Length: {HUGE}\r\n"))
    sent = 0
    for _ in range(4):  # a slow client: a few pieces of the body, then nothing more
        # A server may answer from the headers alone and close: the client stops sending then
        # (its next write would meet a closed connection) and reads the answer.
        if select.select([edge.sock], [], [], 0.05)[0]:
            break
        try:
            edge.sock.sendall(b"[" * 4096)
        except (BrokenPipeError, ConnectionResetError):
            break
        sent += 4096
    status, headers, body = _read_answer(edge.sock)
    _assert_413(status, headers, body)
    assert sent < HUGE // 1000  # the answer came with almost all of the body unsent
    assert _temp_files(edge.server, edge.tmpdir) == []


def test_a_chunked_body_is_cut_off_once_it_passes_the_limit(edge: Edge) -> None:
    edge.sock.sendall(_headers(edge.server.port, "Transfer-Encoding: chunked\r\n"))
    piece = b"[" * 8192
    sent = 0
    edge.sock.settimeout(ANSWER_TIMEOUT)
    # Just past the limit, and no final chunk: a server waiting for the end never answers.
    while sent <= LIMIT + len(piece):
        edge.sock.sendall(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
        sent += len(piece)
    status, headers, body = _read_answer(edge.sock)
    _assert_413(status, headers, body)
    assert _temp_files(edge.server, edge.tmpdir) == []


@pytest.mark.parametrize("chunked", [False, True])
def test_a_body_within_the_limit_still_reaches_the_api(edge: Edge, chunked: bool) -> None:
    name = f"edge_{edge.kind}_{int(chunked)}"
    payload = json.dumps({"username": name, "password": PASSWORD}).encode()
    if chunked:  # WSGI servers hand Django no length for it: the guard buffers it (<= limit)
        request = _headers(edge.server.port, "Transfer-Encoding: chunked\r\n")
        request += f"{len(payload):x}\r\n".encode() + payload + b"\r\n0\r\n\r\n"
    else:
        request = _headers(edge.server.port, f"Content-Length: {len(payload)}\r\n") + payload
    edge.sock.sendall(request)
    status, _, body = _read_answer(edge.sock)
    assert status == 201, body
    assert json.loads(body)["username"] == name
