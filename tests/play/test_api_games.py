"""Games through the REST API: create, read, list, win, lose (API.md, Games; RULES.md)."""

from __future__ import annotations

import pytest

from games.engine import LEVELS
from games.play.models import Game, Move
from tests.support.boards import mines, safe_closed, win
from tests.support.http import SAFE_BOARD_CHARS, assert_error, new_game, post, start

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("level", sorted(LEVELS))
def test_a_new_game_of_each_level_has_no_mines_and_shows_only_closed_cells(alice_api, level):
    game = new_game(alice_api, level)
    # The sizes of RULES.md, which tests/engine/test_engine.py pins engine.LEVELS to.
    size = LEVELS[level]
    width, height, count = size.width, size.height, size.mines
    assert (game["width"], game["height"], game["mines"]) == (width, height, count)
    assert game["state"] == "new"
    assert game["player"] == "alice"
    assert game["ranked"] is True
    assert game["mines_left"] == count
    assert game["elapsed_ms"] == 0
    assert game["seq"] == 0
    assert game["result_stats"] is None and game["end_reason"] is None
    assert game["board"] == ["#" * width] * height
    assert game["started_at"] is None and game["ended_at"] is None


def test_a_custom_board_is_playable_but_never_ranked(alice_api):
    response = alice_api.post("/api/games", {"width": 12, "height": 7, "mines": 20}, format="json")
    assert response.status_code == 201
    game = response.json()
    assert (game["level"], game["ranked"]) == ("custom", False)
    assert game["board"] == ["#" * 12] * 7


@pytest.mark.parametrize(
    "body",
    [
        {"level": "beginner", "width": 9, "height": 9, "mines": 10},
        {"level": "impossible"},
        {"level": 3},
        {"width": 9, "height": 9},
        {"width": 4, "height": 9, "mines": 3},
        {"width": 101, "height": 9, "mines": 3},
        {"width": 10, "height": 10, "mines": 92},
        {"width": 10, "height": 10, "mines": 0},
        {"width": "10", "height": 10, "mines": 5},
        {"width": 10.0, "height": 10, "mines": 5},
        {"width": True, "height": 10, "mines": 5},
        {"width": None, "height": 10, "mines": 5},
        {"width": 10**40, "height": 10, "mines": 5},
        {},
    ],
)
def test_bad_board_specs_are_refused_and_create_nothing(alice_api, body):
    response = alice_api.post("/api/games", body, format="json")
    assert_error(response, 400, response.json()["error"]["code"])
    assert Game.objects.count() == 0


def test_a_custom_board_may_hold_all_but_nine_cells_of_mines(alice_api):
    response = alice_api.post("/api/games", {"width": 10, "height": 10, "mines": 91}, format="json")
    assert response.status_code == 201
    game = response.json()
    result = post(alice_api, game["id"], "reveal", {"x": 5, "y": 5}).json()
    assert result["game"]["state"] == "won"  # the 3x3 square is the only safe area
    assert len(result["changes"]) == 9


def test_anonymous_visitors_cannot_create_games(anon_api):
    assert_error(
        anon_api.post("/api/games", {"level": "beginner"}, format="json"), 401, "not_authenticated"
    )


def test_anyone_may_read_a_game_but_unknown_ids_are_404(alice_api, anon_api):
    game = new_game(alice_api)
    assert anon_api.get(f"/api/games/{game['id']}").json()["id"] == game["id"]
    assert anon_api.get(f"/api/games/{game['id']}/").status_code == 200
    assert_error(anon_api.get("/api/games/6c5a3f8e-8a43-4d4e-9a55-6f3b9a0e1c11"), 404, "not_found")
    assert_error(anon_api.get("/api/games/not-a-uuid"), 404, "not_found")
    # An unknown path is 404 for every method and every client, signed in or not (API.md).
    assert_error(
        anon_api.post("/api/games/not-a-uuid/reveal", {"x": 1, "y": 1}, format="json"),
        404,
        "not_found",
    )
    assert_error(
        alice_api.post("/api/games/not-a-uuid/reveal", {"x": 1, "y": 1}, format="json"),
        404,
        "not_found",
    )


def test_the_first_tap_is_always_a_zero_and_opens_its_square(alice_api):
    game = new_game(alice_api, "expert")
    result = post(alice_api, game["id"], "reveal", {"x": 0, "y": 0}).json()
    assert result["seq"] == 1
    opened = {(c["x"], c["y"]) for c in result["changes"]}
    assert {(0, 0), (1, 0), (0, 1), (1, 1)} <= opened
    assert result["changes"][0] == {"x": 0, "y": 0, "v": "0"}
    assert result["game"]["state"] in ("playing", "won")
    assert not mines(game["id"]) & {(0, 0), (1, 0), (0, 1), (1, 1)}
    assert len(mines(game["id"])) == 60


def test_a_game_played_to_a_win_shows_its_layout_and_result_stats(alice_api, anon_api):
    game = start(alice_api, "beginner")
    final = win(alice_api, game["id"])
    assert final["state"] == "won"
    assert final["end_reason"] == "cleared"
    assert final["ended_at"] is not None
    stats = final["result_stats"]
    assert stats["bbbv"] >= 1 and stats["bbbv_solved"] == stats["bbbv"]
    assert stats["clicks"] == Move.objects.filter(game_id=game["id"]).count()
    assert stats["efficiency"] == round(stats["bbbv_solved"] / stats["clicks"], 3)
    board = "".join(anon_api.get(f"/api/games/{game['id']}").json()["board"])
    assert board.count("*") == 10  # unflagged mines are shown after the end
    assert "#" not in board


def test_opening_a_mine_loses_and_shows_the_hit_mine_and_wrong_flags(alice_api):
    game = start(alice_api, "beginner")
    mine = sorted(mines(game["id"]))[0]
    safe = [c for c in safe_closed(game["id"])]
    wrong_flag = safe[0]
    post(alice_api, game["id"], "flag", {"x": wrong_flag[0], "y": wrong_flag[1]})
    result = post(alice_api, game["id"], "reveal", {"x": mine[0], "y": mine[1]}).json()
    assert result["changes"] == [{"x": mine[0], "y": mine[1], "v": "X"}]
    final = result["game"]
    assert (final["state"], final["end_reason"]) == ("lost", "mine")
    assert final["board"][mine[1]][mine[0]] == "X"
    assert final["board"][wrong_flag[1]][wrong_flag[0]] == "!"
    assert "".join(final["board"]).count("*") == 9
    assert final["result_stats"]["bbbv_per_s"] is None


def test_nothing_about_closed_cells_leaks_before_the_end(alice_api, anon_api):
    game = start(alice_api, "expert", at=(15, 8))
    for api in (alice_api, anon_api):
        seen = api.get(f"/api/games/{game['id']}").json()
        assert set("".join(seen["board"])) <= SAFE_BOARD_CHARS
        assert seen["result_stats"] is None
        listed = api.get("/api/games?state=playing").json()["results"][0]
        assert set("".join(listed["board"])) <= SAFE_BOARD_CHARS
        assert "bbbv" not in str(seen) and "bbbv" not in str(listed)


def test_the_games_list_filters_by_state_level_and_player(alice_api, bob_api, anon_api):
    start(alice_api, "expert")
    new_game(alice_api, "beginner")
    start(bob_api, "expert")
    everything = anon_api.get("/api/games").json()
    assert everything["count"] == 3 and set(everything) == {"count", "next", "previous", "results"}
    playing = anon_api.get("/api/games?state=playing&level=expert").json()
    assert {g["player"] for g in playing["results"]} == {"alice", "bob"}
    alices = anon_api.get("/api/games?user=alice&state=playing&level=expert").json()
    assert [g["player"] for g in alices["results"]] == ["alice"]
    assert_error(anon_api.get("/api/games?state=sleeping"), 400, "invalid")
    assert_error(anon_api.get("/api/games?level=huge"), 400, "invalid")
    assert anon_api.get("/api/games?page_size=1").json()["next"] is not None
    assert len(anon_api.get("/api/games?page_size=500").json()["results"]) == 3
    assert_error(anon_api.get("/api/games?page_size=0"), 400, "invalid_page_size")
    assert_error(anon_api.get("/api/games?page=99"), 404, "not_found")


def test_a_new_game_of_the_same_level_abandons_a_started_one(alice_api):
    first = start(alice_api, "beginner")
    second = new_game(alice_api, "beginner")
    old = alice_api.get(f"/api/games/{first['id']}").json()
    assert (old["state"], old["end_reason"]) == ("lost", "abandoned")
    moves = alice_api.get(f"/api/games/{first['id']}/moves").json()["results"]
    assert moves[-1]["action"] == "abandon" and moves[-1]["x"] is None
    # an untapped game is simply discarded
    new_game(alice_api, "beginner")
    assert_error(alice_api.get(f"/api/games/{second['id']}"), 404, "not_found")
    # other levels are untouched
    other = start(alice_api, "expert")
    new_game(alice_api, "beginner")
    assert alice_api.get(f"/api/games/{other['id']}").json()["state"] == "playing"


def test_a_new_custom_game_abandons_a_started_custom_game_of_any_size(alice_api):
    # 54 mines on 8x8: one safe cell stays outside the protected square, so the first tap
    # cannot win and the game is surely started and unfinished.
    first = alice_api.post(
        "/api/games", {"width": 8, "height": 8, "mines": 54}, format="json"
    ).json()
    assert (
        post(alice_api, first["id"], "reveal", {"x": 3, "y": 3}).json()["game"]["state"]
        == "playing"
    )
    alice_api.post("/api/games", {"width": 20, "height": 9, "mines": 30}, format="json")
    assert alice_api.get(f"/api/games/{first['id']}").json()["end_reason"] == "abandoned"


def test_the_games_list_accepts_several_states(alice_api, bob_api, anon_api):
    start(alice_api, "expert")
    paused = start(bob_api, "expert")
    post(bob_api, paused["id"], "pause")
    new_game(alice_api, "beginner")
    both = anon_api.get("/api/games?state=playing,paused").json()
    assert sorted(g["state"] for g in both["results"]) == ["paused", "playing"]
    assert_error(anon_api.get("/api/games?state=playing,sleeping"), 400, "invalid")
