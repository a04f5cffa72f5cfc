"""Rooms: joining, leaving, the host, and every refusal of API.md (Races)."""

from __future__ import annotations

from typing import Any

import pytest

from games.play.models import Game
from games.races.models import Race
from tests.support.races import racing


def _create(api: Any, **body: Any) -> dict[str, Any]:
    answer = api.post("/api/races", {"level": "beginner", **body}, format="json")
    assert answer.status_code == 201, answer.json()
    return dict(answer.json())


def _code(answer: Any) -> str:
    return str(answer.json()["error"]["code"])


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"level": "custom"},
        {"level": "nope"},
        {"level": 3},
        {"level": "beginner", "max_players": 1},
        {"level": "beginner", "max_players": 9},
        {"level": "beginner", "max_players": "4"},
    ],
)
def test_a_race_needs_one_of_the_six_levels_and_2_to_8_players(alice_api: Any, body: Any) -> None:
    answer = alice_api.post("/api/races", body, format="json")
    assert answer.status_code == 400
    assert Race.objects.count() == 0


def test_anonymous_visitors_may_read_races_but_not_act(anon_api: Any, alice_api: Any) -> None:
    race = _create(alice_api)
    assert anon_api.get(f"/api/races/{race['id']}").status_code == 200
    assert anon_api.get("/api/races?state=open").json()["count"] == 1
    for action in ("join", "leave", "ready", "start"):
        assert anon_api.post(f"/api/races/{race['id']}/{action}").status_code == 401
    assert anon_api.post("/api/races", {"level": "beginner"}, format="json").status_code == 401
    assert (
        anon_api.post("/api/races/queue", {"level": "beginner"}, format="json").status_code == 401
    )


def test_an_unknown_race_is_404(alice_api: Any) -> None:
    for path in ("/api/races/not-a-uuid", "/api/races/5b0c4e7e-9b8a-4a39-9d1f-0a4d6f1c2b3a"):
        assert alice_api.get(path).status_code == 404
        assert alice_api.post(f"{path}/join").status_code == 404


def test_a_race_is_found_by_its_code_typed_in_lower_case(alice_api: Any, bob_api: Any) -> None:
    race = _create(alice_api)
    found = bob_api.get(f"/api/races?code={race['code'].lower()}").json()
    assert [r["id"] for r in found["results"]] == [race["id"]]


def test_joining_a_full_race_is_409_race_full(alice_api: Any, bob_api: Any, carol_api: Any) -> None:
    race = _create(alice_api, max_players=2)
    assert bob_api.post(f"/api/races/{race['id']}/join").status_code == 200
    full = carol_api.post(f"/api/races/{race['id']}/join")
    assert (full.status_code, _code(full)) == (409, "race_full")


def test_joining_a_started_race_is_409_race_closed(
    alice_api: Any, bob_api: Any, carol_api: Any
) -> None:
    race = racing(alice_api, [bob_api])
    late = carol_api.post(f"/api/races/{race['id']}/join")
    assert (late.status_code, _code(late)) == (409, "race_closed")


def test_a_player_is_in_one_race_or_queue_at_a_time(alice_api: Any, bob_api: Any) -> None:
    mine = _create(alice_api)
    theirs = _create(bob_api)
    for answer in (
        alice_api.post("/api/races", {"level": "expert"}, format="json"),
        alice_api.post(f"/api/races/{theirs['id']}/join"),
        alice_api.post("/api/races/queue", {"level": "beginner"}, format="json"),
    ):
        assert (answer.status_code, _code(answer)) == (409, "already_racing")
    assert alice_api.post(f"/api/races/{mine['id']}/join").status_code == 200  # no-op
    assert alice_api.post(f"/api/races/{mine['id']}/leave").status_code == 200
    assert (
        alice_api.post("/api/races/queue", {"level": "beginner"}, format="json").status_code == 200
    )
    queued = alice_api.post(f"/api/races/{theirs['id']}/join")
    assert (queued.status_code, _code(queued)) == (409, "already_racing")
    assert alice_api.delete("/api/races/queue").status_code == 204
    assert alice_api.get("/api/races/queue").status_code == 404
    assert alice_api.post(f"/api/races/{theirs['id']}/join").status_code == 200


def test_only_the_host_starts_and_only_with_two_racers(alice_api: Any, bob_api: Any) -> None:
    race = _create(alice_api)
    alone = alice_api.post(f"/api/races/{race['id']}/start")
    assert (alone.status_code, _code(alone)) == (409, "race_needs_players")
    bob_api.post(f"/api/races/{race['id']}/join")
    not_host = bob_api.post(f"/api/races/{race['id']}/start")
    assert (not_host.status_code, _code(not_host)) == (403, "not_race_host")
    started = alice_api.post(f"/api/races/{race['id']}/start")
    assert started.status_code == 200
    assert started.json()["state"] == "countdown" and started.json()["starts_at"] is not None


def test_when_the_host_leaves_the_next_racer_to_have_joined_becomes_host(
    alice_api: Any, bob_api: Any, carol_api: Any
) -> None:
    race = _create(alice_api)
    bob_api.post(f"/api/races/{race['id']}/join")
    carol_api.post(f"/api/races/{race['id']}/join")
    after = alice_api.post(f"/api/races/{race['id']}/leave").json()
    assert after["host"] == "bob"
    assert [r["player"] for r in after["racers"]] == ["bob", "carol"]
    assert bob_api.post(f"/api/races/{race['id']}/leave").json()["host"] == "carol"
    last = carol_api.post(f"/api/races/{race['id']}/leave").json()
    assert last["state"] == "cancelled" and last["racers"] == []


def test_leaving_a_countdown_with_one_racer_left_reopens_the_room(
    alice_api: Any, bob_api: Any
) -> None:
    race = _create(alice_api)
    bob_api.post(f"/api/races/{race['id']}/join")
    alice_api.post(f"/api/races/{race['id']}/start")
    after = bob_api.post(f"/api/races/{race['id']}/leave").json()
    assert after["state"] == "open" and after["starts_at"] is None


def test_ready_is_for_the_racers_of_an_open_race(alice_api: Any, bob_api: Any) -> None:
    race = _create(alice_api)
    stranger = bob_api.post(f"/api/races/{race['id']}/ready", {}, format="json")
    assert (stranger.status_code, _code(stranger)) == (409, "not_in_race")
    bad = alice_api.post(f"/api/races/{race['id']}/ready", {"ready": "yes"}, format="json")
    assert bad.status_code == 400
    assert alice_api.post(f"/api/races/{race['id']}/ready", {}, format="json").json()["racers"][0][
        "ready"
    ]
    off = alice_api.post(f"/api/races/{race['id']}/ready", {"ready": False}, format="json")
    assert off.json()["racers"][0]["ready"] is False


def test_leaving_a_running_race_ends_the_game_as_lost_and_the_racer_is_left(
    alice_api: Any, bob_api: Any, carol_api: Any
) -> None:
    race = racing(alice_api, [bob_api, carol_api])
    after = bob_api.post(f"/api/races/{race['id']}/leave").json()
    bob = next(r for r in after["racers"] if r["player"] == "bob")
    assert bob["state"] == "left"
    game = Game.objects.get(pk=bob["game"])
    assert game.state == "lost"
    # Out of the race, bob may race again; the others race on.
    assert after["state"] == "running"
    assert bob_api.post("/api/races", {"level": "beginner"}, format="json").status_code == 201


def test_a_racer_who_disconnects_keeps_racing_and_finds_the_current_board(
    alice_api: Any, bob_api: Any
) -> None:
    race = racing(alice_api, [bob_api])
    game_id = race["racers"][0]["game"]
    before = alice_api.get(f"/api/games/{game_id}").json()
    # Coming back (a new page, another device): the same game, still playing, same board.
    again = alice_api.get(f"/api/races/{race['id']}").json()
    assert again["racers"][0]["game"] == game_id and again["racers"][0]["state"] == "racing"
    assert alice_api.get(f"/api/games/{game_id}").json()["board"] == before["board"]


def test_a_new_solo_game_of_the_same_level_does_not_abandon_the_race_game(
    alice_api: Any, bob_api: Any
) -> None:
    race = racing(alice_api, [bob_api])
    assert alice_api.post("/api/games", {"level": "beginner"}, format="json").status_code == 201
    assert Game.objects.get(pk=race["racers"][0]["game"]).state == "playing"


def test_a_room_not_started_within_two_hours_is_cancelled_and_frees_its_racers(
    alice_api: Any, bob_api: Any
) -> None:
    from datetime import timedelta

    from games.races.services import race_clock_tick

    race = _create(alice_api)
    bob_api.post(f"/api/races/{race['id']}/join")
    created = Race.objects.get(pk=race["id"]).created_at
    race_clock_tick(now=created + timedelta(hours=1, minutes=59))
    assert Race.objects.get(pk=race["id"]).state == "open"
    race_clock_tick(now=created + timedelta(hours=2))
    assert alice_api.get(f"/api/races/{race['id']}").json()["state"] == "cancelled"
    assert (
        alice_api.post("/api/races/queue", {"level": "beginner"}, format="json").status_code == 200
    )
