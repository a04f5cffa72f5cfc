"""A closed account holds nothing live (docs/RACES.md, Quick match; docs/ARENAS.md): closing
takes it out of the quick-match queue, its rooms, its running races and its arena pools
(games.arenas.services.leave_every_room), and the quick match and the arena pairing never
match an account that is no longer active, whether or not closing took it out first."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import User
from games.arenas.models import ArenaEntry
from games.play.models import Game
from games.races.models import Race, RaceQueueEntry, Racer
from tests.support.arenas import later, new_arena
from tests.support.personas import PASSWORD
from tests.support.races import racing, tick

pytestmark = pytest.mark.django_db


def _queue(api: APIClient) -> None:
    answer = api.post("/api/races/queue", {"level": "beginner"}, format="json")
    assert answer.status_code == 200, answer.json()
    assert answer.json()["state"] == "waiting"


def _close(api: APIClient) -> None:
    answer = api.post("/api/me/close", {"mode": "close", "password": PASSWORD}, format="json")
    assert answer.status_code == 202, answer.content


def test_a_closed_account_waiting_in_quick_match_is_never_matched(
    alice: User, alice_api: APIClient, bob: User, bob_api: APIClient, carol_api: APIClient
) -> None:
    _queue(alice_api)
    _queue(bob_api)
    _close(alice_api)
    # Long past the gather time: alice and bob would have been matched into a rated race.
    tick(timezone.now() + timedelta(seconds=10))
    assert not Race.objects.exists()
    assert not RaceQueueEntry.objects.filter(player=alice).exists()
    assert bob_api.get("/api/races/queue").json()["state"] == "waiting"
    # The next player to come is matched with bob alone.
    _queue(carol_api)
    tick(timezone.now() + timedelta(seconds=10))
    (race,) = Race.objects.all()
    assert set(Racer.objects.filter(race=race).values_list("player__username", flat=True)) == {
        "bob",
        "carol",
    }


def test_a_closed_account_in_an_arena_pool_is_not_paired(
    alice: User, alice_api: APIClient, bob_api: APIClient, carol_api: APIClient
) -> None:
    arena = new_arena(carol_api)
    for api in (alice_api, bob_api):
        assert api.post(f"/api/arenas/{arena['id']}/join").status_code == 200
    _close(alice_api)
    tick(later(0.2))
    assert not Race.objects.filter(arena_id=arena["id"]).exists()
    entry = ArenaEntry.objects.get(arena_id=arena["id"], player=alice)
    assert entry.active is False  # out of the pool; the row (and its points) stay


def _leave_every_room(player: User) -> int:
    from games.arenas.services import leave_every_room  # what closing an account calls

    left: int = leave_every_room(player=player)
    return left


def test_closing_leaves_the_quick_match_queue(alice: User, alice_api: APIClient) -> None:
    _queue(alice_api)
    assert _leave_every_room(alice) == 1
    assert not RaceQueueEntry.objects.filter(player=alice).exists()
    assert alice_api.get("/api/races/queue").status_code == 404


def test_closing_leaves_an_open_room_and_hands_it_over(
    alice: User, alice_api: APIClient, bob_api: APIClient
) -> None:
    room = alice_api.post("/api/races", {"level": "beginner"}, format="json").json()
    assert bob_api.post(f"/api/races/{room['id']}/join").status_code == 200
    for api in (alice_api, bob_api):
        api.post(f"/api/races/{room['id']}/ready", {}, format="json")  # a countdown
    assert _leave_every_room(alice) == 1
    after = APIClient().get(f"/api/races/{room['id']}").json()
    assert [r["player"] for r in after["racers"]] == ["bob"]
    assert after["host"] == "bob" and after["state"] == "open"  # the countdown stopped


def test_closing_leaves_a_running_race_as_left(
    alice: User, alice_api: APIClient, bob_api: APIClient
) -> None:
    race = racing(alice_api, [bob_api])
    game_id = next(r["game"] for r in race["racers"] if r["player"] == "alice")
    assert _leave_every_room(alice) == 1
    mine = Racer.objects.get(race_id=race["id"], player=alice)
    assert mine.state == "left" and mine.active is False
    assert Game.objects.get(pk=game_id).state == "lost"


def test_closing_leaves_every_arena_pool(
    alice: User, alice_api: APIClient, bob_api: APIClient, carol_api: APIClient
) -> None:
    arena = new_arena(bob_api, starts_at=(timezone.now() + timedelta(hours=1)).isoformat())
    assert alice_api.post(f"/api/arenas/{arena['id']}/join").status_code == 200
    assert _leave_every_room(alice) == 1
    assert ArenaEntry.objects.get(arena_id=arena["id"], player=alice).active is False
    answer: dict[str, Any] = APIClient().get(f"/api/arenas/{arena['id']}/standings").json()
    assert [(row["player"], row["active"]) for row in answer["results"]] == [("alice", False)]
    # Nothing left to leave: a second call changes nothing.
    assert _leave_every_room(alice) == 0
