"""The short crash test (docs/RELIABILITY.md, "Crash"): one round of every
event of bench/soak/crash.py under a steady load of random players over REST and sockets.

The production servers (gunicorn sync workers, uvicorn workers, DEBUG=0) run on a private
PostgreSQL and a private Redis started for this test (bench/harness/servers.py): the machine's
shared instances, and DATABASE_URL / REDIS_URL, are never used, so the test runs the same with
or without them. It takes about a minute; `make soak` runs the long version.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from pathlib import Path

import pytest

from bench.harness.servers import AppServer as Server
from bench.harness.servers import PrivatePostgres, PrivateRedis, app_env
from bench.harness.servers import private_services_missing as missing_tools
from bench.ports import free_port
from bench.soak import crash

MISSING = missing_tools()

pytestmark = pytest.mark.skipif(
    bool(MISSING),
    reason=f"the crash test starts its own PostgreSQL and Redis and lacks: {', '.join(MISSING)}",
)


@pytest.fixture(scope="module")
def report() -> crash.Report:
    config = crash.Config(
        seconds=0,  # one round of events, no more
        players=16,
        socket_share=0.5,
        think=0.05,
        warmup=3,
        gap=2,
        pg_down=3,
        tail=5,
    )
    return crash.run(config, log=print)


def test_every_event_ran_under_load(report: crash.Report) -> None:
    names = [e.name for e in report.events]
    assert names == list(crash.STEP_NAMES)
    assert report.ledger.acked_rest > 0
    assert report.ledger.acked_socket > 0


def test_every_acknowledged_move_is_stored(report: crash.Report) -> None:
    assert report.stored is not None
    assert len(report.ledger.acked) > 0
    assert report.stored.lost == []
    assert report.stored.moves_with_cmid >= len(report.ledger.acked)


def test_no_client_move_id_acknowledged_twice_differently(report: crash.Report) -> None:
    assert report.ledger.conflicts == []


def test_only_outage_errors_were_seen(report: crash.Report) -> None:
    """Refused or cut connections, 503 and missing answers are what an outage explains; a 409
    on a fresh move or any other answer is not."""
    assert report.ledger.unexpected == []


def test_no_server_error_while_postgresql_is_down(report: crash.Report) -> None:
    """Regression: a socket move while PostgreSQL was down was answered 500 `server_error`
    (REST said 503); it is now 503 `service_unavailable` over the socket too."""
    assert not [k for k in report.ledger.errors if "500" in k or "server_error" in k]
    outage = next(e for e in report.events if e.name == "postgresql immediate stop")
    assert not [k for k in outage.errors if "500" in k or "server_error" in k]


def test_the_servers_died_and_the_players_saw_it(report: crash.Report) -> None:
    """The events were real: the kills and the PostgreSQL stop left errors for the players."""
    by_event = {e.name: e for e in report.events}
    assert sum(by_event["gunicorn master"].errors.values()) > 0
    assert sum(by_event["uvicorn supervisor"].errors.values()) > 0
    assert sum(by_event["postgresql immediate stop"].errors.values()) > 0


def test_service_recovers_without_a_restart(report: crash.Report) -> None:
    rest, socket = report.acked_after_last
    assert rest > 0
    assert socket > 0


def test_verify_games_passes(report: crash.Report) -> None:
    assert report.verified, report.verify_output
    assert report.failures == []


def test_socket_move_while_postgresql_is_down_is_503_not_500() -> None:
    """Regression (found by the crash test): with PostgreSQL down, a move sent over the socket
    was answered `{"type": "error", "error": {"code": "server_error"}}` (a 500) where REST
    answers 503 `service_unavailable`. Deterministic: PostgreSQL is stopped between the
    socket's `state` and its move."""
    from websockets.asyncio.client import connect

    taken: set[int] = set()
    ports = [free_port(crash.PORTS, taken) for _ in range(3)]
    logs = Path(tempfile.mkdtemp(prefix="crash-503-"))
    with PrivatePostgres(ports[0]) as pg, PrivateRedis(ports[1]) as redis:
        pg.create_database("demineur_503")
        env = app_env(pg.url("demineur_503"), redis.url(0), "crash503")
        account = crash.seed(env, 1, "down")[0]
        live = Server("uvicorn", ports[2], env, logs, workers=1)
        live.start()
        try:
            live.wait_ready(workers=False)  # one process: no workers of a supervisor

            async def scenario() -> dict[str, object]:
                from bench.harness.clients import http_post

                status, body = await http_post(
                    "127.0.0.1", live.port, "/api/games", account["token"], {"level": "beginner"}
                )
                assert status == 201, body
                game = json.loads(body)["id"]
                async with connect(
                    f"ws://127.0.0.1:{live.port}/ws/games/{game}",
                    additional_headers={"Authorization": f"Token {account['token']}"},
                ) as ws:
                    first = json.loads(await ws.recv())
                    assert first["type"] == "state"
                    await asyncio.to_thread(pg.stop, "immediate")
                    await ws.send(
                        json.dumps({"action": "reveal", "x": 4, "y": 4, "client_move_id": "m1"})
                    )
                    answer: dict[str, object] = json.loads(await asyncio.wait_for(ws.recv(), 30))
                    return answer

            answer = asyncio.run(scenario())
        finally:
            live.stop()
    assert answer["type"] == "error"
    assert answer["client_move_id"] == "m1"
    error = answer["error"]
    assert isinstance(error, dict)
    assert error["code"] == "service_unavailable"
    assert set(error) == {"code", "message", "details"}
