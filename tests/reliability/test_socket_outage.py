"""PostgreSQL outage at the socket door: a handshake that needs the database (a token lookup,
the game's first snapshot) is answered with the API.md body, 503 `service_unavailable`, and
closed with 1013 ("try again later"), never a bare HTTP 500. Once PostgreSQL is back the same
server opens sockets again. A real uvicorn on a private PostgreSQL (tests/support/services.py);
the machine's shared PostgreSQL is never stopped."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from websockets.asyncio.client import connect

from tests.support.personas import sign_up_on
from tests.support.services import NEEDS_PRIVATE_POSTGRES, AppServer, PrivatePostgres, migrate

pytestmark = NEEDS_PRIVATE_POSTGRES


@pytest.fixture(scope="module")
def private_pg() -> Iterator[PrivatePostgres]:
    with PrivatePostgres(fsync=False) as pg:
        yield pg


def _player_with_a_game(server: AppServer, name: str) -> tuple[str, dict[str, Any]]:
    """`name` signed up on the server, a token of theirs and a new Beginner game of theirs."""
    token = sign_up_on(server, name)
    _, _, game, _ = server.request("POST", "/api/games", {"level": "beginner"}, token=token)
    return token, game


async def _open(port: int, game_id: str, token: str | None) -> tuple[list[dict[str, Any]], Any]:
    headers = {"Authorization": f"Token {token}"} if token else {}
    async with connect(
        f"ws://127.0.0.1:{port}/ws/games/{game_id}", additional_headers=headers
    ) as ws:
        frames: list[dict[str, Any]] = []
        try:
            while True:
                frames.append(json.loads(await asyncio.wait_for(ws.recv(), 10)))
                if frames[-1]["type"] == "state":
                    return frames, None
        except Exception:  # the server closed the socket
            return frames, ws.close_code


def test_a_socket_handshake_while_postgresql_is_down_is_503_then_works_again(
    private_pg: PrivatePostgres,
) -> None:
    url = private_pg.create_database("socket_outage")
    migrate(url)
    with AppServer("uvicorn", workers=1, DATABASE_URL=url, DB_POOL="1") as server:
        token, game = _player_with_a_game(server, "down")
        private_pg.stop("immediate")
        try:
            for who in (token, None):  # the token lookup; the anonymous watcher's snapshot
                frames, code = asyncio.run(_open(server.port, game["id"], who))
                assert code == 1013, (who is not None, frames, code)
                assert frames and frames[-1]["type"] == "error", frames
                assert frames[-1]["error"]["code"] == "service_unavailable"
                assert frames[-1]["error"]["details"]["retry_after"] > 0
        finally:
            private_pg.start()
        for who in (token, None):
            for _ in range(40):  # the pool replaces its dead connections within seconds
                frames, code = asyncio.run(_open(server.port, game["id"], who))
                if code is None:
                    break
                asyncio.run(asyncio.sleep(0.25))
            assert code is None and frames[-1]["type"] == "state", frames
        assert "Traceback" not in server.output(), server.output()


async def _move_across_a_restart(port: int, game_id: str, token: str, restart: Any) -> list[Any]:
    """One socket: a move, then `restart()` (PostgreSQL stopped and started again), then
    another move on the same socket; the frames that answer each move."""
    headers = {"Authorization": f"Token {token}"}
    answers: list[Any] = []
    async with connect(
        f"ws://127.0.0.1:{port}/ws/games/{game_id}", additional_headers=headers
    ) as ws:
        state = json.loads(await asyncio.wait_for(ws.recv(), 10))
        assert state["type"] == "state", state
        await ws.send(json.dumps({"action": "reveal", "x": 4, "y": 4}))  # the first tap
        answers.append(json.loads(await asyncio.wait_for(ws.recv(), 10)))
        opened = {(c["x"], c["y"]) for c in answers[0].get("changes", [])}
        closed = next((x, y) for y in range(9) for x in range(9) if (x, y) not in opened)
        await asyncio.to_thread(restart)
        await ws.send(json.dumps({"action": "flag", "x": closed[0], "y": closed[1]}))
        answers.append(json.loads(await asyncio.wait_for(ws.recv(), 10)))
    return answers


def test_a_socket_that_moved_before_a_postgresql_restart_moves_after_it(
    private_pg: PrivatePostgres,
) -> None:
    """The sockets' database thread keeps its pooled connection between moves
    (games.live.dbcall); one idle since before a restart is tested before a move uses it, so
    the first move after PostgreSQL is back is stored, not refused."""
    url = private_pg.create_database("socket_restart")
    migrate(url)
    with AppServer("uvicorn", workers=1, DATABASE_URL=url, DB_POOL="1") as server:
        token, game = _player_with_a_game(server, "kept")

        def restart() -> None:
            private_pg.stop("immediate")
            private_pg.start()
            for _ in range(80):  # the HTTP side answers again (its own pool connections)
                status, _, _, _ = server.request("GET", "/readyz", timeout=10)
                if status == 200:
                    return
                time.sleep(0.25)
            raise AssertionError("the server never became ready again")

        answers = asyncio.run(_move_across_a_restart(server.port, game["id"], token, restart))
        assert [a["type"] for a in answers] == ["move", "move"], answers
        assert answers[1]["seq"] == answers[0]["seq"] + 1, answers
        assert "Traceback" not in server.output(), server.output()
