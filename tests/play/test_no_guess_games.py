"""RULES.md, No-guess boards; API.md, No-guess games: `no_guess` on creation, the layout placed
at the first tap and cleared by deduction from the opening, the density bound of custom boards,
the classic fallback, and no-guess games kept apart from classic ones in statistics and on
every board (docs/NOGUESS.md)."""

from __future__ import annotations

import pytest

from games.engine import LEVELS
from games.play import noguess
from tests.support.boards import win
from tests.support.deduction import solve
from tests.support.http import assert_error, post, start
from tests.support.noguess import game_no_guess, layout_and_opening, start_no_guess

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("level", list(LEVELS))
def test_a_no_guess_game_says_so_and_its_first_tap_deals_a_board_cleared_by_deduction(
    alice_api, level
):
    spec = LEVELS[level]
    game = start_no_guess(alice_api, level, at=(spec.width // 3, spec.height // 2))
    assert game["no_guess"] is True
    board, mines, (x, y) = layout_and_opening(game["id"])
    assert (x, y) == (spec.width // 3, spec.height // 2) and len(mines) == spec.mines
    assert not set(mines) & noguess.opening(spec.width, spec.height, x, y)
    assert solve(board.width, board.height, mines, (x, y)).cleared
    classic = alice_api.post("/api/games", {"level": level}, format="json").json()
    assert classic["no_guess"] is False


def test_no_guess_must_be_a_json_boolean(alice_api):
    for value in ("yes", 1, None):
        answer = alice_api.post(
            "/api/games", {"level": "beginner", "no_guess": value}, format="json"
        )
        assert_error(answer, 400, "invalid")


def test_a_custom_no_guess_board_within_the_bound_is_dealt_and_a_denser_one_refused(alice_api):
    # 10 x 10: 91 cells outside the opening; 18 mines is 0.198, 19 is 0.209 (MAX_DENSITY 0.20).
    ok = alice_api.post(
        "/api/games", {"width": 10, "height": 10, "mines": 18, "no_guess": True}, format="json"
    )
    assert ok.status_code == 201 and ok.json()["no_guess"] is True
    tapped = post(alice_api, ok.json()["id"], "reveal", {"x": 5, "y": 5}).json()["game"]
    _, mines, opening = layout_and_opening(tapped["id"])
    assert tapped["no_guess"] is True and solve(10, 10, mines, opening).cleared
    refused = alice_api.post(
        "/api/games", {"width": 10, "height": 10, "mines": 19, "no_guess": True}, format="json"
    )
    body = assert_error(refused, 400, "no_guess_unavailable")
    assert body["error"]["details"]["max_density"] == noguess.MAX_DENSITY
    assert body["error"]["details"]["max_mines"] == 18
    # A bigger board has a lower bound: 60 x 60 (3,600 cells) at 0.13, over 0.12.
    big = alice_api.post(
        "/api/games", {"width": 60, "height": 60, "mines": 467, "no_guess": True}, format="json"
    )
    assert assert_error(big, 400, "no_guess_unavailable")["error"]["details"] == {
        "max_density": 0.12,
        "max_mines": 430,
    }
    # Refused, nothing changed: the custom game made first is still there, still playing.
    assert alice_api.get(f"/api/games/{tapped['id']}").json()["state"] == "playing"
    classic = alice_api.post("/api/games", {"width": 10, "height": 10, "mines": 19}, format="json")
    assert classic.status_code == 201 and classic.json()["no_guess"] is False


def test_when_no_board_is_found_in_time_the_game_is_dealt_classic_and_says_so(
    alice_api, monkeypatch
):
    monkeypatch.setattr(noguess, "layout_for", lambda *args, **kwargs: None)
    game = start_no_guess(alice_api, "beginner")
    assert game["no_guess"] is False and not game_no_guess(game["id"])
    post(alice_api, game["id"], "resign")
    stats = alice_api.get("/api/users/alice").json()
    assert stats["stats"]["beginner"]["played"] == 1
    assert stats["stats_no_guess"]["beginner"]["played"] == 0


def test_a_classic_and_a_no_guess_game_of_one_level_are_separate_slots(alice_api):
    classic = start(alice_api, "beginner")
    no_guess = start_no_guess(alice_api, "beginner")
    assert alice_api.get(f"/api/games/{classic['id']}").json()["state"] == "playing"
    again = start_no_guess(alice_api, "beginner")  # the same slot: the first one is abandoned
    assert alice_api.get(f"/api/games/{no_guess['id']}").json()["end_reason"] == "abandoned"
    assert alice_api.get(f"/api/games/{again['id']}").json()["state"] == "playing"
    assert alice_api.get(f"/api/games/{classic['id']}").json()["state"] == "playing"


def _board(api, board: str, mode: str | None = None, **query: str) -> dict:
    params = {**query, **({"mode": mode} if mode else {})}
    answer = api.get(f"/api/leaderboards/beginner/{board}", params)
    assert answer.status_code == 200, answer.content
    return answer.json()


def test_a_no_guess_win_lands_only_on_no_guess_boards_and_a_classic_win_only_on_classic(
    alice_api, anon_api
):
    ng = start_no_guess(alice_api, "beginner")
    assert win(alice_api, ng["id"])["state"] == "won"
    for board in ("times", "speed", "streaks"):
        assert _board(anon_api, board)["count"] == 0
        assert _board(anon_api, board, "classic")["count"] == 0
    for board in ("times", "speed"):
        for period in ("all", "year", "month", "week", "day"):
            rows = _board(anon_api, board, "no_guess", period=period)
            assert [r["game_id"] for r in rows["results"]] == [ng["id"]], (board, period)
    streaks = _board(anon_api, "streaks", "no_guess")
    assert [(r["player"], r["best_streak"]) for r in streaks["results"]] == [("alice", 1)]
    me = _board(alice_api, "times", "no_guess", around="me")
    assert me["me"]["rank"] == 1 and me["me"]["game_id"] == ng["id"]
    assert _board(alice_api, "times", "classic", around="me")["me"] is None
    assert _board(anon_api, "times", "no_guess", players="bots")["count"] == 0
    profile = anon_api.get("/api/users/alice").json()
    assert (profile["stats_no_guess"]["beginner"]["won"], profile["stats"]["beginner"]["won"]) == (
        1,
        0,
    )
    assert profile["recent_games"][0]["no_guess"] is True

    classic = start(alice_api, "beginner")
    assert win(alice_api, classic["id"])["state"] == "won"
    assert [r["game_id"] for r in _board(anon_api, "times")["results"]] == [classic["id"]]
    assert [r["game_id"] for r in _board(anon_api, "times", "no_guess")["results"]] == [ng["id"]]
    profile = anon_api.get("/api/users/alice").json()
    assert profile["stats"]["beginner"]["won"] == 1
    assert profile["stats_no_guess"]["beginner"]["won"] == 1
    assert profile["stats_no_guess"]["beginner"]["current_streak"] == 1


def test_an_unknown_mode_is_refused_on_every_board(anon_api):
    for path in (
        "/api/leaderboards/beginner/times",
        "/api/leaderboards/beginner/speed",
        "/api/leaderboards/beginner/streaks",
        "/api/leaderboards/beginner/races",
    ):
        body = assert_error(anon_api.get(path, {"mode": "easy"}), 400, "invalid_mode")
        assert body["error"]["details"]["modes"] == ["classic", "no_guess"]
        assert anon_api.get(path, {"mode": "no_guess"}).status_code == 200
