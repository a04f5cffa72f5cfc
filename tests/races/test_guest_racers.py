"""Guests race, unrated (RULES.md: guests play, unranked), through the public
API as the race page does it: a visitor's browser session becomes a guest (POST
/api/auth/guest), which creates a race, is joined, gets ready, races and finishes without a
rating; beside two players the race stays rated for them alone."""

from __future__ import annotations

from typing import Any

from rest_framework.test import APIClient

from accounts.standings.models import RaceRating
from tests.support.boards import board_of, safe_cells
from tests.support.races import start_now, tick


def guest_client() -> tuple[APIClient, str]:
    """A browser-like client whose session is a new guest's, and the guest's name."""
    client = APIClient()
    answer = client.post("/api/auth/guest")
    assert answer.status_code == 201, answer.content
    return client, str(answer.json()["username"])


def clear(client: APIClient, game_id: str) -> None:
    for x, y in safe_cells(board_of(game_id)):
        answer = client.post(f"/api/games/{game_id}/reveal", {"x": x, "y": y}, format="json")
        assert answer.status_code == 200, answer.content
        if answer.json()["game"]["state"] == "won":
            return


def test_a_guest_creates_a_race_a_player_joins_and_the_race_is_not_rated(alice_api: Any) -> None:
    guest, name = guest_client()
    created = guest.post("/api/races", {"level": "beginner"}, format="json")
    assert created.status_code == 201, created.content
    race = created.json()
    assert race["host"] == name
    assert alice_api.post(f"/api/races/{race['id']}/join").status_code == 200
    for client in (guest, alice_api):
        assert client.post(f"/api/races/{race['id']}/ready", {}, format="json").status_code == 200
    start_now(race["id"])
    running = guest.get(f"/api/races/{race['id']}").json()
    assert running["state"] == "running"
    assert running["rated"] is False  # one player and a guest: nobody to rate against
    mine = next(r for r in running["racers"] if r["player"] == name)
    assert mine["player_kind"] == "guest"
    game = guest.get(f"/api/games/{mine['game']}").json()
    assert (game["ranked"], game["race"]) == (False, race["id"])
    clear(guest, mine["game"])
    assert alice_api.post(f"/api/races/{race['id']}/leave").status_code == 200
    tick()
    ended = guest.get(f"/api/races/{race['id']}").json()
    assert ended["state"] == "finished"
    places = {r["player"]: r for r in ended["racers"]}
    assert places[name]["place"] == 1 and places[name]["state"] == "won"
    assert all(r["rating_before"] is None and r["rating_after"] is None for r in ended["racers"])
    profile = guest.get(f"/api/users/{name}/races").json()
    assert profile["races"] == 1 and profile["wins"] == 1


def test_beside_two_players_a_guest_races_and_only_the_players_are_rated(
    alice_api: Any, bob_api: Any
) -> None:
    guest, name = guest_client()
    race = alice_api.post("/api/races", {"level": "beginner"}, format="json").json()
    for client in (bob_api, guest):
        assert client.post(f"/api/races/{race['id']}/join").status_code == 200
    for client in (alice_api, bob_api, guest):
        assert client.post(f"/api/races/{race['id']}/ready", {}, format="json").status_code == 200
    start_now(race["id"])
    running = alice_api.get(f"/api/races/{race['id']}").json()
    assert running["rated"] is True  # two players rate each other
    games = {r["player"]: r["game"] for r in running["racers"]}
    clear(guest, games[name])  # the guest wins the race
    clear(bob_api, games["bob"])
    x, y = safe_cells(board_of(games["alice"]))[0]  # alice takes part, then leaves
    assert (
        alice_api.post(
            f"/api/games/{games['alice']}/reveal", {"x": x, "y": y}, format="json"
        ).status_code
        == 200
    )
    assert alice_api.post(f"/api/races/{race['id']}/leave").status_code == 200
    tick()
    ended = {r["player"]: r for r in alice_api.get(f"/api/races/{race['id']}").json()["racers"]}
    assert ended[name]["place"] == 1
    assert ended[name]["rating_before"] is None and ended[name]["rating_after"] is None
    assert ended["bob"]["rating_after"] is not None and ended["alice"]["rating_after"] is not None
    # bob beat alice among the rated players, whatever the guest did.
    assert ended["bob"]["rating_after"] > ended["alice"]["rating_after"]
    assert not RaceRating.objects.filter(player__username=name, rated_races__gt=0).exists()


def test_a_guest_is_refused_by_quick_match_and_nothing_is_queued(alice_api: Any) -> None:
    from games.races.models import RaceQueueEntry

    guest, _ = guest_client()
    refused = guest.post("/api/races/queue", {"level": "beginner"}, format="json")
    assert refused.status_code == 409, refused.content
    assert refused.json()["error"]["code"] == "guest_account"
    assert not RaceQueueEntry.objects.exists()
    # A player queues as before (API.md, Races).
    waiting = alice_api.post("/api/races/queue", {"level": "beginner"}, format="json")
    assert waiting.status_code == 200 and waiting.json()["state"] == "waiting"
