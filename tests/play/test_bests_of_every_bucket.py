"""A bucket's bests come from its own wins (RULES.md, Fair play): a won
custom game sets the `custom` bucket's best time, best 3BV/s and five best times, and a guest's
wins set the guest's own bests, first-tap wins (0 ms) included. Only paused, held and flagged
games are left out of bests, and only ranked games reach a leaderboard. verify_games
(games.play.integrity) recomputes the same bests from the games."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from accounts.models import User
from accounts.standings.models import PersonalRecord
from games.play import fairplay, integrity
from games.play.models import Review
from tests.support.boards import win
from tests.support.fairplay import board, players_on, ship_limits
from tests.support.http import post, start

pytestmark = pytest.mark.django_db

# Known layouts (tests/support/boards.layout_after_first_tap): on 9x9 with 10 mines the first
# tap at (4, 4) leaves the game running; on 5x5 with one mine the first tap at (2, 2) wins.
SEED = "bests-0"
NINE = {"width": 9, "height": 9, "mines": 10}
TINY = {"width": 5, "height": 5, "mines": 1}


@pytest.fixture(autouse=True)
def layouts(settings: Any) -> None:
    settings.GAME_TEST_SEED = SEED


def _custom(api: APIClient, size: dict[str, int]) -> dict[str, Any]:
    response = api.post("/api/games", size, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def _played_to_a_win(api: APIClient, game_id: str, *, paused: bool) -> dict[str, Any]:
    """The game won (a pause and a resume first when `paused`); its final state."""
    if paused:
        assert post(api, game_id, "pause").status_code == 200
        assert post(api, game_id, "resume").status_code == 200
    final = win(api, game_id)
    assert final["state"] == "won", final
    return final


def _won_custom(api: APIClient, *, paused: bool = False) -> dict[str, Any]:
    game = _custom(api, NINE)
    tapped = post(api, game["id"], "reveal", {"x": 4, "y": 4}).json()["game"]
    assert (tapped["state"], tapped["unranked_reason"]) == ("playing", "custom")
    return _played_to_a_win(api, game["id"], paused=paused)


def _first_tap_win(api: APIClient) -> dict[str, Any]:
    game = _custom(api, TINY)
    final = post(api, game["id"], "reveal", {"x": 2, "y": 2}).json()["game"]
    assert (final["state"], final["elapsed_ms"]) == ("won", 0), final
    return final


def _won(api: APIClient, level: str = "beginner", *, paused: bool = False) -> dict[str, Any]:
    return _played_to_a_win(api, start(api, level)["id"], paused=paused)


def _stats(api: APIClient, username: str, bucket: str) -> dict[str, Any]:
    response = api.get(f"/api/users/{username}")
    assert response.status_code == 200, response.content
    return dict(response.json()["stats"][bucket])


def _bests(stats: dict[str, Any]) -> tuple[Any, ...]:
    return (
        stats["best_time_ms"],
        stats["best_time_game_id"],
        stats["best_bbbv_per_s"],
        [row["time_ms"] for row in stats["best_times"]],
    )


def _assert_no_bests(stats: dict[str, Any], *, won: int) -> None:
    assert (stats["played"], stats["won"]) == (won, won)
    assert _bests(stats) == (None, None, None, [])


def _guest() -> tuple[APIClient, str]:
    client = APIClient()
    response = client.post("/api/auth/guest")
    assert response.status_code == 201, response.content
    return client, response.json()["username"]


def _verified(*users: User) -> None:
    assert integrity.check_stats([u.pk for u in users]) == []


def test_a_won_custom_game_sets_the_custom_buckets_bests(
    alice: User, alice_api: APIClient, anon_api: APIClient
) -> None:
    final = _won_custom(alice_api)
    stats = _stats(anon_api, "alice", "custom")
    speed = final["result_stats"]["bbbv_per_s"]
    assert final["elapsed_ms"] > 0 and speed is not None
    assert _bests(stats) == (final["elapsed_ms"], final["id"], speed, [final["elapsed_ms"]])
    assert stats["best_bbbv_per_s_game_id"] == final["id"]
    assert stats["best_times"][0]["game_id"] == final["id"]
    # Still on no board: custom boards have none, and no other board gained a row.
    assert not PersonalRecord.objects.exists()
    assert anon_api.get("/api/leaderboards/custom/times").status_code == 404
    _verified(alice)


def test_first_tap_wins_of_custom_games_set_a_best_time_of_0(
    alice: User, alice_api: APIClient, anon_api: APIClient
) -> None:
    finals = [_first_tap_win(alice_api) for _ in range(3)]
    stats = _stats(anon_api, "alice", "custom")
    assert (stats["won"], stats["best_time_ms"], stats["best_time_game_id"]) == (
        3,
        0,
        finals[0]["id"],  # an equal time does not replace the earlier one
    )
    # A first-tap win has no 3BV/s (API.md, Fine points), so no best 3BV/s either.
    assert stats["best_bbbv_per_s"] is None
    assert [row["time_ms"] for row in stats["best_times"]] == [0, 0, 0]
    assert stats["average_win_ms"] == 0
    _verified(alice)


def test_a_guests_wins_set_the_guests_own_bests_and_reach_no_board(anon_api: APIClient) -> None:
    client, name = _guest()
    wins = [_won(client) for _ in range(2)]
    assert {w["unranked_reason"] for w in wins} == {"guest"}
    fastest = min(wins, key=lambda w: (w["elapsed_ms"], w["ended_at"]))
    own = client.get("/api/me").json()["stats"]["beginner"]
    assert own == _stats(anon_api, name, "beginner")
    assert (own["won"], own["best_time_ms"], own["best_time_game_id"]) == (
        2,
        fastest["elapsed_ms"],
        fastest["id"],
    )
    assert sorted(row["time_ms"] for row in own["best_times"]) == sorted(
        w["elapsed_ms"] for w in wins
    )
    first_tap = _first_tap_win(client)
    assert first_tap["unranked_reason"] == "custom"  # a custom board's reason comes first
    assert _stats(anon_api, name, "custom")["best_time_ms"] == 0
    # Only ranked games reach a leaderboard.
    for kind in ("times", "speed", "streaks"):
        assert name not in players_on(board(anon_api, "beginner", kind))
    guest = User.objects.get(username=name)
    assert not PersonalRecord.objects.filter(user=guest).exists()
    _verified(guest)


def test_a_paused_win_sets_no_best_in_any_bucket(
    alice: User, alice_api: APIClient, anon_api: APIClient
) -> None:
    """A custom or guest game keeps its first reason (`custom`, `guest`) when it is paused,
    and the pause still keeps it out of the bests."""
    _won_custom(alice_api, paused=True)
    _assert_no_bests(_stats(anon_api, "alice", "custom"), won=1)
    paused = _won(alice_api, paused=True)
    assert paused["unranked_reason"] == "paused"
    _assert_no_bests(_stats(anon_api, "alice", "beginner"), won=1)
    client, name = _guest()
    assert _won(client, paused=True)["unranked_reason"] == "guest"
    _assert_no_bests(_stats(anon_api, name, "beginner"), won=1)
    # An unpaused custom win after them sets the custom best.
    final = _won_custom(alice_api)
    assert _stats(anon_api, "alice", "custom")["best_time_ms"] == final["elapsed_ms"]
    _verified(alice, User.objects.get(username=name))


def test_a_held_win_sets_no_best_until_staff_clear_it(
    settings: Any, alice: User, alice_api: APIClient, anon_api: APIClient
) -> None:
    ship_limits(settings)
    settings.GAME_TEST_SEED = "fairplay"  # tests/play/test_fairplay_review.py: long enough a game
    held = win(alice_api, start(alice_api, "intermediate")["id"])
    assert (held["state"], held["unranked_reason"]) == ("won", "review")
    _assert_no_bests(_stats(anon_api, "alice", "intermediate"), won=1)
    _verified(alice)
    staff = User.objects.create_user(username="referee", is_staff=True)
    fairplay.review_clear(review_id=Review.objects.get(game_id=held["id"]).pk, staff=staff)
    stats = _stats(anon_api, "alice", "intermediate")
    assert (stats["best_time_ms"], stats["best_time_game_id"]) == (held["elapsed_ms"], held["id"])
    _verified(alice)


def test_a_flagged_accounts_wins_set_no_best_not_even_a_custom_one(
    alice: User, alice_api: APIClient, anon_api: APIClient
) -> None:
    fairplay.account_flag(user=alice)
    custom = _won_custom(alice_api)
    assert custom["unranked_reason"] == "custom"  # the first reason; the account is flagged
    _assert_no_bests(_stats(anon_api, "alice", "custom"), won=1)
    ranked_level = _won(alice_api)
    assert ranked_level["unranked_reason"] == "flagged"
    _assert_no_bests(_stats(anon_api, "alice", "beginner"), won=1)
