"""API.md, Game and Fine points: `elapsed_ms` and `result_stats` (bbbv, bbbv_solved, clicks,
bbbv_per_s, efficiency), and the game won by its first tap: elapsed 0, no 3BV/s, on the
times board and not on the speed board."""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

import pytest

from games.engine import Board
from games.play import services
from games.play.models import Game
from tests.support.boards import game_from_ascii, mines, win
from tests.support.http import new_game, post, start

pytestmark = pytest.mark.django_db

RESULT_STATS_KEYS = {"bbbv", "bbbv_solved", "clicks", "bbbv_per_s", "efficiency"} | {
    # the community's counters: tests/play/test_game_counters.py
    *("reveal_clicks", "flag_clicks", "chord_clicks", "effective_clicks", "wasted_clicks"),
    *("flags_used", "no_flags", "ioe", "correctness", "throughput", "rqp", "zini"),
    "zini_efficiency",
}


def _first_tap_winning_seed(width: int, height: int, count: int, at: tuple[int, int]) -> int:
    """A seed whose layout is cleared by a first tap at `at` (searched with the pure engine)."""
    for seed in range(200_000):
        board = Board.new(width, height, count)
        if board.reveal(*at, random.Random(seed)).status == "won":
            return seed
    raise AssertionError("no seed found")


@pytest.fixture
def first_tap_wins(monkeypatch: Any) -> None:
    """Beginner layouts are drawn so that a first tap at (4, 4) clears the board."""
    seed = _first_tap_winning_seed(9, 9, 10, (4, 4))
    monkeypatch.setattr(services, "_rng_for", lambda game: random.Random(seed))


def test_elapsed_ms_is_0_and_result_stats_null_before_the_first_tap(alice_api):
    game = new_game(alice_api)
    Game.objects.filter(pk=game["id"]).update(
        created_at=Game.objects.get(pk=game["id"]).created_at - timedelta(minutes=5)
    )
    seen = alice_api.get(f"/api/games/{game['id']}").json()
    assert (seen["elapsed_ms"], seen["started_at"], seen["result_stats"]) == (0, None, None)


def test_a_game_won_by_its_first_tap_has_elapsed_0_and_no_speed(alice_api, first_tap_wins):
    game = new_game(alice_api)
    answer = post(alice_api, game["id"], "reveal", {"x": 4, "y": 4}).json()
    won = answer["game"]
    assert (won["state"], won["end_reason"], won["elapsed_ms"]) == ("won", "cleared", 0)
    assert won["started_at"] == won["ended_at"]
    stats = won["result_stats"]
    assert set(stats) == RESULT_STATS_KEYS
    assert {k: stats[k] for k in ("bbbv", "bbbv_solved", "clicks", "bbbv_per_s", "efficiency")} == {
        "bbbv": 1,
        "bbbv_solved": 1,
        "clicks": 1,
        "bbbv_per_s": None,
        "efficiency": 1.0,
    }
    # One opening, cleared by one reveal: the fewest clicks, and no time for an RQP.
    assert (stats["zini"], stats["zini_efficiency"], stats["rqp"]) == (1, 1.0, None)
    moves = alice_api.get(f"/api/games/{game['id']}/moves").json()["results"]
    assert [(m["action"], m["at_ms"]) for m in moves] == [("reveal", 0)]


def test_a_first_tap_win_ranks_on_the_times_board_and_not_on_the_speed_board(
    alice_api, anon_api, first_tap_wins
):
    game = new_game(alice_api)
    post(alice_api, game["id"], "reveal", {"x": 4, "y": 4})
    times = alice_api.get("/api/leaderboards/beginner/times").json()
    assert [(r["player"], r["time_ms"], r["game_id"]) for r in times["results"]] == [
        ("alice", 0, game["id"])
    ]
    assert times["me"]["rank"] == 1
    for period in ("all", "day"):
        speed = alice_api.get(f"/api/leaderboards/beginner/speed?period={period}").json()
        assert (speed["count"], speed["results"], speed["me"]) == (0, [], None)
    beginner = anon_api.get("/api/users/alice").json()["stats"]["beginner"]
    assert (beginner["best_time_ms"], beginner["best_time_game_id"]) == (0, game["id"])
    assert (beginner["best_bbbv_per_s"], beginner["best_bbbv_per_s_game_id"]) == (None, None)
    assert beginner["best_times"][0]["time_ms"] == 0


def test_a_won_game_has_every_result_stat_and_a_speed(alice_api):
    game = game_from_ascii(alice_api, ["*.....", "......", "......", "......", ".....*"])
    gid = game["id"]
    Game.objects.filter(pk=gid).update(
        started_at=Game.objects.get(pk=gid).started_at - timedelta(seconds=2)
    )
    post(alice_api, gid, "flag", {"x": 0, "y": 0})  # a click that solves nothing
    post(alice_api, gid, "reveal", {"x": 3, "y": 2})  # the one opening clears the board
    final = win(alice_api, gid)
    assert final["state"] == "won"
    stats = final["result_stats"]
    assert set(stats) == RESULT_STATS_KEYS
    assert (
        stats["bbbv"]
        == stats["bbbv_solved"]
        == Board.from_ascii(["*.....", "......", "......", "......", ".....*"]).bbbv()
    )
    assert stats["clicks"] == Game.objects.get(pk=gid).clicks >= 2
    assert stats["efficiency"] == round(stats["bbbv_solved"] / stats["clicks"], 3)
    expected_speed = stats["bbbv"] / (final["elapsed_ms"] / 1000)
    assert final["elapsed_ms"] >= 2000
    assert stats["bbbv_per_s"] == pytest.approx(expected_speed, abs=0.001)


@pytest.mark.parametrize("ending", ["mine", "resigned", "abandoned"])
def test_a_lost_game_has_result_stats_without_a_speed(alice_api, ending):
    game = start(alice_api)
    gid = game["id"]
    if ending == "mine":
        x, y = sorted(mines(gid))[0]
        post(alice_api, gid, "reveal", {"x": x, "y": y})
    elif ending == "resigned":
        post(alice_api, gid, "resign")
    else:
        new_game(alice_api)
    final = alice_api.get(f"/api/games/{gid}").json()
    assert (final["state"], final["end_reason"]) == ("lost", ending)
    stats = final["result_stats"]
    assert set(stats) == RESULT_STATS_KEYS and stats["bbbv_per_s"] is None
    stored = Game.objects.get(pk=gid)
    assert stats["bbbv"] == stored.bbbv and stats["bbbv_solved"] == stored.bbbv_solved
    assert 0 <= stats["bbbv_solved"] < stats["bbbv"]
    expected_clicks = 2 if ending == "mine" else 1  # pause, resume, resign are not clicks
    assert stats["clicks"] == expected_clicks
    assert stats["efficiency"] == round(stats["bbbv_solved"] / expected_clicks, 3)
