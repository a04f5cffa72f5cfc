"""No-guess races (RULES.md, No-guess boards; API.md, No-guess games): a race created or
quick-matched with `no_guess` deals one no-guess layout around the server's opening, says so
on the Race and on each racer's Game, keeps its own quick-match queue per level, and rates in
its level's no-guess ratings, on the no-guess race board only."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from accounts.standings.models import RaceRating
from tests.support.boards import board_of, safe_cells, win
from tests.support.deduction import solve
from tests.support.http import SAFE_BOARD_CHARS
from tests.support.noguess import game_no_guess, mine_indexes
from tests.support.races import established_ratings, racing, start_now, tick  # noqa: F401

pytestmark = pytest.mark.django_db


def test_a_no_guess_race_deals_one_no_guess_board_around_its_opening(
    alice_api: Any, bob_api: Any
) -> None:
    race = racing(alice_api, [bob_api], no_guess=True)
    assert race["no_guess"] is True
    games = [r["game"] for r in race["racers"]]
    boards = [board_of(g) for g in games]
    assert boards[0].to_ascii() == boards[1].to_ascii()  # one layout for every racer
    cell = race["start_cell"]
    mines = mine_indexes(boards[0])
    assert solve(9, 9, mines, (cell["x"], cell["y"])).cleared
    assert all(game_no_guess(g) for g in games)
    mine = alice_api.get(f"/api/games/{games[0]}").json()
    assert mine["no_guess"] is True
    # A rival sees no board of alice's game while the race runs: no-guess changes nothing there.
    assert bob_api.get(f"/api/games/{games[0]}").json()["board"] is None
    assert set("".join(mine["board"])) <= SAFE_BOARD_CHARS


@pytest.mark.usefixtures("established_ratings")  # the board after one race
def test_a_no_guess_race_rates_apart_from_classic_races(alice_api: Any, bob_api: Any) -> None:
    race = racing(alice_api, [bob_api], no_guess=True)
    alice_game, bob_game = (r["game"] for r in race["racers"])
    assert win(alice_api, alice_game)["state"] == "won"
    x, y = safe_cells(board_of(bob_game))[0]  # bob takes part (docs/RACES.md, Rated races)
    opened = bob_api.post(f"/api/games/{bob_game}/reveal", {"x": x, "y": y}, format="json")
    assert opened.status_code == 200
    assert bob_api.post(f"/api/games/{bob_game}/resign").status_code == 200
    tick()
    assert alice_api.get(f"/api/races/{race['id']}").json()["state"] == "finished"
    levels = set(RaceRating.objects.values_list("level", flat=True))
    assert levels == {"beginner:ng"}
    board = alice_api.get("/api/leaderboards/beginner/races", {"mode": "no_guess"}).json()
    assert [r["player"] for r in board["results"]] == ["alice", "bob"]
    assert board["me"]["rank"] == 1
    assert alice_api.get("/api/leaderboards/beginner/races").json()["count"] == 0
    history = alice_api.get("/api/users/alice/races").json()["history"]
    assert history[0]["no_guess"] is True


def test_quick_match_keeps_one_queue_per_level_and_mode(
    alice_api: Any, bob_api: Any, carol_api: Any
) -> None:
    queued = alice_api.post(
        "/api/races/queue", {"level": "beginner", "no_guess": True}, format="json"
    )
    assert queued.status_code == 200, queued.content
    assert (queued.json()["level"], queued.json()["no_guess"]) == ("beginner", True)
    classic = bob_api.post("/api/races/queue", {"level": "beginner"}, format="json").json()
    assert classic["no_guess"] is False
    tick(timezone.now() + timedelta(seconds=4))
    assert alice_api.get("/api/races/queue").json()["state"] == "waiting"
    assert bob_api.get("/api/races/queue").json()["state"] == "waiting"
    carol_api.post("/api/races/queue", {"level": "beginner", "no_guess": True}, format="json")
    tick(timezone.now() + timedelta(seconds=8))
    matched = alice_api.get("/api/races/queue").json()
    assert matched["state"] == "matched" and matched["race"]["no_guess"] is True
    assert sorted(r["player"] for r in matched["race"]["racers"]) == ["alice", "carol"]
    start_now(matched["race"]["id"])
    running = alice_api.get(f"/api/races/{matched['race']['id']}").json()
    assert running["state"] == "running" and game_no_guess(running["racers"][0]["game"])
    assert bob_api.get("/api/races/queue").json()["state"] == "waiting"
