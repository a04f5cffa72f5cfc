"""The race clock on a real server (uvicorn, the production settings, PostgreSQL): the
countdown ends and the race starts at `starts_at` with no request to wait for (it had started
before the request that finds it running was sent), and a race whose countdown ended while the
server was down starts on its first tick back."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from tests.support.personas import PASSWORD
from tests.support.services import NEEDS_PRIVATE_POSTGRES, AppServer, PrivatePostgres, migrate

pytestmark = NEEDS_PRIVATE_POSTGRES


@pytest.fixture(scope="module")
def database_url() -> Iterator[str]:
    with PrivatePostgres(fsync=False) as pg:
        url = pg.create_database("race_clock")
        migrate(url)
        yield url


def _at(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _token(server: AppServer, name: str) -> str:
    server.request("POST", "/api/auth/register", {"username": name, "password": PASSWORD})
    _, _, body, _ = server.request(
        "POST", "/api/auth/token", {"username": name, "password": PASSWORD}
    )
    return str(body["token"])


def _first_seen(server: AppServer, race_id: str, state: str) -> tuple[dict[str, Any], datetime]:
    """Read the race until it is in `state`: the race, and when the request that found it
    there was sent."""
    deadline = time.monotonic() + 60
    while True:
        asked = datetime.now(UTC)
        _, _, race, _ = server.request("GET", f"/api/races/{race_id}")
        if race["state"] == state:
            return dict(race), asked
        assert time.monotonic() < deadline, race
        time.sleep(0.05)


def _countdown(server: AppServer, host: str, guest: str) -> dict[str, Any]:
    _, _, race, _ = server.request("POST", "/api/races", {"level": "beginner"}, token=host)
    server.request("POST", f"/api/races/{race['id']}/join", token=guest)
    _, _, race, _ = server.request("POST", f"/api/races/{race['id']}/start", token=host)
    assert race["state"] == "countdown", race
    return dict(race)


def test_the_race_starts_on_time_without_a_request_and_after_a_restart(database_url: str) -> None:
    env = {"DATABASE_URL": database_url, "RACE_CLOCK": "thread"}
    with AppServer("uvicorn", workers=1, **env) as server:
        alice, bob = _token(server, "alice"), _token(server, "bob")
        race = _countdown(server, alice, bob)
        started, asked = _first_seen(server, race["id"], "running")
        # Only the clock starts a race: it had started before the request that saw it running.
        assert _at(race["starts_at"]) <= _at(started["started_at"]) <= asked, (started, asked)
        assert started["start_cell"] is not None
        assert {r["state"] for r in started["racers"]} == {"racing"}
        for token in (alice, bob):  # both leave: the race ends by itself too
            server.request("POST", f"/api/races/{race['id']}/leave", token=token)
        _first_seen(server, race["id"], "finished")
        second = _countdown(server, alice, bob)
    # The server is down when the countdown ends; it comes back after starts_at.
    while datetime.now(UTC) <= _at(second["starts_at"]):
        time.sleep(0.05)
    with AppServer("uvicorn", workers=1, **env) as server:
        race, _ = _first_seen(server, second["id"], "running")
        assert _at(race["started_at"]) >= _at(second["starts_at"])
        assert "Traceback" not in server.output(), server.output()
