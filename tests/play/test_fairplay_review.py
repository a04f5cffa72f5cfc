"""RULES.md, Fair play: a human's superhuman win is held from the boards until staff clear
it; confirming it flags the account, and none of its games rank again. Played, won and
streaks are never touched. These tests run with the limits as shipped."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import User
from games.play import fairplay
from games.play.models import Game, Review
from tests.play.pacing import machine_speed_clock
from tests.support.boards import win
from tests.support.fairplay import board, players_on, relax_limits, ship_limits
from tests.support.http import start

pytestmark = pytest.mark.usefixtures("shipped_limits", "fixed_layouts")


@pytest.fixture
def fixed_layouts(settings: Any) -> None:
    # One known layout, so that every run plays the same (long enough) game: a random first
    # tap may open half of a Beginner board and leave too few moves to measure a rhythm.
    settings.GAME_TEST_SEED = "fairplay"


def _solver_win(api: APIClient) -> dict[str, Any]:
    """What a solver bot does through the public API: every safe cell, as fast as it can
    (machine speed by the server's clock, whatever the load on the machine)."""
    with machine_speed_clock():
        final = win(api, start(api, "intermediate")["id"])
    assert final["state"] == "won" and final["result_stats"]["clicks"] >= 40, final["result_stats"]
    return final


def test_a_machine_speed_win_by_a_human_account_is_held(
    alice_api: APIClient, anon_api: APIClient
) -> None:
    final = _solver_win(alice_api)
    assert final["state"] == "won"
    assert (final["ranked"], final["unranked_reason"]) == (False, "review")
    review = Review.objects.get(game_id=final["id"])
    assert review.status == "pending"
    assert {f["check"] for f in review.findings} & {"burst", "bbbv_per_s", "rhythm"}
    for kind in ("times", "speed"):
        assert players_on(board(anon_api, "intermediate", kind)) == []
    stats = anon_api.get("/api/users/alice").json()["stats"]["intermediate"]
    assert (stats["played"], stats["won"], stats["current_streak"]) == (1, 1, 1)
    assert stats["best_time_ms"] is None


def test_a_bots_machine_speed_win_is_not_held(robo_api: APIClient, anon_api: APIClient) -> None:
    final = _solver_win(robo_api)
    assert (final["ranked"], final["unranked_reason"]) == (True, None)
    assert not Review.objects.exists()
    assert players_on(board(anon_api, "intermediate", "times", players="bots")) == ["robo"]


def test_staff_clearing_a_review_lets_the_game_rank(
    alice_api: APIClient, anon_api: APIClient, staff: User
) -> None:
    final = _solver_win(alice_api)
    review = Review.objects.get(game_id=final["id"])
    fairplay.review_clear(review_id=review.pk, staff=staff)
    game = anon_api.get(f"/api/games/{final['id']}").json()
    assert (game["ranked"], game["unranked_reason"]) == (True, None)
    times = board(anon_api, "intermediate", "times")
    assert players_on(times) == ["alice"]
    assert times["results"][0]["game_id"] == final["id"]
    stats = anon_api.get("/api/users/alice").json()["stats"]["intermediate"]
    assert stats["best_time_ms"] == final["elapsed_ms"]
    assert (stats["played"], stats["won"]) == (1, 1)  # counted once, at the end
    review.refresh_from_db()
    assert (review.status, review.decided_by_id) == ("cleared", staff.pk)
    with pytest.raises(fairplay.ReviewError):
        fairplay.review_clear(review_id=review.pk, staff=staff)


def test_confirming_a_review_flags_the_account_and_nothing_of_it_ranks_again(
    alice: User, alice_api: APIClient, anon_api: APIClient, staff: User, settings: Any
) -> None:
    # First an honest-looking win that ranks (limits relaxed for it), then the held one.
    relax_limits(settings)
    honest = _solver_win(alice_api)
    assert honest["ranked"] is True
    assert players_on(board(anon_api, "intermediate", "streaks")) == ["alice"]
    ship_limits(settings)
    held = _solver_win(alice_api)
    assert held["unranked_reason"] == "review"
    before = anon_api.get("/api/users/alice").json()["stats"]["intermediate"]

    fairplay.review_confirm(review_id=Review.objects.get(game_id=held["id"]).pk, staff=staff)

    alice.refresh_from_db()
    assert alice.flagged is True
    for game_id in (honest["id"], held["id"]):
        game = anon_api.get(f"/api/games/{game_id}").json()
        assert (game["ranked"], game["unranked_reason"]) == (False, "flagged")
    for kind in ("times", "speed", "streaks"):
        assert players_on(board(anon_api, "intermediate", kind)) == []
    after = anon_api.get("/api/users/alice").json()["stats"]["intermediate"]
    assert {k: after[k] for k in ("played", "won", "current_streak", "best_streak")} == {
        k: before[k] for k in ("played", "won", "current_streak", "best_streak")
    }
    assert "flagged" not in anon_api.get("/api/users/alice").json()
    # New games never rank, and their wins enter no board.
    again = start(alice_api, "intermediate")
    assert (again["ranked"], again["unranked_reason"]) == (False, "flagged")
    win(alice_api, again["id"])
    assert players_on(board(anon_api, "intermediate", "streaks")) == []
    assert Game.objects.filter(player=alice, ranked=True).count() == 0


def test_the_staff_view_lists_and_decides_reviews(alice_api: APIClient, staff: User) -> None:
    held = _solver_win(alice_api)
    review = Review.objects.get(game_id=held["id"])
    site = Client()
    site.force_login(staff)
    listing = site.get("/admin/games/review/")
    assert listing.status_code == 200
    assert "alice" in listing.content.decode()
    response = site.post(
        "/admin/games/review/",
        {"action": "clear_reviews", "_selected_action": [str(review.pk)]},
    )
    assert response.status_code == 302
    review.refresh_from_db()
    assert review.status == "cleared"
    assert Game.objects.get(pk=held["id"]).ranked is True


def test_the_staff_view_is_staff_only(alice: User) -> None:
    site = Client()
    site.force_login(alice)
    response = site.get("/admin/games/review/")
    assert response.status_code == 302 and "/admin/login/" in response["Location"]
    assert Client().get("/admin/games/review/").status_code == 302
