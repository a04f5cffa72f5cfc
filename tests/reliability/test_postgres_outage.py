"""PostgreSQL outage: while PostgreSQL is down every API answer is 503
`service_unavailable` with the API.md error body, `/readyz` says so and `/healthz` still
answers, nothing hangs; once it is back the same server processes answer normally again,
without a restart, and `verify_games` passes.

Real servers with the production settings (DEBUG=0) against a PRIVATE PostgreSQL cluster
(tests/support/services.py), which the test stops in immediate mode: never the machine's
shared PostgreSQL. gunicorn (WSGI, persistent connections with CONN_HEALTH_CHECKS) and uvicorn
(ASGI, DB_POOL=1, the psycopg pool), as in docker-compose.yml."""

from __future__ import annotations

import time
from typing import Any

from tests.support.personas import PASSWORD, sign_up_on
from tests.support.services import (
    NEEDS_PRIVATE_POSTGRES,
    AppServer,
    PrivatePostgres,
    manage,
    migrate,
)

pytestmark = NEEDS_PRIVATE_POSTGRES

# Behaviour, not speed: an answer within this bound means nothing hung.
NOTHING_HANGS_S = 10.0


def _new_game_and_tap(server: AppServer, token: str) -> str:
    status, _, game, _ = server.request("POST", "/api/games", {"level": "beginner"}, token=token)
    assert status == 201, game
    status, _, result, _ = server.request(
        "POST", f"/api/games/{game['id']}/reveal", {"x": 4, "y": 4}, token=token
    )
    assert status == 200, result
    return str(game["id"])


def _requests(game_id: str, token: str) -> list[tuple[str, str, Any, str | None]]:
    """Reads and writes, anonymous and signed in, through DRF and through Django only."""
    return [
        ("GET", "/api/games", None, None),
        ("GET", f"/api/games/{game_id}", None, None),
        ("GET", f"/api/games/{game_id}/moves", None, token),
        ("GET", "/api/me", None, token),
        ("GET", "/api/users/outage", None, None),
        ("GET", "/api/leaderboards/beginner/times", None, None),
        ("POST", "/api/games", {"level": "expert"}, token),
        ("POST", f"/api/games/{game_id}/flag", {"x": 0, "y": 0}, token),
        ("POST", "/api/auth/register", {"username": "late", "password": PASSWORD}, None),
        ("POST", "/api/auth/token", {"username": "outage", "password": PASSWORD}, None),
        ("GET", "/api/tokens", None, token),
    ]


def _assert_unavailable(status: int, headers: dict[str, str], body: Any, what: str) -> None:
    assert status == 503, (what, status, body)
    assert headers.get("content-type", "").startswith("application/json"), (what, headers)
    assert isinstance(body, dict) and set(body) == {"error"}, (what, body)
    error = body["error"]
    assert error["code"] == "service_unavailable", (what, body)
    assert isinstance(error["message"], str) and error["message"], (what, body)
    assert isinstance(error["details"], dict), (what, body)
    assert headers.get("retry-after", "").isdigit(), (what, headers)


def _wait_ready(server: AppServer, bound: float = 60.0) -> dict[str, Any]:
    deadline = time.monotonic() + bound
    while True:
        status, _, body, _ = server.request("GET", "/readyz", timeout=NOTHING_HANGS_S)
        if status == 200:
            return dict(body)
        if time.monotonic() > deadline:
            raise AssertionError(f"/readyz still {status} {body} after {bound} s")
        time.sleep(0.25)


def _outage_and_recovery(pg: PrivatePostgres, kind: str, **env: str) -> None:
    url = pg.create_database(f"outage_{kind}")
    migrate(url)
    server = AppServer(kind, workers=2, DATABASE_URL=url, **env)
    with server:
        token = sign_up_on(server, "outage")
        game_id = _new_game_and_tap(server, token)
        ready = _wait_ready(server)
        assert ready["status"] == "ready"
        assert ready["checks"]["database"]["ok"] is True

        pg.stop("immediate")
        try:
            # gunicorn twice round: the first request of a worker finds its connection dead,
            # the next ones fail to connect; both are 503, and neither hangs. With the pool,
            # each request waits DB_POOL_TIMEOUT for a connection that never comes: once.
            for _ in range(1 if env.get("DB_POOL") == "1" else 2):
                for method, path, body, tok in _requests(game_id, token):
                    status, headers, answer, taken = server.request(
                        method, path, body, token=tok, timeout=30
                    )
                    what = f"{kind} {method} {path}"
                    assert taken < NOTHING_HANGS_S, (what, taken)
                    _assert_unavailable(status, headers, answer, what)

            status, _, body, taken = server.request("GET", "/readyz", timeout=30)
            assert taken < NOTHING_HANGS_S
            assert status == 503, body
            assert body["status"] == "unavailable"
            assert body["checks"]["database"]["ok"] is False
            assert body["checks"]["database"]["error"]
            assert body["checks"]["redis"]["ok"] is None  # not configured here

            status, _, body, taken = server.request("GET", "/healthz", timeout=30)
            assert (status, body) == (200, {"status": "ok"})
            assert taken < NOTHING_HANGS_S
        finally:
            pg.start()

        # Back: the same processes, no restart. Once /readyz says so, every request works
        # at once (each worker replaces its dead connection; the pool drops its dead ones).
        _wait_ready(server)
        for _ in range(2):
            status, _, body, _ = server.request("GET", "/api/me", token=token)
            assert status == 200, body
            status, _, body, _ = server.request("GET", f"/api/games/{game_id}")
            assert status == 200, body
            status, _, body, _ = server.request("GET", "/api/leaderboards/beginner/times")
            assert status == 200, body
        _new_game_and_tap(server, token)
        assert server.proc is not None and server.proc.poll() is None, server.output()
        log = server.output()
        assert "Traceback" not in log, log  # an outage is logged as a warning, not a crash

    done = manage("verify_games", DATABASE_URL=url)
    assert done.returncode == 0, done.stdout + done.stderr


def test_gunicorn_answers_503_while_postgres_is_down_and_recovers(
    private_pg: PrivatePostgres,
) -> None:
    _outage_and_recovery(private_pg, "gunicorn")


def test_uvicorn_with_the_pool_answers_503_while_postgres_is_down_and_recovers(
    private_pg: PrivatePostgres,
) -> None:
    _outage_and_recovery(private_pg, "uvicorn", DB_POOL="1")
