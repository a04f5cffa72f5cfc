"""The race socket's `countdown` and `started` messages carry what API.md names at their top
level: `countdown` its `starts_at`, `started` its `started_at` and `start_cell`, beside the
whole Race in `race` (the page scripts read it there), for a room and a quick match alike."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.utils import timezone

from accounts.models import User
from games.races.models import Race
from tests.support.personas import client_for
from tests.support.races import open_room, start_now, tick
from tests.support.sockets import TIMEOUT, watching_race

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("close_thread_connections"),
]


async def _until(comm: Any, kind: str) -> dict[str, Any]:
    while True:
        frame: dict[str, Any] = await comm.receive_json_from(timeout=TIMEOUT)
        if frame["type"] == kind:
            return frame


def _check(countdown: dict[str, Any], started: dict[str, Any], race: Race) -> None:
    assert race.starts_at is not None and race.started_at is not None
    assert countdown["starts_at"] is not None
    assert countdown["starts_at"] == countdown["race"]["starts_at"]
    assert countdown["seq"] == countdown["race"]["seq"]
    assert started["started_at"] is not None
    assert started["started_at"] == started["race"]["started_at"]
    assert started["start_cell"] == {"x": race.start_x, "y": race.start_y}
    assert started["start_cell"] == started["race"]["start_cell"]
    # every racer's game is in the Race, as before
    assert all(r["game"] for r in started["race"]["racers"])


async def test_a_rooms_countdown_and_start_name_their_instants_and_cell(
    alice: User, bob: User
) -> None:
    room = await database_sync_to_async(open_room)(alice)
    spectator, _ = await watching_race(room["id"])

    def count_down() -> None:
        alice_api, bob_api = client_for(alice), client_for(bob)
        bob_api.post(f"/api/races/{room['id']}/join")
        for api in (alice_api, bob_api):
            api.post(f"/api/races/{room['id']}/ready", {}, format="json")

    await database_sync_to_async(count_down)()
    countdown = await _until(spectator, "countdown")
    await database_sync_to_async(start_now)(room["id"])
    started = await _until(spectator, "started")
    await spectator.disconnect()
    race = await database_sync_to_async(Race.objects.get)(pk=room["id"])
    _check(countdown, started, race)


async def test_a_quick_matchs_countdown_and_start_name_them_too(alice: User, bob: User) -> None:
    def queue() -> str:
        for user in (alice, bob):
            client_for(user).post("/api/races/queue", {"level": "beginner"}, format="json")
        tick(timezone.now() + timedelta(seconds=5))
        return str(Race.objects.get().pk)

    race_id = await database_sync_to_async(queue)()
    spectator, state = await watching_race(race_id)
    assert state["type"] == "state" and state["race"]["state"] == "countdown"
    await database_sync_to_async(start_now)(race_id)
    started = await _until(spectator, "started")
    await spectator.disconnect()
    race = await database_sync_to_async(Race.objects.get)(pk=race_id)
    assert started["started_at"] == started["race"]["started_at"] is not None
    assert started["start_cell"] == {"x": race.start_x, "y": race.start_y}
