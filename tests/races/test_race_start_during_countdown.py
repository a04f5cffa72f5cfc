"""API.md, Races: an open race starts by itself once every racer, two or more, is ready, and
the host's `start` during that countdown is an accepted no-op (200, the Race). A client that
follows the Races table to the letter (create, join, ready, ready, start) must get a race."""

from __future__ import annotations

from typing import Any

from games.races.models import Race
from tests.support.boards import board_of, safe_cells
from tests.support.races import start_now


def test_create_join_ready_ready_start_is_200_and_the_race_runs(
    alice_api: Any, bob_api: Any
) -> None:
    race = alice_api.post("/api/races", {"level": "beginner"}, format="json").json()
    path = f"/api/races/{race['id']}"
    assert bob_api.post(f"{path}/join").status_code == 200
    assert alice_api.post(f"{path}/ready", {}, format="json").status_code == 200
    counting = bob_api.post(f"{path}/ready", {}, format="json").json()
    assert counting["state"] == "countdown"
    before = Race.objects.get(pk=race["id"])
    started = alice_api.post(f"{path}/start")
    assert started.status_code == 200, started.json()
    body = started.json()
    assert body["state"] == "countdown" and body["starts_at"] == counting["starts_at"]
    after = Race.objects.get(pk=race["id"])
    # A no-op: the countdown is not restarted and no event is numbered.
    assert (after.starts_at, after.seq) == (before.starts_at, before.seq)
    start_now(race["id"])
    running = alice_api.get(path).json()
    assert running["state"] == "running"
    game = running["racers"][0]["game"]
    x, y = safe_cells(board_of(game))[0]
    move = alice_api.post(f"/api/games/{game}/reveal", {"x": x, "y": y}, format="json")
    assert move.status_code == 200


def test_start_during_the_countdown_is_still_the_hosts_alone(alice_api: Any, bob_api: Any) -> None:
    race = alice_api.post("/api/races", {"level": "beginner"}, format="json").json()
    path = f"/api/races/{race['id']}"
    bob_api.post(f"{path}/join")
    for api in (alice_api, bob_api):
        api.post(f"{path}/ready", {}, format="json")
    not_host = bob_api.post(f"{path}/start")
    assert (not_host.status_code, not_host.json()["error"]["code"]) == (403, "not_race_host")


def test_start_on_a_running_race_is_still_refused(alice_api: Any, bob_api: Any) -> None:
    race = alice_api.post("/api/races", {"level": "beginner"}, format="json").json()
    path = f"/api/races/{race['id']}"
    bob_api.post(f"{path}/join")
    alice_api.post(f"{path}/start")
    start_now(race["id"])
    late = alice_api.post(f"{path}/start")
    assert (late.status_code, late.json()["error"]["code"]) == (409, "race_closed")
