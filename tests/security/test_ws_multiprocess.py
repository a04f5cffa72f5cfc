"""Socket caps and revocation across two real server processes (one PostgreSQL, one Redis):
the socket cap counts alice's sockets on both processes, and revoking her token through one
process closes her sockets on the other.

Needs DATABASE_URL (PostgreSQL) and REDIS_URL, as tests/live/test_multiprocess.py; both
start their servers with tests/support/uvicorn_pair.py.
"""

from __future__ import annotations

import asyncio
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
import websockets

from accounts.services import token_issue
from deploy.processes import WS_OPTIONS
from tests.support.uvicorn_pair import (
    NEEDS_POSTGRES_AND_REDIS,
    free_port,
    http,
    receive,
    uvicorn_servers,
)

pytestmark = [
    pytest.mark.django_db(transaction=True),
    NEEDS_POSTGRES_AND_REDIS,
]


@pytest.fixture
def two_capped_servers(transactional_db: Any) -> Iterator[tuple[int, ...]]:
    with uvicorn_servers(
        (free_port(), free_port()), *WS_OPTIONS, WS_MAX_SOCKETS_PER_USER="2"
    ) as ports:
        yield ports


def revoke(base: str, key: str) -> int:
    """DELETE /api/auth/token (204, no body) with the token itself."""
    request = urllib.request.Request(
        f"{base}/api/auth/token", method="DELETE", headers={"Authorization": f"Token {key}"}
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return int(response.status)


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
