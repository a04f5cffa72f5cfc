"""An account keeps at most a few rooms open (docs/RACES.md, Rooms): each waits up to two
hours in the list, so a room left behind with another racer in it and a new one opened, over
and over, would fill the list. Beyond the cap: 409 `too_many_rooms`, and nothing changes."""

from __future__ import annotations

from typing import Any

import pytest

from accounts.models import User
from games.races import rules as race_rules
from games.races.models import Race, Racer
from tests.support.personas import PASSWORD, client_for
from tests.support.races import start_now

pytestmark = pytest.mark.django_db


def _open_and_leave_behind(api: Any, sitter: Any) -> str:
    """`api` opens a room, `sitter` joins it, `api` leaves: the room stays open and listed."""
    answer = api.post("/api/races", {"level": "beginner"}, format="json")
    assert answer.status_code == 201, answer.json()
    race_id = str(answer.json()["id"])
    assert sitter.post(f"/api/races/{race_id}/join").status_code == 200
    assert api.post(f"/api/races/{race_id}/leave").status_code == 200
    return race_id


def test_an_account_keeps_at_most_a_few_rooms_open(alice: User) -> None:
    alice_api = client_for(alice)
    cap = race_rules.MAX_OPEN_ROOMS
    sitters = [
        client_for(User.objects.create_user(username=f"sitter{i}", password=PASSWORD))
        for i in range(cap + 1)
    ]
    rooms = [_open_and_leave_behind(alice_api, sitters[i]) for i in range(cap)]
    assert Race.objects.filter(state="open").count() == cap
    refused = alice_api.post("/api/races", {"level": "expert"}, format="json")
    assert refused.status_code == 409
    error = refused.json()["error"]
    assert error["code"] == "too_many_rooms" and error["details"] == {"max_open_rooms": cap}
    # Nothing changed: no room, alice in none.
    assert Race.objects.count() == cap
    assert not Racer.objects.filter(player=alice).exists()
    # Once one of her rooms starts, she may open another.
    assert sitters[cap].post(f"/api/races/{rooms[0]}/join").status_code == 200
    assert sitters[0].post(f"/api/races/{rooms[0]}/start").status_code == 200
    start_now(rooms[0])
    assert alice_api.post("/api/races", {"level": "expert"}, format="json").status_code == 201


def test_quick_match_and_other_accounts_are_not_held_by_the_cap(alice: User, bob: User) -> None:
    alice_api, bob_api = client_for(alice), client_for(bob)
    sitters = [
        client_for(User.objects.create_user(username=f"sitter{i}", password=PASSWORD))
        for i in range(race_rules.MAX_OPEN_ROOMS)
    ]
    for sitter in sitters:
        _open_and_leave_behind(alice_api, sitter)
    assert bob_api.post("/api/races", {"level": "beginner"}, format="json").status_code == 201
    assert bob_api.post(f"/api/races/{Race.objects.get(host=bob).id}/leave").status_code == 200
    answer = alice_api.post("/api/races/queue", {"level": "beginner"}, format="json")
    assert answer.status_code == 200
