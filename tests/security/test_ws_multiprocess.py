"""Issue 12, socket items 2 and 3 across two real server processes (one PostgreSQL, one Redis):
the socket cap counts alice's sockets on both processes, and revoking her token through one
process closes her sockets on the other.

Needs DATABASE_URL (PostgreSQL) and REDIS_URL, as tests/realtime/test_multiprocess.py, whose
helpers it reuses.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
import websockets
from django.conf import settings

from accounts.services import token_issue
from tests.realtime.test_multiprocess import ROOT, http, wait_until_serving

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        not (
            os.environ.get("DATABASE_URL", "").startswith("postgres")
            and os.environ.get("REDIS_URL")
        ),
        reason="needs DATABASE_URL (PostgreSQL) and REDIS_URL: processes share nothing else",
    ),
]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def two_capped_servers(transactional_db: Any) -> Iterator[tuple[int, int]]:
    db = settings.DATABASES["default"]
    database_url = (
        f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
    )
    if db.get("PASSWORD"):
        database_url = database_url.replace("@", f":{db['PASSWORD']}@", 1)
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "DB_POOL": "1",
        "DJANGO_SETTINGS_MODULE": "demineur_site.settings_test",
        "CHANNELS_PREFIX": settings.CHANNEL_LAYERS["default"]["CONFIG"]["prefix"],
        "LOG_LEVEL": "WARNING",
        "WS_MAX_SOCKETS_PER_USER": "2",
    }
    ports = (free_port(), free_port())
    servers = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "uvicorn",
                "demineur_site.asgi:application",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--no-access-log",
                "--lifespan",
                "off",
                "--log-level",
                "warning",
                "--ws-max-size",
                "4096",
            ],
            cwd=ROOT,
            env=env,
            start_new_session=True,
        )
        for port in ports
    ]
    try:
        for port, server in zip(ports, servers, strict=True):
            wait_until_serving(port, server)
        yield ports
    finally:
        for server in servers:
            if server.poll() is None:
                os.killpg(server.pid, signal.SIGTERM)
        for server in servers:
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, signal.SIGKILL)
                server.wait()


def revoke(base: str, key: str) -> int:
    """DELETE /api/auth/token (204, no body) with the token itself."""
    request = urllib.request.Request(
        f"{base}/api/auth/token", method="DELETE", headers={"Authorization": f"Token {key}"}
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return int(response.status)


async def receive(ws: Any) -> dict[str, Any]:
    return json.loads(await asyncio.wait_for(ws.recv(), timeout=5))


async def closed_code(ws: Any) -> int | None:
    try:
        while True:
            await asyncio.wait_for(ws.recv(), timeout=5)
    except websockets.ConnectionClosed as closed:
        return closed.rcvd.code if closed.rcvd is not None else None


def test_the_cap_and_the_revocation_hold_across_two_server_processes(alice, two_capped_servers):
    port_a, port_b = two_capped_servers
    _, key = token_issue(user=alice)

    async def scenario() -> None:
        status, game = await asyncio.to_thread(
            http, "POST", f"http://127.0.0.1:{port_a}/api/games", key, {"level": "beginner"}
        )
        assert status == 201
        path = f"/ws/games/{game['id']}"
        async with (
            websockets.connect(f"ws://127.0.0.1:{port_b}{path}?token={key}") as on_b,
            websockets.connect(
                f"ws://127.0.0.1:{port_a}{path}",
                additional_headers={"Authorization": f"Token {key}"},
            ) as on_a,
        ):
            for ws in (on_a, on_b):
                assert (await receive(ws))["type"] == "state"
            # A third socket, on either process, is one too many for a cap of 2.
            async with websockets.connect(f"ws://127.0.0.1:{port_a}{path}?token={key}") as third:
                refused = await receive(third)
                assert refused["error"]["code"] == "too_many_sockets"
                assert await closed_code(third) == 4429

            status = await asyncio.to_thread(revoke, f"http://127.0.0.1:{port_a}", key)
            assert status == 204
            for ws in (on_b, on_a):  # on_b lives in the other process
                kicked = await receive(ws)
                assert kicked["error"]["code"] == "authentication_failed"
                assert await closed_code(ws) == 4401

    asyncio.run(scenario())
