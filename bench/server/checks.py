"""Does a candidate server work for the product? Run against a live server before it is timed.

Each check returns (name, ok, detail). What they cover:

* `health`: GET /healthz 200 JSON.
* `page`: GET / 200 HTML with a csrftoken cookie (ensure_csrf_cookie).
* `static`: a WhiteNoise static file, byte for byte the file on disk.
* `session_csrf`: register, sign in with a session (POST /api/auth/session); a session POST
  without the CSRF header is 403 `csrf_failed`, with it 201.
* `socket_move`: a socket opened with the session cookie and the site's Origin gets `state`;
  a reveal sent over HTTP reaches it as `move` seq 1 (the same process, in-memory layer).
* `body_limit`: a 100 KiB body is 413 `payload_too_large`.
* `race_clock`: a race started over HTTP leaves its 3 s countdown and runs without any further
  request: the race clock thread is running in the server (lifespan, or first request).
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import websockets

from bench.harness.clients import HOST, Api
from bench.harness.servers import ROOT

STATIC = "frontend/static/frontend"

Check = tuple[str, bool, str]


def _code(body: Any) -> Any:
    """The error code of an API error body."""
    return (body or {}).get("error", {}).get("code")


def static_file() -> Path:
    files = sorted(p for p in (ROOT / STATIC).rglob("*.js") if p.is_file())
    return files[0]


def run_checks(port: int, tag: str) -> list[Check]:
    out: list[Check] = []
    client = Api(port, cookies=True, timeout=20)

    reply = client.request("GET", "/healthz")
    out.append(
        ("health", reply.status == 200 and reply.json() == {"status": "ok"}, f"{reply.status}")
    )

    reply = client.request("GET", "/")
    kind = reply.headers.get("content-type", "")
    ok = reply.status == 200 and "text/html" in kind and "csrftoken" in (client.cookies or {})
    out.append(("page", ok, f"{reply.status} {kind}"))

    path = static_file()
    url = "/static/" + str(path.relative_to(ROOT / "frontend/static"))
    reply = client.request("GET", url)
    out.append(
        ("static", reply.status == 200 and reply.raw == path.read_bytes(), f"{reply.status} {url}")
    )

    name, password = f"chk{tag}", "a long secret 1"
    status = client.request(
        "POST", "/api/auth/register", {"username": name, "password": password}
    ).status
    s2 = client.request(
        "POST", "/api/auth/session", {"username": name, "password": password}
    ).status
    signed_in = status == 201 and s2 == 200 and "sessionid" in (client.cookies or {})
    refused = client.request("POST", "/api/games", {"level": "beginner"})
    created = client.request("POST", "/api/games", {"level": "beginner"}, headers=client.csrf())
    game = created.json() or {}
    code = _code(refused.json())
    ok = signed_in and refused.status == 403 and code == "csrf_failed" and created.status == 201
    detail = f"register {status}, session {s2}, no csrf {refused.status} {code}, with csrf {created.status}"
    out.append(("session_csrf", ok, detail))

    if created.status == 201:
        out.append(socket_move(client, game["id"]))
    else:
        out.append(("socket_move", False, "no game"))

    reply = client.request("POST", "/api/auth/register", b'{"a": "' + b"x" * 100_000 + b'"}')
    code = _code(reply.json())
    out.append(
        (
            "body_limit",
            reply.status == 413 and code == "payload_too_large",
            f"{reply.status} {code}",
        )
    )

    out.append(race_clock(port, tag))
    return out


def socket_move(client: Api, game_id: str) -> Check:
    async def scenario() -> Check:
        cookie = "; ".join(f"{k}={v}" for k, v in (client.cookies or {}).items())
        async with websockets.connect(
            f"ws://{HOST}:{client.port}/ws/games/{game_id}",
            additional_headers={"Cookie": cookie},
            origin=websockets.Origin(f"http://{HOST}:{client.port}"),
        ) as ws:
            first = json.loads(await asyncio.wait_for(ws.recv(), 10))
            if first.get("type") != "state":
                return ("socket_move", False, f"first frame {first.get('type')}")
            sent = time.monotonic()
            reply = await asyncio.to_thread(
                client.request,
                "POST",
                f"/api/games/{game_id}/reveal",
                {"x": 4, "y": 4},
                headers=client.csrf(),
            )
            if reply.status != 200:
                return ("socket_move", False, f"reveal {reply.status}")
            try:
                move = json.loads(await asyncio.wait_for(ws.recv(), 5))
            except TimeoutError:
                return ("socket_move", False, "no move frame within 5 s")
            ms = (time.monotonic() - sent) * 1000
            ok = move.get("type") == "move" and move.get("seq") == 1
            return ("socket_move", ok, f"{move.get('type')} seq {move.get('seq')} {ms:.0f} ms")

    try:
        return asyncio.run(scenario())
    except Exception as exc:
        return ("socket_move", False, f"{type(exc).__name__}: {exc}")


def race_clock(port: int, tag: str) -> Check:
    """Two token players; a race created, joined and started over HTTP must be `running` within
    6 s of the start (3 s countdown) with nobody asking anything but GET."""
    tokens = []
    for n in range(2):
        c = Api(port, timeout=20)
        name, password = f"rc{n}{tag}", "a long secret 1"
        c.request("POST", "/api/auth/register", {"username": name, "password": password})
        reply = c.request("POST", "/api/auth/token", {"username": name, "password": password})
        if reply.status != 200:
            return ("race_clock", False, f"token {reply.status}")
        tokens.append(reply.json()["token"])
    c = Api(port, timeout=20)
    reply = c.request("POST", "/api/races", {"level": "beginner"}, token=tokens[0])
    if reply.status != 201:
        return ("race_clock", False, f"create {reply.status} {reply.raw[:200]!r}")
    race = reply.json()["id"]
    s_join = c.request("POST", f"/api/races/{race}/join", {}, token=tokens[1]).status
    started = c.request("POST", f"/api/races/{race}/start", {}, token=tokens[0])
    if s_join != 200 or started.status != 200:
        return ("race_clock", False, f"join {s_join} start {started.status} {started.raw[:200]!r}")
    since = time.monotonic()
    state = ""
    while time.monotonic() - since < 8:
        time.sleep(0.5)
        state = (c.request("GET", f"/api/races/{race}", token=tokens[0]).json() or {}).get(
            "state", ""
        )
        if state == "running":
            return ("race_clock", True, f"running after {time.monotonic() - since:.1f} s")
    return ("race_clock", False, f"still {state} after 8 s")
