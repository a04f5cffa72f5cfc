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
import http.client
import json
import time
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any

import websockets

ROOT = Path(__file__).resolve().parents[2]
HOST = "127.0.0.1"
STATIC = "frontend/static/frontend"

Check = tuple[str, bool, str]


class Client:
    """HTTP/1.1 with a cookie jar, one connection per request (as a new browser tab)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.cookies: dict[str, str] = {}

    def request(
        self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
    ) -> tuple[int, dict[str, str], bytes]:
        conn = http.client.HTTPConnection(HOST, self.port, timeout=20)
        sent = {"Content-Type": "application/json", **(headers or {})}
        if self.cookies:
            sent["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        data = body if isinstance(body, bytes) or body is None else json.dumps(body).encode()
        conn.request(method, path, body=data, headers=sent)
        answer = conn.getresponse()
        raw = answer.read()
        for value in answer.headers.get_all("Set-Cookie") or []:
            jar: SimpleCookie = SimpleCookie()
            jar.load(value)
            for name, morsel in jar.items():
                self.cookies[name] = morsel.value
        conn.close()
        return answer.status, {k.lower(): v for k, v in answer.getheaders()}, raw

    def csrf(self) -> dict[str, str]:
        return {"X-CSRFToken": self.cookies.get("csrftoken", "")}


def _json(raw: bytes) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        return None


def static_file() -> Path:
    files = sorted(p for p in (ROOT / STATIC).rglob("*.js") if p.is_file())
    return files[0]


def run_checks(port: int, tag: str) -> list[Check]:
    out: list[Check] = []
    client = Client(port)

    status, headers, raw = client.request("GET", "/healthz")
    out.append(("health", status == 200 and _json(raw) == {"status": "ok"}, f"{status}"))

    status, headers, raw = client.request("GET", "/")
    ok = (
        status == 200
        and "text/html" in headers.get("content-type", "")
        and "csrftoken" in (client.cookies)
    )
    out.append(("page", ok, f"{status} {headers.get('content-type', '')}"))

    path = static_file()
    url = "/static/" + str(path.relative_to(ROOT / "frontend/static"))
    status, headers, raw = client.request("GET", url)
    out.append(("static", status == 200 and raw == path.read_bytes(), f"{status} {url}"))

    name, password = f"chk{tag}", "a long secret 1"
    status, _, raw = client.request(
        "POST", "/api/auth/register", {"username": name, "password": password}
    )
    s2, _, _ = client.request("POST", "/api/auth/session", {"username": name, "password": password})
    signed_in = status == 201 and s2 == 200 and "sessionid" in client.cookies
    refused, _, raw_refused = client.request("POST", "/api/games", {"level": "beginner"})
    code = (_json(raw_refused) or {}).get("error", {}).get("code")
    created, _, raw_game = client.request(
        "POST", "/api/games", {"level": "beginner"}, client.csrf()
    )
    game = _json(raw_game) or {}
    ok = signed_in and refused == 403 and code == "csrf_failed" and created == 201
    out.append(
        (
            "session_csrf",
            ok,
            f"register {status}, session {s2}, no csrf {refused} {code}, with csrf {created}",
        )
    )

    if created == 201:
        out.append(socket_move(client, game["id"]))
    else:
        out.append(("socket_move", False, "no game"))

    status, _, raw = client.request(
        "POST", "/api/auth/register", b'{"a": "' + b"x" * 100_000 + b'"}'
    )
    code = (_json(raw) or {}).get("error", {}).get("code")
    out.append(("body_limit", status == 413 and code == "payload_too_large", f"{status} {code}"))

    out.append(race_clock(port, tag))
    return out


def socket_move(client: Client, game_id: str) -> Check:
    async def scenario() -> Check:
        cookie = "; ".join(f"{k}={v}" for k, v in client.cookies.items())
        async with websockets.connect(
            f"ws://{HOST}:{client.port}/ws/games/{game_id}",
            additional_headers={"Cookie": cookie},
            origin=websockets.Origin(f"http://{HOST}:{client.port}"),
        ) as ws:
            first = json.loads(await asyncio.wait_for(ws.recv(), 10))
            if first.get("type") != "state":
                return ("socket_move", False, f"first frame {first.get('type')}")
            sent = time.monotonic()
            status, _, _ = await asyncio.to_thread(
                client.request,
                "POST",
                f"/api/games/{game_id}/reveal",
                {"x": 4, "y": 4},
                client.csrf(),
            )
            if status != 200:
                return ("socket_move", False, f"reveal {status}")
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
        c = Client(port)
        name, password = f"rc{n}{tag}", "a long secret 1"
        c.request("POST", "/api/auth/register", {"username": name, "password": password})
        status, _, raw = c.request(
            "POST", "/api/auth/token", {"username": name, "password": password}
        )
        if status != 200:
            return ("race_clock", False, f"token {status}")
        tokens.append({"Authorization": f"Token {_json(raw)['token']}"})
    c = Client(port)
    status, _, raw = c.request("POST", "/api/races", {"level": "beginner"}, tokens[0])
    if status != 201:
        return ("race_clock", False, f"create {status} {raw[:200]!r}")
    race = _json(raw)["id"]
    s_join, _, _ = c.request("POST", f"/api/races/{race}/join", {}, tokens[1])
    s_start, _, raw = c.request("POST", f"/api/races/{race}/start", {}, tokens[0])
    if s_join != 200 or s_start != 200:
        return ("race_clock", False, f"join {s_join} start {s_start} {raw[:200]!r}")
    started = time.monotonic()
    state = ""
    while time.monotonic() - started < 8:
        time.sleep(0.5)
        _, _, raw = c.request("GET", f"/api/races/{race}", None, tokens[0])
        state = (_json(raw) or {}).get("state", "")
        if state == "running":
            return ("race_clock", True, f"running after {time.monotonic() - started:.1f} s")
    return ("race_clock", False, f"still {state} after 8 s")
