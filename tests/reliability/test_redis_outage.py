"""Redis outage: with Redis gone, moves keep succeeding (their live events
are dropped and logged, never a failed move); when Redis is back, open sockets are told to
resync (a fresh `state`) and live updates resume, with no restart of anything.

A real uvicorn server (HTTP and sockets, production settings) on a private PostgreSQL and a
PRIVATE Redis (tests/support/services.py), which the test kills and starts again: never the
machine's shared Redis."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest
import websockets

from tests.support.personas import PASSWORD
from tests.support.services import (
    AppServer,
    PrivatePostgres,
    PrivateRedis,
    manage,
    migrate,
    postgres_missing,
    redis_missing,
)

MISSING = postgres_missing() or redis_missing()
pytestmark = pytest.mark.skipif(MISSING is not None, reason=f"needs private servers: {MISSING}")

NOTHING_HANGS_S = 10.0


def _ok(server: AppServer, method: str, path: str, body: Any = None, token: str = "") -> Any:
    status, _, answer, taken = server.request(method, path, body, token=token or None)
    assert status in (200, 201), (method, path, status, answer)
    assert taken < NOTHING_HANGS_S, (method, path, taken)
    return answer


async def _next(ws: Any, kind: str, bound: float = NOTHING_HANGS_S) -> dict[str, Any]:
    """The next message of `kind` (others, e.g. the move events of the moves before, skipped)."""
    deadline = time.monotonic() + bound
    while True:
        left = deadline - time.monotonic()
        assert left > 0, f"no {kind!r} message within {bound} s"
        message = json.loads(await asyncio.wait_for(ws.recv(), left))
        if message["type"] == kind:
            return message


async def _outage(server: AppServer, redis: PrivateRedis) -> None:
    _ok(server, "POST", "/api/auth/register", {"username": "outage", "password": PASSWORD})
    token = _ok(server, "POST", "/api/auth/token", {"username": "outage", "password": PASSWORD})[
        "token"
    ]
    game = _ok(server, "POST", "/api/games", {"level": "marathon"}, token)
    gid = game["id"]
    _ok(server, "POST", f"/api/games/{gid}/reveal", {"x": 40, "y": 20}, token)
    closed = [
        (x, y)
        for y, row in enumerate(_ok(server, "GET", f"/api/games/{gid}")["board"])
        for x, ch in enumerate(row)
        if ch == "#"
    ]

    async with (
        websockets.connect(f"ws://127.0.0.1:{server.port}/ws/games/{gid}") as watcher,
        websockets.connect(f"ws://127.0.0.1:{server.port}/ws/live") as lobby,
    ):
        assert (await _next(watcher, "state"))["seq"] == 1
        await _next(lobby, "live")
        flag = {"x": closed[0][0], "y": closed[0][1], "flagged": True}
        _ok(server, "POST", f"/api/games/{gid}/flag", flag, token)
        assert (await _next(watcher, "move"))["seq"] == 2  # live, before the outage

        redis.stop()  # SIGKILL: Redis is gone, its subscriptions with it
        for n, (x, y) in enumerate(closed[1:6]):
            answer = _ok(
                server, "POST", f"/api/games/{gid}/flag", {"x": x, "y": y, "flagged": True}, token
            )
            assert answer["seq"] == 3 + n  # every move is stored and answered
        status, _, ready, _ = server.request("GET", "/readyz")
        assert status == 503 and ready["checks"]["redis"]["ok"] is False

        redis.start()  # an empty Redis on the same port; nothing else is restarted
        fresh = await _next(watcher, "state", bound=20)
        assert fresh["seq"] == 7 and fresh["game"]["mines_left"] == 240 - 6
        await _next(lobby, "live", bound=20)
        x, y = closed[6]
        _ok(server, "POST", f"/api/games/{gid}/flag", {"x": x, "y": y, "flagged": True}, token)
        assert (await _next(watcher, "move"))["seq"] == 8  # live again

    log = server.output()
    assert "live events dropped" in log and "live events flow again" in log, log
    assert "Redis answers again: resyncing" in log, log


def test_moves_go_on_without_redis_and_sockets_resync_when_it_is_back(
    private_pg: PrivatePostgres,
) -> None:
    url = private_pg.create_database("redis_outage")
    migrate(url)
    with (
        PrivateRedis() as redis,
        AppServer(
            "uvicorn", workers=1, DATABASE_URL=url, REDIS_URL=redis.url(), DB_POOL="1"
        ) as server,
    ):
        asyncio.run(_outage(server, redis))
    done = manage("verify_games", DATABASE_URL=url)
    assert done.returncode == 0, done.stdout + done.stderr
