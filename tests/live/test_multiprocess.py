"""Two server processes, one PostgreSQL, one Redis: a move made through one process reaches
a watcher connected to the other, in order and without a gap in `seq`.

Needs DATABASE_URL (PostgreSQL: an in-memory SQLite database cannot be shared between
processes) and REDIS_URL (the in-memory channel layer lives inside one process).
"""

from __future__ import annotations

import asyncio
import json
import random
import socket as sockets
from collections.abc import Iterator
from typing import Any

import pytest
import websockets

from accounts.services import token_issue
from tests.support.uvicorn_pair import NEEDS_POSTGRES_AND_REDIS, http, receive, uvicorn_servers

PORTS = range(18100, 18150)  # this test's share of the live-updates port range

pytestmark = [
    pytest.mark.django_db(transaction=True),
    NEEDS_POSTGRES_AND_REDIS,
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


@pytest.fixture
def two_servers(transactional_db: Any) -> Iterator[tuple[int, ...]]:
    """Two uvicorn processes serving the test database."""
    taken: set[int] = set()
    with uvicorn_servers((free_port(taken), free_port(taken))) as ports:
        yield ports


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
