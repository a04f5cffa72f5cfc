"""`make run`'s application (demineur_site.dev_server): HTTP through Django's WSGI handler in a
thread pool, WebSockets and the lifespan through demineur_site.asgi, in one uvicorn process
started as `make run` starts it, on SQLite and the in-memory channel layer (no Redis).

* the page, a static file, the API with a token, the session + CSRF rules;
* a move sent over HTTP reaches a socket watching the game (same process, in-memory layer);
* the race clock runs (the lifespan starts it): a started race leaves its countdown on its own;
* the body limit (413) and the WSGI environ built from the ASGI scope.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest
import websockets

from deploy.processes import ROOT, WS_OPTIONS, ServerProcess, free_port, server_env
from tests.support.handshake import compression_declined
from tests.support.personas import PASSWORD
from tests.support.template_db import copy_migrated_sqlite

APP = "demineur_site.dev_server:application"
# The options of the Makefile's `run:` recipe (TRUSTED_PROXIES unset).
MAKE_RUN_OPTIONS = ["--no-access-log", "--no-proxy-headers", *WS_OPTIONS]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    workdir = tmp_path_factory.mktemp("dev_server")
    # make run's environment: DEBUG, DB_POOL, the race clock's default (the test settings
    # turn it off in this process's environment).
    env = server_env(
        debug=True, SQLITE_PATH=str(workdir / "db.sqlite3"), DB_POOL="1", RACE_CLOCK="thread"
    )
    # `make run` migrates first: the run's migrated file is made by that same command.
    copy_migrated_sqlite(workdir / "db.sqlite3")
    port = free_port()
    proc = ServerProcess(
        "dev_server",
        [
            sys.executable,
            "-m",
            "uvicorn",
            APP,
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            *MAKE_RUN_OPTIONS,
        ],
        port=port,
        env=env,
        log_path=workdir / "server.log",
    )
    proc.start()
    try:
        proc.wait_answering("/healthz", 60)
        yield proc
    finally:
        proc.stop()


def call(
    port: int,
    method: str,
    path: str,
    body: Any = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, http.client.HTTPMessage, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    data = body if isinstance(body, bytes) or body is None else json.dumps(body).encode()
    conn.request(
        method, path, body=data, headers={"Content-Type": "application/json", **(headers or {})}
    )
    answer = conn.getresponse()
    raw = answer.read()
    conn.close()
    return answer.status, answer.headers, raw


def cookies_of(headers: http.client.HTTPMessage) -> dict[str, str]:
    out = {}
    for value in headers.get_all("Set-Cookie") or []:
        name, _, rest = value.partition("=")
        out[name] = rest.split(";", 1)[0]
    return out


def token_player(port: int, name: str) -> str:
    status, _, _ = call(
        port, "POST", "/api/auth/register", {"username": name, "password": PASSWORD}
    )
    assert status == 201
    status, _, raw = call(port, "POST", "/api/auth/token", {"username": name, "password": PASSWORD})
    assert status == 200
    return str(json.loads(raw)["token"])


def test_the_page_and_a_static_file(server: ServerProcess) -> None:
    status, headers, raw = call(server.port, "GET", "/")
    assert status == 200
    assert headers["Content-Type"].startswith("text/html")
    assert "csrftoken" in cookies_of(headers)
    assert b"<html" in raw.lower()
    static = ROOT / "frontend" / "static" / "frontend" / "js" / "api.js"
    status, headers, raw = call(server.port, "GET", "/static/frontend/js/api.js")
    assert status == 200
    assert raw == static.read_bytes()


def test_a_session_post_needs_the_csrf_token(server: ServerProcess) -> None:
    port = server.port
    status, headers, _ = call(port, "GET", "/")
    csrf = cookies_of(headers)["csrftoken"]
    call(port, "POST", "/api/auth/register", {"username": "sess", "password": PASSWORD})
    status, headers, _ = call(
        port, "POST", "/api/auth/session", {"username": "sess", "password": PASSWORD}
    )
    assert status == 200
    cookie = f"csrftoken={csrf}; sessionid={cookies_of(headers)['sessionid']}"
    status, _, raw = call(port, "POST", "/api/games", {"level": "beginner"}, {"Cookie": cookie})
    assert status == 403
    assert json.loads(raw)["error"]["code"] == "csrf_failed"
    status, _, raw = call(
        port,
        "POST",
        "/api/games",
        {"level": "beginner"},
        {"Cookie": cookie, "X-CSRFToken": csrf},
    )
    assert status == 201


def test_a_move_over_http_reaches_a_socket_of_the_same_process(server: ServerProcess) -> None:
    port = server.port
    token = token_player(port, "mover")
    auth = {"Authorization": f"Token {token}"}
    status, _, raw = call(port, "POST", "/api/games", {"level": "beginner"}, auth)
    assert status == 201
    game = json.loads(raw)["id"]

    async def scenario() -> tuple[dict[str, Any], dict[str, Any]]:
        async with websockets.connect(f"ws://127.0.0.1:{port}/ws/games/{game}") as ws:
            assert compression_declined(ws)
            first = json.loads(await asyncio.wait_for(ws.recv(), 10))
            assert first["type"] == "state"
            status, _, raw = await asyncio.to_thread(
                call, port, "POST", f"/api/games/{game}/reveal", {"x": 4, "y": 4}, auth
            )
            assert status == 200
            move = json.loads(await asyncio.wait_for(ws.recv(), 5))
            return json.loads(raw), move

    answer, move = asyncio.run(scenario())
    assert (move["type"], move["seq"]) == ("move", 1)
    assert move["changes"] == answer["changes"]


def test_make_run_passes_the_socket_options_every_server_gets() -> None:
    makefile = (ROOT / "Makefile").read_text()
    run = next(line for line in makefile.splitlines() if "uvicorn demineur_site." in line)
    # --no-proxy-headers stands in a shell test (TRUSTED_PROXIES unset), hence `in run`.
    for option in MAKE_RUN_OPTIONS:
        assert option in run, option
    assert " ".join(WS_OPTIONS) in run


def test_the_race_clock_runs_in_the_server(server: ServerProcess) -> None:
    """Started by the ASGI lifespan (uvicorn reports its startup complete), else by the first
    request: a started race leaves its countdown with no request meanwhile."""
    port = server.port
    first, second = (
        {"Authorization": f"Token {token_player(port, name)}"} for name in ("racer1", "racer2")
    )
    status, _, raw = call(port, "POST", "/api/races", {"level": "beginner"}, first)
    assert status == 201
    race = json.loads(raw)["id"]
    assert call(port, "POST", f"/api/races/{race}/join", {}, second)[0] == 200
    assert call(port, "POST", f"/api/races/{race}/start", {}, first)[0] == 200
    time.sleep(4.5)  # the 3 s countdown and a few ticks, with no request meanwhile
    status, _, raw = call(port, "GET", f"/api/races/{race}", None, first)
    assert json.loads(raw)["state"] == "running"
    assert "Application startup complete" in server.output()


def test_a_body_over_the_limit_is_refused(server: ServerProcess) -> None:
    body = b'{"username": "' + b"x" * 100_000 + b'"}'
    status, _, raw = call(server.port, "POST", "/api/auth/register", body)
    assert status == 413
    assert json.loads(raw)["error"]["code"] == "payload_too_large"


def test_the_wsgi_environ_of_an_asgi_scope() -> None:
    from demineur_site.dev_server import wsgi_environ

    scope = {
        "type": "http",
        "method": "POST",
        "path": "/api/users/zoé",
        "query_string": b"a=1&b=%C3%A9",
        "http_version": "1.1",
        "scheme": "http",
        "server": ("127.0.0.1", 8000),
        "client": ("10.0.0.7", 51234),
        "headers": [
            (b"host", b"127.0.0.1:8000"),
            (b"content-type", b"application/json"),
            (b"content-length", b"2"),
            (b"cookie", b"a=1"),
            (b"cookie", b"b=2"),
            (b"x-forwarded-for", b"1.2.3.4"),
            (b"x_forwarded_for", b"6.6.6.6"),
        ],
    }
    environ = wsgi_environ(scope, b"{}")
    assert environ["PATH_INFO"] == "/api/users/zoé".encode().decode("latin-1")
    assert environ["QUERY_STRING"] == "a=1&b=%C3%A9"
    assert environ["REMOTE_ADDR"] == "10.0.0.7"
    assert (environ["SERVER_NAME"], environ["SERVER_PORT"]) == ("127.0.0.1", "8000")
    assert (environ["CONTENT_TYPE"], environ["CONTENT_LENGTH"]) == ("application/json", "2")
    assert environ["HTTP_COOKIE"] == "a=1; b=2"
    # The underscore twin is dropped, as gunicorn drops it: it cannot pose as the real header.
    assert environ["HTTP_X_FORWARDED_FOR"] == "1.2.3.4"
    assert environ["wsgi.input"].read() == b"{}"
