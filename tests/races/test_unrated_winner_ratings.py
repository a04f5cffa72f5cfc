"""A racer with no rival who took part keeps their rating (RULES.md, Races): a rated race whose
only rival left without taking part shows the winner's rating before and after, equal, in the
Race (REST), in the race socket's `ended` and in the player's race history; the rating does
not move and the race is not one of their rated races. The rival who never took part loses
as before, and the recompute command replays the same."""

from __future__ import annotations

from io import StringIO
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.core.management import call_command
from rest_framework.test import APIClient

from accounts.models import User
from accounts.standings.models import RaceRating
from games.races.models import Racer
from tests.support.boards import board_of, safe_cells
from tests.support.personas import client_for
from tests.support.races import racing, tick
from tests.support.sockets import TIMEOUT, watching_race


def _clear(api: APIClient, game_id: str) -> None:
    for x, y in safe_cells(board_of(game_id)):
        answer = api.post(f"/api/games/{game_id}/reveal", {"x": x, "y": y}, format="json")
        if answer.json()["game"]["state"] == "won":
            return


def _game(race: dict[str, Any], name: str) -> str:
    return str(next(r["game"] for r in race["racers"] if r["player"] == name))


def _racers(race: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["player"]: r for r in race["racers"]}


def _rival_leaves_and_alice_wins(alice: User, bob: User) -> str:
    """alice (rated 1600 before) and bob race; bob leaves at once, alice clears her board."""
    RaceRating.objects.create(
        player=alice, level="beginner", pool="human", mu=1600.0, sigma=200.0, rating=1600
    )
    alice_api, bob_api = client_for(alice), client_for(bob)
    race = racing(alice_api, [bob_api])
    assert race["rated"] is True
    assert bob_api.post(f"/api/races/{race['id']}/leave").status_code == 200
    _clear(alice_api, _game(race, "alice"))
    tick()
    return str(race["id"])


@pytest.mark.django_db
def test_the_winner_whose_only_rival_left_keeps_a_rating_shown_before_and_after(
    alice: User, bob: User
) -> None:
    race_id = _rival_leaves_and_alice_wins(alice, bob)
    ended = APIClient().get(f"/api/races/{race_id}").json()
    assert ended["state"] == "finished"
    racers = _racers(ended)
    assert racers["alice"]["place"] == 1 and racers["alice"]["state"] == "won"
    assert racers["alice"]["rating_before"] == racers["alice"]["rating_after"] == 1600
    # bob never took part: he loses against alice, as RULES.md says
    assert racers["bob"]["rating_after"] < racers["bob"]["rating_before"] == 1500
    row = RaceRating.objects.get(player=alice, level="beginner")
    assert (row.mu, row.sigma, row.rated_races, row.races, row.wins) == (1600.0, 200.0, 0, 1, 1)
    history = APIClient().get("/api/users/alice/races").json()["history"]
    assert (history[0]["rating_before"], history[0]["rating_after"]) == (1600, 1600)


@pytest.mark.django_db
def test_the_recompute_command_replays_a_kept_rating(
    alice_api: APIClient, bob_api: APIClient
) -> None:
    race = racing(alice_api, [bob_api])
    assert bob_api.post(f"/api/races/{race['id']}/leave").status_code == 200
    _clear(alice_api, _game(race, "alice"))
    tick()
    out = StringIO()
    call_command("recompute_race_ratings", "--check", stdout=out, stderr=StringIO())
    assert "1 races, 2 ratings, 0 differed" in out.getvalue()
    # A lost record of it is filled back in, equal before and after.
    Racer.objects.update(rating_before=None, rating_after=None)
    call_command("recompute_race_ratings", stdout=StringIO(), stderr=StringIO())
    kept = Racer.objects.get(race_id=race["id"], player__username="alice")
    assert kept.rating_before == kept.rating_after == 1500.0


@pytest.mark.django_db
def test_when_nobody_took_part_everyone_keeps_their_rating(
    alice: User, alice_api: APIClient, bob_api: APIClient
) -> None:
    race = racing(alice_api, [bob_api])
    for api in (bob_api, alice_api):
        assert api.post(f"/api/races/{race['id']}/leave").status_code == 200
    tick()
    racers = _racers(APIClient().get(f"/api/races/{race['id']}").json())
    for name in ("alice", "bob"):
        assert racers[name]["rating_before"] == racers[name]["rating_after"] == 1500
    assert not RaceRating.objects.filter(rated_races__gt=0).exists()
    assert APIClient().get("/api/leaderboards/beginner/races").json()["count"] == 0


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_thread_connections")
async def test_the_race_sockets_ended_shows_the_kept_rating(alice: User, bob: User) -> None:
    def room() -> dict[str, Any]:
        RaceRating.objects.create(
            player=alice, level="beginner", pool="human", mu=1600.0, sigma=200.0, rating=1600
        )
        alice_api, bob_api = client_for(alice), client_for(bob)
        return dict(racing(alice_api, [bob_api]))

    race = await database_sync_to_async(room)()
    spectator, _ = await watching_race(race["id"])

    def play() -> None:
        alice_api, bob_api = client_for(alice), client_for(bob)
        bob_api.post(f"/api/races/{race['id']}/leave")
        _clear(alice_api, _game(race, "alice"))
        tick()

    await database_sync_to_async(play)()
    frame = await spectator.receive_json_from(timeout=TIMEOUT)
    while frame["type"] != "ended":
        frame = await spectator.receive_json_from(timeout=TIMEOUT)
    await spectator.disconnect()
    alice_row = _racers(frame["race"])["alice"]
    assert alice_row["rating_before"] == alice_row["rating_after"] == 1600
