"""RULES.md, Fair play: a pause after the first tap unranks the game (its time and 3BV/s
enter no board and no best time), but the game still counts in played, won and streaks."""

from __future__ import annotations

from typing import Any

from rest_framework.test import APIClient

from tests.support.boards import win
from tests.support.fairplay import board, players_on
from tests.support.http import assert_error, post, start


def _pause_loop_win(api: APIClient) -> dict[str, Any]:
    """The attack of the review: pause, think with the board seen, resume, one move, repeat."""
    game = start(api, "beginner")
    for _ in range(3):
        assert post(api, game["id"], "pause").status_code == 200
        assert post(api, game["id"], "resume").status_code == 200
    return win(api, game["id"])


def test_the_pause_loop_reaches_no_leaderboard(alice_api: APIClient, anon_api: APIClient) -> None:
    final = _pause_loop_win(alice_api)
    assert final["state"] == "won"
    assert final["ranked"] is False
    assert final["unranked_reason"] == "paused"
    for kind in ("times", "speed"):
        for period in ("all", "day"):
            assert players_on(board(anon_api, "beginner", kind, period=period)) == []


def test_a_paused_game_counts_in_played_won_and_streaks_but_sets_no_best(
    alice_api: APIClient, anon_api: APIClient
) -> None:
    final = _pause_loop_win(alice_api)
    stats = anon_api.get("/api/users/alice").json()["stats"]["beginner"]
    assert (stats["played"], stats["won"], stats["current_streak"]) == (1, 1, 1)
    assert stats["average_win_ms"] == final["elapsed_ms"]
    assert stats["best_time_ms"] is None and stats["best_bbbv_per_s"] is None
    assert stats["best_times"] == []
    # The streak board counts the paused win.
    assert players_on(board(anon_api, "beginner", "streaks")) == ["alice"]
    game = anon_api.get(f"/api/games/{final['id']}").json()
    assert (game["ranked"], game["unranked_reason"]) == (False, "paused")


def test_the_pause_unranks_at_once_and_the_reason_is_kept(alice_api: APIClient) -> None:
    game = start(alice_api, "beginner")
    assert (game["ranked"], game["unranked_reason"]) == (True, None)
    paused = post(alice_api, game["id"], "pause").json()
    assert (paused["ranked"], paused["unranked_reason"]) == (False, "paused")
    resumed = post(alice_api, game["id"], "resume").json()
    assert (resumed["ranked"], resumed["unranked_reason"]) == (False, "paused")


def test_an_unpaused_win_still_ranks(alice_api: APIClient, anon_api: APIClient) -> None:
    game = start(alice_api, "beginner")
    final = win(alice_api, game["id"])
    assert (final["ranked"], final["unranked_reason"]) == (True, None)
    assert players_on(board(anon_api, "beginner", "times")) == ["alice"]
    assert (
        anon_api.get("/api/users/alice").json()["stats"]["beginner"]["best_time_ms"]
        == (final["elapsed_ms"])
    )


def test_a_pause_before_the_first_tap_is_refused_and_unranks_nothing(
    alice_api: APIClient,
) -> None:
    game = alice_api.post("/api/games", {"level": "beginner"}, format="json").json()
    assert_error(post(alice_api, game["id"], "pause"), 409, "game_not_started")
    assert alice_api.get(f"/api/games/{game['id']}").json()["ranked"] is True


def test_custom_games_say_why_they_do_not_rank(alice_api: APIClient) -> None:
    response = alice_api.post("/api/games", {"width": 8, "height": 8, "mines": 10}, format="json")
    body = response.json()
    assert (body["ranked"], body["unranked_reason"], body["race"]) == (False, "custom", None)


def test_replaying_a_move_while_paused_does_not_show_the_board(alice_api: APIClient) -> None:
    game = start(alice_api, "beginner")
    cell = next(
        (x, y) for y, row in enumerate(game["board"]) for x, ch in enumerate(row) if ch == "#"
    )
    first = post(
        alice_api, game["id"], "flag", {"x": cell[0], "y": cell[1], "client_move_id": "m1"}
    )
    assert first.status_code == 200
    post(alice_api, game["id"], "pause")
    again = post(
        alice_api, game["id"], "flag", {"x": cell[0], "y": cell[1], "client_move_id": "m1"}
    )
    body = assert_error(again, 409, "game_paused")
    assert "board" not in str(body)
    post(alice_api, game["id"], "resume")
    replay = post(
        alice_api, game["id"], "flag", {"x": cell[0], "y": cell[1], "client_move_id": "m1"}
    )
    assert replay.status_code == 200 and replay.json()["seq"] == first.json()["seq"]
