"""A race from the room to the results, through the public API (API.md, Races), with the race
clock driven by the test."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from accounts.standings.models import RaceRating
from games.play.models import Game
from games.races.models import Race
from tests.support.boards import board_of, mine_cell, safe_cells
from tests.support.races import established_ratings, racing, start_now, tick  # noqa: F401


def test_alice_creates_a_race_and_is_its_host_and_first_racer(alice_api: Any) -> None:
    answer = alice_api.post("/api/races", {"level": "beginner"}, format="json")
    assert answer.status_code == 201
    race = answer.json()
    assert race["state"] == "open"
    assert race["host"] == "alice"
    assert (race["width"], race["height"], race["mines"]) == (9, 9, 10)
    assert race["max_players"] == 8
    assert race["time_limit_ms"] == 300_000
    assert len(race["code"]) == 6
    assert [r["player"] for r in race["racers"]] == ["alice"]
    assert race["racers"][0]["safe_cells"] == 71
    assert race["start_cell"] is None and race["racers"][0]["game"] is None


def test_every_racer_ready_starts_a_3_second_countdown_by_itself(
    alice_api: Any, bob_api: Any
) -> None:
    race = alice_api.post("/api/races", {"level": "beginner"}, format="json").json()
    assert bob_api.post(f"/api/races/{race['id']}/join").status_code == 200
    alice_api.post(f"/api/races/{race['id']}/ready", {}, format="json")
    one_ready = bob_api.get(f"/api/races/{race['id']}").json()
    assert one_ready["state"] == "open"
    before = timezone.now()
    after_bob = bob_api.post(f"/api/races/{race['id']}/ready", {}, format="json").json()
    assert after_bob["state"] == "countdown"
    starts_at = Race.objects.get(pk=race["id"]).starts_at
    assert starts_at is not None
    assert timedelta(seconds=2.9) <= starts_at - before <= timedelta(seconds=3.5)


def test_the_start_opens_one_start_cell_on_one_layout_for_every_racer(
    alice_api: Any, bob_api: Any, carol_api: Any
) -> None:
    race = racing(alice_api, [bob_api, carol_api])
    cell = race["start_cell"]
    assert cell is not None
    games = [r["game"] for r in race["racers"]]
    assert len(set(games)) == 3
    boards = [board_of(g) for g in games]
    # One layout for all: the same mines (and so the same opening) on every copy.
    assert all(b == boards[0] for b in boards)
    first = alice_api.get(f"/api/games/{games[0]}/moves").json()["results"]
    assert first[0]["seq"] == 1 and first[0]["action"] == "reveal"
    assert (first[0]["x"], first[0]["y"]) == (cell["x"], cell["y"])
    alice_game = alice_api.get(f"/api/games/{games[0]}").json()
    assert alice_game["state"] == "playing"
    assert alice_game["race"] == race["id"]
    assert alice_game["unranked_reason"] == "race"
    assert alice_game["board"][cell["y"]][cell["x"]] == "0"  # the protected 3 x 3
    assert {r["state"] for r in race["racers"]} == {"racing"}
    assert race["racers"][0]["opened"] > 0


def test_a_race_game_cannot_be_paused(alice_api: Any, bob_api: Any) -> None:
    race = racing(alice_api, [bob_api])
    answer = alice_api.post(f"/api/games/{race['racers'][0]['game']}/pause")
    assert answer.status_code == 409
    assert answer.json()["error"]["code"] == "race_game"


def _clear(api: Any, game_id: str) -> dict[str, Any]:
    board = board_of(game_id)
    answer: dict[str, Any] = {}
    for x, y in safe_cells(board):
        reply = api.post(f"/api/games/{game_id}/reveal", {"x": x, "y": y}, format="json")
        if reply.status_code == 409 and reply.json()["error"]["code"] == "game_over":
            break
        assert reply.status_code == 200, reply.json()
        answer = reply.json()
    return answer


@pytest.mark.usefixtures("established_ratings")  # the board's order after one race
def test_places_follow_the_rules_and_ratings_move_when_the_race_ends(
    alice_api: Any, bob_api: Any, carol_api: Any
) -> None:
    race = racing(alice_api, [bob_api, carol_api])
    alice_game, bob_game, carol_game = (r["game"] for r in race["racers"])
    # carol opens a mine at once; alice clears the board; bob is still racing.
    x, y = mine_cell(board_of(carol_game))
    lost = carol_api.post(f"/api/games/{carol_game}/reveal", {"x": x, "y": y}, format="json")
    assert lost.json()["game"]["state"] == "lost"
    won = _clear(alice_api, alice_game)
    assert won["game"]["state"] == "won"
    middle = alice_api.get(f"/api/races/{race['id']}").json()
    assert middle["state"] == "running"
    assert [r["state"] for r in middle["racers"]] == ["won", "racing", "lost"]
    assert all(r["place"] is None for r in middle["racers"])
    # bob opens one more cell, then resigns: everyone is done, and the race ends without
    # waiting for its time limit.
    x, y = safe_cells(board_of(bob_game))[0]
    opened = bob_api.post(f"/api/games/{bob_game}/reveal", {"x": x, "y": y}, format="json")
    assert opened.status_code == 200
    assert bob_api.post(f"/api/games/{bob_game}/resign").status_code == 200
    tick()
    ended = alice_api.get(f"/api/races/{race['id']}").json()
    assert ended["state"] == "finished"
    by_player = {r["player"]: r for r in ended["racers"]}
    assert by_player["alice"]["place"] == 1
    # bob opened more safe cells than carol (who opened only the start).
    assert by_player["bob"]["place"] == 2 and by_player["carol"]["place"] == 3
    assert ended["rated"] is True
    assert by_player["alice"]["rating_before"] == 1500
    assert by_player["alice"]["rating_after"] > 1500 > by_player["carol"]["rating_after"]
    rating = RaceRating.objects.get(player__username="alice", level="beginner")
    assert (rating.races, rating.wins, rating.podiums, rating.rated_races) == (1, 1, 1, 1)
    board = alice_api.get("/api/leaderboards/beginner/races").json()
    assert [row["player"] for row in board["results"]] == ["alice", "bob", "carol"]
    assert board["results"][0]["rating"] == by_player["alice"]["rating_after"]


def test_the_time_limit_ends_the_race_and_every_racer_still_racing_loses(
    alice_api: Any, bob_api: Any
) -> None:
    race = racing(alice_api, [bob_api])
    started = Race.objects.get(pk=race["id"]).started_at
    assert started is not None
    tick(started + timedelta(milliseconds=299_999))
    assert Race.objects.get(pk=race["id"]).state == "running"
    tick(started + timedelta(milliseconds=300_000))
    ended = alice_api.get(f"/api/races/{race['id']}").json()
    assert ended["state"] == "finished"
    assert {r["state"] for r in ended["racers"]} == {"lost"}
    assert {r["elapsed_ms"] for r in ended["racers"]} == {300_000}
    game = Game.objects.get(pk=race["racers"][0]["game"])
    # API.md's end reasons: the server ended it (`abandoned`), at the limit.
    assert (game.state, game.end_reason, game.elapsed_ms) == ("lost", "abandoned", 300_000)


def test_quick_match_puts_two_players_queued_for_one_level_in_one_race(
    alice_api: Any, bob_api: Any
) -> None:
    waiting = alice_api.post("/api/races/queue", {"level": "beginner"}, format="json")
    assert waiting.status_code == 200
    assert waiting.json()["state"] == "waiting"
    assert (
        bob_api.post("/api/races/queue", {"level": "beginner"}, format="json").json()["state"]
        == "waiting"
    )
    tick(timezone.now() + timedelta(seconds=4))
    matched = alice_api.get("/api/races/queue").json()
    assert matched["state"] == "matched"
    race = matched["race"]
    assert race["state"] == "countdown" and race["quick"] is True
    assert sorted(r["player"] for r in race["racers"]) == ["alice", "bob"]
    start_now(race["id"])
    assert alice_api.get(f"/api/races/{race['id']}").json()["state"] == "running"


def test_no_move_counts_once_the_race_time_is_up_even_before_the_clock_ticks(
    alice_api: Any, bob_api: Any
) -> None:
    race = racing(alice_api, [bob_api])
    game_id = race["racers"][0]["game"]
    x, y = safe_cells(board_of(game_id))[0]
    Game.objects.filter(pk=game_id).update(started_at=timezone.now() - timedelta(minutes=6))
    six_ago = timezone.now() - timedelta(minutes=6)
    Race.objects.filter(pk=race["id"]).update(
        started_at=six_ago, deadline=six_ago + timedelta(minutes=5)
    )
    late = alice_api.post(f"/api/games/{game_id}/reveal", {"x": x, "y": y}, format="json")
    assert (late.status_code, late.json()["error"]["code"]) == (409, "game_over")
    assert Game.objects.get(pk=game_id).seq == 1  # refused: nothing stored
    tick()
    assert Game.objects.get(pk=game_id).end_reason == "abandoned"


def test_quick_match_seats_the_closest_ratings_together(
    alice_api: Any, bob_api: Any, carol_api: Any, alice: Any, bob: Any, carol: Any
) -> None:
    from accounts.standings.models import RaceRating

    for user, mu in ((alice, 1500.0), (bob, 2900.0), (carol, 1550.0)):
        RaceRating.objects.create(
            player=user, level="beginner", pool="human", mu=mu, sigma=200, rating=round(mu)
        )
    for api in (alice_api, bob_api, carol_api):
        assert api.post("/api/races/queue", {"level": "beginner"}, format="json").status_code == 200
    tick(timezone.now() + timedelta(seconds=3.5))
    # alice waited longest: carol (50 apart) joins her; bob (1400 apart) waits for a closer match.
    matched = alice_api.get("/api/races/queue").json()
    assert sorted(r["player"] for r in matched["race"]["racers"]) == ["alice", "carol"]
    assert bob_api.get("/api/races/queue").json()["state"] == "waiting"


def test_a_profile_lists_race_statistics_and_history(alice_api: Any, bob_api: Any) -> None:
    race = racing(alice_api, [bob_api])
    bob_game = race["racers"][1]["game"]
    x, y = safe_cells(board_of(bob_game))[0]
    bob_api.post(f"/api/games/{bob_game}/reveal", {"x": x, "y": y}, format="json")
    alice_api.post(f"/api/races/{race['id']}/leave")
    bob_api.post(f"/api/races/{race['id']}/leave")
    tick()
    mine = alice_api.get("/api/users/alice/races").json()
    assert (mine["races"], mine["wins"], mine["podiums"]) == (1, 0, 1)
    assert mine["levels"]["beginner"]["races"] == 1
    entry = mine["history"][0]
    assert entry["race"] == race["id"] and entry["place"] == 2 and entry["state"] == "left"
    assert entry["rated"] is True and entry["rating_after"] < entry["rating_before"] == 1500
    assert alice_api.get("/api/users/nobody/races").status_code == 404
