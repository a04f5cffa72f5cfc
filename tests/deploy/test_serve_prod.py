"""`make serve-prod` (deploy/serve_prod.py): Caddy in front of gunicorn and two uvicorn
processes, on a database of its own on the shared PostgreSQL and on the shared Redis.

* a move sent by HTTP through the proxy reaches watchers whose sockets went through the proxy
  to two different uvicorn processes (the proxy balances, Redis carries the event across);
* a 1 MiB body is refused with 413 and the API.md error body by the proxy itself, whether
  its length is declared or it comes chunked: no app server sees it;
* `serve_prod.py stop` stops every process it started.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import secrets
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import websockets

from tests.support.handshake import compression_declined
from tests.support.personas import PASSWORD
from tests.support.serve_prod import (
    LAUNCHER,
    ROOT,
    needs_proxy_and_services,
    serve_prod_layout,
)


@pytest.fixture
def serve_prod(tmp_path: Path) -> Iterator[dict[str, Any]]:
    """The launcher in the foreground, as `make serve-prod` runs it; stopped by `stop`."""
    with serve_prod_layout(tmp_path, "serveprod") as running:
        yield running


def request(
    port: int, method: str, path: str, body: Any = None, token: str = ""
) -> tuple[int, Any]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=15)
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Token {token}"
    conn.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
    response = conn.getresponse()
    status, data = response.status, response.read()
    conn.close()
    return status, json.loads(data) if data else None


def established_on(ports: list[int]) -> dict[int, int]:
    """How many established TCP connections each local port holds (Linux /proc/net/tcp*)."""
    counts = dict.fromkeys(ports, 0)
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            local_port = int(fields[1].rsplit(":", 1)[1], 16)
            if fields[3] == "01" and local_port in counts:
                counts[local_port] += 1
    return counts


async def receive(ws: Any) -> dict[str, Any]:
    return json.loads(await asyncio.wait_for(ws.recv(), timeout=10))


@needs_proxy_and_services[0]
@needs_proxy_and_services[1]
def test_a_move_through_the_proxy_reaches_watchers_on_two_socket_workers(serve_prod):
    port, live_ports = serve_prod["port"], serve_prod["layout"]["live_ports"]
    assert len(live_ports) == 2
    status, _ = request(
        port, "POST", "/api/auth/register", {"username": "deployer", "password": PASSWORD}
    )
    assert status == 201
    status, body = request(
        port, "POST", "/api/auth/token", {"username": "deployer", "password": PASSWORD}
    )
    assert status == 200
    token = body["token"]
    status, game = request(port, "POST", "/api/games", {"level": "beginner"}, token)
    assert status == 201

    async def scenario() -> None:
        watchers: list[tuple[Any, int]] = []
        try:
            # Open watchers through the proxy until two different uvicorn processes hold one.
            for _ in range(8):
                before = established_on(live_ports)
                ws = await websockets.connect(f"ws://127.0.0.1:{port}/ws/games/{game['id']}")
                assert compression_declined(ws)
                assert (await receive(ws))["type"] == "state"
                after = established_on(live_ports)
                grown = [p for p in live_ports if after[p] > before[p]]
                assert len(grown) == 1, (before, after)
                watchers.append((ws, grown[0]))
                if len({p for _, p in watchers}) == 2:
                    break
            served_by = {p for _, p in watchers}
            assert served_by == set(live_ports), "the proxy sent every socket to one worker"

            status, result = await asyncio.to_thread(
                request,
                port,
                "POST",
                f"/api/games/{game['id']}/reveal",
                {"x": 4, "y": 4},
                token,
            )
            assert status == 200
            for ws, _ in watchers:
                move = await receive(ws)
                assert (move["type"], move["seq"]) == ("move", 1)
                assert move["changes"] == result["changes"]
        finally:
            for ws, _ in watchers:
                await ws.close()

    asyncio.run(scenario())


@needs_proxy_and_services[0]
@needs_proxy_and_services[1]
def test_a_1_mib_body_is_refused_by_the_proxy_before_any_app_server(serve_prod):
    port, run = serve_prod["port"], serve_prod["run"]
    nonce = secrets.token_hex(8)
    body = b'{"username": "' + b"x" * (1024 * 1024) + b'"}'

    declared = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    declared.request(
        "POST",
        f"/api/auth/register?probe={nonce}",
        body=body,
        headers={"Content-Type": "application/json"},
    )
    response = declared.getresponse()
    assert response.status == 413
    assert json.loads(response.read())["error"]["code"] == "payload_too_large"
    declared.close()

    def chunks() -> Iterator[bytes]:
        for start in range(0, len(body), 16384):
            yield body[start : start + 16384]

    chunked = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    chunked.request(
        "POST",
        f"/api/auth/register?probe={nonce}",
        body=chunks(),
        headers={"Content-Type": "application/json"},
        encode_chunked=True,
    )
    response = chunked.getresponse()
    assert response.status == 413
    error = json.loads(response.read())["error"]
    assert error["code"] == "payload_too_large"
    assert set(error) == {"code", "message", "details"}
    chunked.close()

    # Neither request was forwarded: the app servers' access log never saw the nonce. (A
    # request that reaches gunicorn is logged: the readiness probes are in the same log.)
    access = (run / "web-access.log").read_text()
    assert "/readyz" in access
    assert nonce not in access

    # And the web upstream is still in rotation afterwards (no passive health check marked
    # it down because of a client's oversized body).
    status, body_ = request(port, "GET", "/api/games?page_size=1")
    assert status == 200, body_


def test_serve_prod_refuses_to_start_without_postgresql_and_redis(tmp_path: Path):
    env = {
        **os.environ,
        "SERVE_PROD_RUN_DIR": str(tmp_path / "run"),
        "DATABASE_URL": "",
        "REDIS_URL": "redis://127.0.0.1:1/0",
    }
    result = subprocess.run(
        [sys.executable, str(LAUNCHER)], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert result.returncode == 2
    assert "DATABASE_URL" in result.stderr
    result = subprocess.run(
        [sys.executable, str(LAUNCHER)],
        cwd=ROOT,
        # Never reached: the launcher checks the settings before it connects to anything.
        env={**env, "DATABASE_URL": "postgres://nobody@127.0.0.1:1/none", "REDIS_URL": ""},
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2
    assert "REDIS_URL" in result.stderr
