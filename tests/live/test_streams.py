"""NDJSON streams (API.md, Token scopes and event streams; games.live.streams) against the
real ASGI server: a game's stream gives its state, then the very frames its socket sends, and
ends after `ended`; refusals are REST's statuses with the error body; an idle stream gets an
empty line every STREAM_KEEPALIVE_SECONDS."""

from __future__ import annotations

import json
import threading
import time
import uuid
from typing import Any

import httpx
import pytest

from tests.support import boards
from tests.support.personas import PASSWORD


def _player(base: str) -> tuple[httpx.Client, str]:
    name = f"s{uuid.uuid4().hex[:10]}"
    api = httpx.Client(base_url=base, timeout=10)
    assert (
        api.post("/api/auth/register", json={"username": name, "password": PASSWORD}).status_code
        == 201
    )
    token = api.post("/api/auth/token", json={"username": name, "password": PASSWORD}).json()[
        "token"
    ]
    api.headers["Authorization"] = f"Token {token}"
    return api, token


def _read_lines(
    base: str, path: str, out: list[bytes], headers: dict[str, str] | None = None
) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    with httpx.stream("GET", base + path, headers=headers or {}, timeout=30) as response:
        seen["status"] = response.status_code
        seen["type"] = response.headers.get("content-type")
        for line in response.iter_lines():
            out.append(line.encode())
    return seen


def test_a_game_stream_gives_the_state_then_each_move_and_ends_after_ended(live: str) -> None:
    api, _ = _player(live)
    game = api.post("/api/games", json={"level": "beginner"}).json()
    api.post(f"/api/games/{game['id']}/reveal", json={"x": 4, "y": 4})
    lines: list[bytes] = []
    seen: dict[str, Any] = {}
    reader = threading.Thread(
        target=lambda: seen.update(_read_lines(live, f"/api/stream/game/{game['id']}", lines))
    )
    reader.start()
    deadline = time.monotonic() + 10
    while not lines and time.monotonic() < deadline:
        time.sleep(0.05)
    for x, y in boards.safe_closed(game["id"]):
        if (
            api.post(f"/api/games/{game['id']}/reveal", json={"x": x, "y": y}).json()["game"][
                "state"
            ]
            == "won"
        ):
            break
    reader.join(timeout=20)
    assert not reader.is_alive(), "the stream did not end after `ended`"
    assert seen["status"] == 200 and seen["type"] == "application/x-ndjson"
    frames = [json.loads(line) for line in lines if line.strip()]
    assert frames[0]["type"] == "state" and frames[0]["seq"] == 1
    assert frames[0]["game"]["id"] == game["id"]
    moves = [f for f in frames if f["type"] == "move"]
    assert [f["seq"] for f in moves] == list(range(2, 2 + len(moves)))
    assert frames[-1]["type"] == "ended" and frames[-1]["game"]["state"] == "won"
    # The very frames of the socket: no closed cell before the end, the layout in `ended`.
    assert all("*" not in "".join(f.get("game", {}).get("board") or []) for f in frames[:-1])


def test_a_stream_opened_on_a_game_already_over_gives_its_state_then_ended_and_ends(
    live: str,
) -> None:
    """A reconnection after the last move (or a late watcher) finds the game over: the game's
    `ended` went out before the stream followed it, and the stream still ends after one."""
    api, _ = _player(live)
    won = api.post("/api/games", json={"level": "beginner"}).json()
    api.post(f"/api/games/{won['id']}/reveal", json={"x": 4, "y": 4})
    for x, y in boards.safe_closed(won["id"]):
        moved = api.post(f"/api/games/{won['id']}/reveal", json={"x": x, "y": y}).json()
        if moved["game"]["state"] == "won":
            break
    lost = api.post("/api/games", json={"level": "beginner"}).json()
    api.post(f"/api/games/{lost['id']}/reveal", json={"x": 4, "y": 4})
    assert api.post(f"/api/games/{lost['id']}/resign").status_code == 200
    for game, state, headers in (
        (won, "won", dict(api.headers)),  # its player
        (lost, "lost", {}),  # anyone who may watch
    ):
        lines: list[bytes] = []
        seen: dict[str, Any] = {}
        reader = threading.Thread(
            target=lambda g=game, h=headers, out=lines, got=seen: got.update(
                _read_lines(live, f"/api/stream/game/{g['id']}", out, h)
            ),
            daemon=True,  # a stream that never ends must not hold the test run
        )
        reader.start()
        reader.join(timeout=20)
        assert not reader.is_alive(), "the stream of a game already over did not end"
        frames = [json.loads(line) for line in lines if line.strip()]
        assert seen["status"] == 200
        assert [f["type"] for f in frames] == ["state", "ended"]
        last_seq = api.get(f"/api/games/{game['id']}").json()["seq"]
        assert frames[0]["seq"] == frames[1]["seq"] == last_seq > 1
        assert frames[1]["game"] == frames[0]["game"] and frames[1]["game"]["state"] == state


def test_refusals_are_the_rest_statuses_with_the_error_body(live: str) -> None:
    unknown = httpx.get(f"{live}/api/stream/game/{uuid.uuid4()}", timeout=10)
    assert unknown.status_code == 404 and unknown.json()["error"]["code"] == "not_found"
    malformed = httpx.get(f"{live}/api/stream/game/not-a-uuid", timeout=10)
    assert malformed.status_code == 404
    bad_token = httpx.get(
        f"{live}/api/stream/game/{uuid.uuid4()}",
        headers={"Authorization": "Token nope"},
        timeout=10,
    )
    assert bad_token.status_code == 401
    assert bad_token.json()["error"]["code"] == "authentication_failed"
    posted = httpx.post(f"{live}/api/stream/event", timeout=10)
    assert posted.status_code == 405 and posted.json()["error"]["code"] == "method_not_allowed"
    assert posted.headers["allow"] == "GET, HEAD"
    other = httpx.get(f"{live}/api/stream/nothing", timeout=10)
    assert other.status_code == 404 and other.json()["error"]["code"] == "not_found"
    api, _ = _player(live)
    game = api.post("/api/games", json={"level": "beginner"}).json()
    foreign = httpx.get(
        f"{live}/api/stream/game/{game['id']}",
        headers={"Origin": "https://evil.example"},
        timeout=10,
    )
    assert foreign.status_code == 403 and foreign.json()["error"]["code"] == "forbidden"


def test_an_idle_stream_gets_keep_alive_lines(live: str, settings: Any) -> None:
    settings.STREAM_KEEPALIVE_SECONDS = 0.2
    api, _ = _player(live)
    game = api.post("/api/games", json={"level": "beginner"}).json()
    api.post(f"/api/games/{game['id']}/reveal", json={"x": 4, "y": 4})
    with httpx.stream("GET", f"{live}/api/stream/game/{game['id']}", timeout=10) as response:
        lines = response.iter_lines()
        assert json.loads(next(lines))["type"] == "state"
        assert next(lines) == ""  # nothing happened: an empty line keeps the connection
        assert next(lines) == ""


@pytest.mark.parametrize("path", ["/api/stream/game/{id}"])
def test_a_stream_counts_against_the_socket_caps(live: str, settings: Any, path: str) -> None:
    settings.WS_MAX_SOCKETS_PER_ADDRESS = 1
    # An address of this test's own (behind one trusted proxy): the count of 127.0.0.1 may
    # still hold the slots of a server process an earlier test killed (until their TTL).
    settings.TRUSTED_PROXIES = 1
    address = {"X-Forwarded-For": f"10.{uuid.uuid4().int % 250}.{uuid.uuid4().int % 250}.7"}
    api, _ = _player(live)
    game = api.post("/api/games", json={"level": "beginner"}).json()
    api.post(f"/api/games/{game['id']}/reveal", json={"x": 4, "y": 4})
    url = live + path.format(id=game["id"])
    with httpx.stream("GET", url, headers=address, timeout=10) as first:
        assert first.status_code == 200
        second = httpx.get(url, headers=address, timeout=10)
        assert second.status_code == 429 and second.json()["error"]["code"] == "too_many_sockets"


def _events(base: str, token: str, out: list[dict[str, Any]], done: threading.Event) -> None:
    with httpx.stream(
        "GET", f"{base}/api/stream/event", headers={"Authorization": f"Token {token}"}, timeout=30
    ) as response:
        assert response.status_code == 200
        for line in response.iter_lines():
            if line.strip():
                out.append(json.loads(line))
    done.set()


def _wait_for(predicate: Any, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_the_event_stream_gives_games_in_progress_then_starts_and_ends(live: str) -> None:
    api, token = _player(live)
    waiting = api.post("/api/games", json={"level": "beginner"}).json()
    got: list[dict[str, Any]] = []
    ended = threading.Event()
    threading.Thread(target=_events, args=(live, token, got, ended), daemon=True).start()
    _wait_for(lambda: got)
    assert got[0] == {"type": "game_start", "game": got[0]["game"]}
    assert got[0]["game"]["id"] == waiting["id"]
    other = api.post("/api/games", json={"level": "intermediate"}).json()
    api.post(f"/api/games/{other['id']}/reveal", json={"x": 0, "y": 0})
    api.post(f"/api/games/{other['id']}/resign")
    _wait_for(lambda: any(e["type"] == "game_end" for e in got))
    kinds = [(e["type"], e["game"]["id"]) for e in got]
    assert kinds == [
        ("game_start", waiting["id"]),
        ("game_start", other["id"]),
        ("game_end", other["id"]),
    ]
    assert got[-1]["game"]["state"] == "lost" and got[-1]["game"]["end_reason"] == "resigned"
    # Nothing of a closed cell: a game_start of a running game shows no mine.
    assert "*" not in "".join(got[1]["game"]["board"] or [])
    # A second stream of the account ends the first.
    second: list[dict[str, Any]] = []
    second_done = threading.Event()
    threading.Thread(target=_events, args=(live, token, second, second_done), daemon=True).start()
    assert ended.wait(10), "the first stream is still open"
    _wait_for(lambda: second)
    assert second[0]["game"]["id"] == waiting["id"]


def test_the_event_stream_needs_a_sign_in_and_is_no_socket(live: str) -> None:
    anonymous = httpx.get(f"{live}/api/stream/event", timeout=10)
    assert anonymous.status_code == 401
    assert anonymous.json()["error"]["code"] == "not_authenticated"


@pytest.mark.django_db
def test_the_streams_are_in_the_schema(anon_api: Any) -> None:
    schema = anon_api.get("/api/schema", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    for path in ("/api/stream/game/{game_id}", "/api/stream/event"):
        operation = schema["paths"][path]["get"]
        assert "application/x-ndjson" in operation["responses"]["200"]["content"]
        assert operation["responses"]["404"]["content"]["application/json"]
