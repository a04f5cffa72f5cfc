"""Profiles (API.md, Accounts and Fine points): `/api/me` and `/api/users/{username}` show the
statistics of all seven buckets and the 20 newest ended games with results, times and 3BV."""

from __future__ import annotations

import pytest

from tests.support.boards import win
from tests.support.http import assert_error, new_game, post, start
from tests.support.shapes import BUCKETS, RECENT_KEYS, STATS_KEYS

pytestmark = pytest.mark.django_db


def test_a_new_players_profile_lists_every_bucket_with_zeros_and_nulls(alice, anon_api):
    profile = anon_api.get("/api/users/alice").json()
    assert set(profile) == {
        "username", "kind", "date_joined", "stats", "stats_no_guess", "recent_games", "daily",
    }  # fmt: skip
    assert profile["daily"] == {
        "current_streak": 0, "best_streak": 0, "played": 0, "won": 0, "best_rank": None,
        "levels": {},
    }  # fmt: skip
    assert profile["username"] == "alice" and profile["date_joined"].endswith("Z")
    assert list(profile["stats"]) == BUCKETS
    for bucket in profile["stats"].values():
        assert set(bucket) >= STATS_KEYS
        assert (bucket["played"], bucket["won"], bucket["win_rate"], bucket["best_times"]) == (
            0,
            0,
            0,
            [],
        )
        assert bucket["best_time_ms"] is None and bucket["average_win_ms"] is None
    assert profile["recent_games"] == []


def test_me_is_the_signed_in_players_profile(alice_api, anon_api):
    assert alice_api.get("/api/me").json()["username"] == "alice"
    assert_error(anon_api.get("/api/me"), 401, "not_authenticated")


def test_an_unknown_player_is_404(anon_api):
    assert_error(anon_api.get("/api/users/nobody"), 404, "not_found")


def test_a_won_and_a_lost_game_show_in_the_stats_and_recent_games(alice_api, bob_api):
    won = win(alice_api, start(alice_api)["id"])
    lost = start(alice_api, "expert")
    post(alice_api, lost["id"], "resign")
    new_game(alice_api, "hard")  # untapped: not an ended game, not listed
    profile = bob_api.get("/api/users/alice").json()
    beginner, expert = profile["stats"]["beginner"], profile["stats"]["expert"]
    assert (beginner["played"], beginner["won"], beginner["win_rate"]) == (1, 1, 1.0)
    assert beginner["best_time_ms"] == won["elapsed_ms"] == beginner["average_win_ms"]
    assert beginner["best_times"] == [
        {"time_ms": won["elapsed_ms"], "game_id": won["id"], "achieved_at": won["ended_at"]}
    ]
    assert (expert["played"], expert["won"], expert["win_rate"], expert["current_streak"]) == (
        1,
        0,
        0.0,
        0,
    )

    recent = profile["recent_games"]
    assert [g["id"] for g in recent] == [lost["id"], won["id"]]
    assert all(set(g) == RECENT_KEYS for g in recent)
    assert (recent[0]["state"], recent[0]["end_reason"], recent[0]["level"]) == (
        "lost",
        "resigned",
        "expert",
    )
    assert recent[1]["elapsed_ms"] == won["elapsed_ms"]
    assert recent[1]["result_stats"]["bbbv"] == won["result_stats"]["bbbv"] > 0
    assert recent[1]["result_stats"]["bbbv_per_s"] == won["result_stats"]["bbbv_per_s"]
    assert recent[0]["result_stats"]["bbbv_per_s"] is None


def test_recent_games_are_the_20_newest_ended_ones(alice_api, anon_api):
    ids = []
    for _ in range(22):
        game = start(alice_api)
        post(alice_api, game["id"], "resign")
        ids.append(game["id"])
    running = start(alice_api)
    recent = anon_api.get("/api/users/alice").json()["recent_games"]
    assert [g["id"] for g in recent] == list(reversed(ids))[:20]
    assert running["id"] not in {g["id"] for g in recent}
    assert anon_api.get("/api/users/alice").json()["stats"]["beginner"]["played"] == 22


def test_a_profile_reads_a_few_rows_whatever_the_number_of_games(
    alice_api, anon_api, django_assert_max_num_queries
):
    for _ in range(5):
        post(alice_api, start(alice_api)["id"], "resign")
    # the player, the stats rows, the recent games, the daily statistics
    with django_assert_max_num_queries(4):
        assert anon_api.get("/api/users/alice").status_code == 200
