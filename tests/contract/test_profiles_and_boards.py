"""API.md, Leaderboards and statistics + Fine points: the profile's shape (seven buckets,
zeros and nulls) and the custom bucket, as any client sees them. `win_rate`, `recent_games`
and the boards' rows, `me` and `around=me`: tests/standings/test_profile_and_board_shapes.py."""

from __future__ import annotations

from datetime import datetime

import pytest

from tests.support.http import post
from tests.support.shapes import BUCKETS, STATS_KEYS

pytestmark = pytest.mark.django_db


def test_a_profile_has_its_keys_and_all_seven_buckets_of_each_mode_with_zeros_and_nulls(
    anon_api, alice
):
    profile = anon_api.get("/api/users/alice").json()
    assert set(profile) == {
        "username", "kind", "date_joined", "stats", "stats_no_guess", "recent_games", "daily",
    }  # fmt: skip
    assert list(profile["stats_no_guess"]) == BUCKETS
    assert profile["username"] == "alice" and profile["recent_games"] == []
    assert datetime.fromisoformat(profile["date_joined"].replace("Z", "+00:00"))
    assert list(profile["stats"]) == BUCKETS
    for bucket in profile["stats"].values():
        assert set(bucket) >= STATS_KEYS
        assert (bucket["played"], bucket["won"], bucket["win_rate"]) == (0, 0, 0)
        assert (bucket["current_streak"], bucket["best_streak"]) == (0, 0)
        for key in (
            "best_time_ms",
            "best_time_game_id",
            "best_bbbv_per_s",
            "best_bbbv_per_s_game_id",
            "average_win_ms",
        ):
            assert bucket[key] is None, key
        assert bucket["best_times"] == []


def test_a_custom_game_counts_in_the_custom_bucket(alice_api, anon_api):
    game = alice_api.post("/api/games", {"width": 8, "height": 8, "mines": 54}, format="json")
    post(alice_api, game.json()["id"], "reveal", {"x": 3, "y": 3})
    post(alice_api, game.json()["id"], "resign")
    stats = anon_api.get("/api/users/alice").json()["stats"]
    assert stats["custom"]["played"] == 1
    assert all(stats[level]["played"] == 0 for level in BUCKETS[:-1])
    recent = anon_api.get("/api/users/alice").json()["recent_games"]
    assert recent[0]["level"] == "custom"
