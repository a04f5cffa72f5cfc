"""Two server processes, one PostgreSQL, one Redis: a move made through one process reaches
a watcher connected to the other, in order and without a gap in `seq`.

Needs DATABASE_URL (PostgreSQL: an in-memory SQLite database cannot be shared between
processes) and REDIS_URL (the in-memory channel layer lives inside one process).
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import socket as sockets
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import websockets
from django.conf import settings

from accounts.services import token_issue

ROOT = Path(__file__).resolve().parents[2]
PORTS = range(18100, 18150)  # this test's share of the live-updates port range
START_TIMEOUT = 30.0

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


def free_port(taken: set[int]) -> int:
    for port in random.sample(list(PORTS), len(PORTS)):
        if port in taken:
            continue
        with sockets.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
        taken.add(port)
        return port
    raise RuntimeError("no free port in 18100-18149")


def http(method: str, url: str, token: str, body: dict[str, Any] | None = None) -> tuple[int, Any]:
    request = urllib.request.Request(
        url,
        method=method,
        data=None if body is None else json.dumps(body).encode(),
        headers={"Authorization": f"Token {token}", "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def wait_until_serving(port: int, server: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"the server on port {port} exited with {server.returncode}")
        try:
            with urllib.request.urlopen(
                f"http://127.0.0.1:{port}/api/games?page_size=1", timeout=2
            ):
                return
        except (OSError, urllib.error.URLError):
            time.sleep(0.1)
    raise RuntimeError(f"the server on port {port} did not answer in {START_TIMEOUT} s")


@pytest.fixture
def two_servers(transactional_db: Any) -> Iterator[tuple[int, int]]:
    """Two uvicorn processes serving the test database (its name is known only now)."""
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
    }
    taken: set[int] = set()
    ports = (free_port(taken), free_port(taken))
    command = [sys.executable, "-m", "uvicorn", "demineur_site.asgi:application"]
    options = [
        "--host",
        "127.0.0.1",
        "--no-access-log",
        "--lifespan",
        "off",
        "--log-level",
        "warning",
    ]
    servers = [
        subprocess.Popen(
            [*command, *options, "--port", str(port)], cwd=ROOT, env=env, start_new_session=True
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


async def receive(ws: Any) -> dict[str, Any]:
    return json.loads(await asyncio.wait_for(ws.recv(), timeout=5))


def test_a_move_made_through_one_process_reaches_a_watcher_of_the_other(alice, two_servers):
    port_a, port_b = two_servers
    _, key = token_issue(user=alice)
    api_a = f"http://127.0.0.1:{port_a}/api"

    async def scenario() -> None:
        status, game = await asyncio.to_thread(
            http, "POST", f"{api_a}/games", key, {"level": "beginner"}
        )
        assert status == 201
        game_id = game["id"]
        async with (
            websockets.connect(f"ws://127.0.0.1:{port_b}/ws/games/{game_id}") as watcher_b,
            websockets.connect(f"ws://127.0.0.1:{port_a}/ws/games/{game_id}") as watcher_a,
            websockets.connect(
                f"ws://127.0.0.1:{port_b}/ws/games/{game_id}?token={key}"
            ) as player_b,
        ):
            for ws in (watcher_b, watcher_a, player_b):
                assert (await receive(ws))["type"] == "state"

            # Through process A over HTTP, seen on process B.
            status, result = await asyncio.to_thread(
                http, "POST", f"{api_a}/games/{game_id}/reveal", key, {"x": 4, "y": 4}
            )
            assert status == 200
            move = await receive(watcher_b)
            assert (move["type"], move["seq"]) == ("move", 1)
            assert move["changes"] == result["changes"]

            # Through process B over the socket, seen on process A.
            closed = [
                (x, y)
                for y, row in enumerate(result["game"]["board"])
                for x, c in enumerate(row)
                if c == "#"
            ]
            x, y = closed[0]
            assert (await receive(watcher_a)) == move
            await player_b.send(json.dumps({"action": "flag", "x": x, "y": y}))
            flagged = await receive(watcher_a)
            assert (flagged["seq"], flagged["changes"]) == (2, [{"x": x, "y": y, "v": "F"}])

            for action in ("pause", "resume", "resign"):
                status, _ = await asyncio.to_thread(
                    http, "POST", f"{api_a}/games/{game_id}/{action}", key
                )
                assert status == 200
            expected = [
                ("move", 1),
                ("move", 2),
                ("paused", 3),
                ("resumed", 4),
                ("move", 5),
                ("ended", 5),
            ]
            for ws in (watcher_b, player_b):
                seen = [move] if ws is watcher_b else []
                while len(seen) < len(expected):
                    seen.append(await receive(ws))
                assert [(m["type"], m["seq"]) for m in seen] == expected
                assert seen[-1]["game"]["end_reason"] == "resigned"

    asyncio.run(scenario())
