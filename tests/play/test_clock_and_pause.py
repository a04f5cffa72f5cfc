"""The server clock and pause (RULES.md, Time): elapsed time is the sum of the active
intervals, pauses hide the board and refuse moves; a frozen clock drives the tests."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from unittest import mock

import pytest

from tests.support.boards import mines, safe_closed
from tests.support.http import assert_error, new_game, post

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 11, 29, 12, 0, 0, tzinfo=UTC)


class FrozenClock:
    """Patches django.utils.timezone.now, which services and presenters read."""

    def __init__(self) -> None:
        self.now = T0
        self._patch = mock.patch("django.utils.timezone.now", side_effect=lambda: self.now)

    def __enter__(self) -> FrozenClock:
        self._patch.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._patch.stop()

    def advance(self, **kwargs: float) -> None:
        self.now += timedelta(**kwargs)


def test_elapsed_time_counts_active_time_and_excludes_pauses(alice_api):
    with FrozenClock() as clock:
        game = new_game(alice_api)
        clock.advance(seconds=30)  # before the first tap: the clock has not started
        assert alice_api.get(f"/api/games/{game['id']}").json()["elapsed_ms"] == 0
        post(alice_api, game["id"], "reveal", {"x": 4, "y": 4})
        clock.advance(seconds=5)
        mx, my = sorted(mines(game["id"]))[0]
        flagged = post(alice_api, game["id"], "flag", {"x": mx, "y": my}).json()
        assert flagged["game"]["elapsed_ms"] == 5000
        clock.advance(seconds=2)
        paused = post(alice_api, game["id"], "pause").json()
        assert paused["state"] == "paused" and paused["elapsed_ms"] == 7000
        clock.advance(minutes=10)
        assert alice_api.get(f"/api/games/{game['id']}").json()["elapsed_ms"] == 7000
        resumed = post(alice_api, game["id"], "resume").json()
        assert resumed["elapsed_ms"] == 7000
        clock.advance(milliseconds=1500)
        assert alice_api.get(f"/api/games/{game['id']}").json()["elapsed_ms"] == 8500
        moves = alice_api.get(f"/api/games/{game['id']}/moves").json()["results"]
        assert [m["at_ms"] for m in moves] == [0, 5000, 7000, 7000]
        clock.advance(seconds=1)
        final = post(alice_api, game["id"], "resign").json()
        assert final["elapsed_ms"] == 9500
        clock.advance(hours=1)
        assert alice_api.get(f"/api/games/{game['id']}").json()["elapsed_ms"] == 9500


def test_a_won_game_keeps_the_time_of_its_last_move(alice_api):
    with FrozenClock() as clock:
        game = new_game(alice_api)
        post(alice_api, game["id"], "reveal", {"x": 0, "y": 0})
        result = None
        for x, y in safe_closed(game["id"]):
            clock.advance(seconds=1)
            response = post(alice_api, game["id"], "reveal", {"x": x, "y": y}).json()
            if response["game"]["state"] == "won":
                result = response["game"]
                break
        assert result is not None
        assert result["elapsed_ms"] == (clock.now - T0) // timedelta(milliseconds=1)
        stats = result["result_stats"]
        assert stats["bbbv_per_s"] == round(stats["bbbv"] / (result["elapsed_ms"] / 1000), 3)


def test_resigning_a_paused_game_stops_the_clock_at_the_pause(alice_api):
    with FrozenClock() as clock:
        game = new_game(alice_api)
        post(alice_api, game["id"], "reveal", {"x": 4, "y": 4})
        clock.advance(seconds=3)
        post(alice_api, game["id"], "pause")
        clock.advance(seconds=100)
        assert post(alice_api, game["id"], "resign").json()["elapsed_ms"] == 3000


def test_a_paused_game_hides_its_board_and_refuses_moves(alice_api, anon_api):
    game = new_game(alice_api)
    post(alice_api, game["id"], "reveal", {"x": 4, "y": 4})
    paused = post(alice_api, game["id"], "pause").json()
    assert paused["board"] is None
    assert anon_api.get(f"/api/games/{game['id']}").json()["board"] is None
    assert anon_api.get("/api/games?state=paused").json()["results"][0]["board"] is None
    for action in ("reveal", "flag", "chord"):
        assert_error(post(alice_api, game["id"], action, {"x": 0, "y": 0}), 409, "game_paused")
    again = post(alice_api, game["id"], "pause")
    assert again.status_code == 200 and again.json()["seq"] == paused["seq"]
    resumed = post(alice_api, game["id"], "resume").json()
    assert resumed["state"] == "playing" and resumed["board"] is not None
    assert resumed["seq"] == paused["seq"] + 1
    assert post(alice_api, game["id"], "resume").json()["seq"] == resumed["seq"]


def test_an_idle_game_is_closed_when_its_player_next_acts(alice_api):
    with FrozenClock() as clock:
        game = new_game(alice_api)
        post(alice_api, game["id"], "reveal", {"x": 4, "y": 4})
        clock.advance(hours=24, seconds=1)
        assert_error(post(alice_api, game["id"], "flag", {"x": 0, "y": 0}), 409, "game_over")
        ended = alice_api.get(f"/api/games/{game['id']}").json()
        assert (ended["state"], ended["end_reason"]) == ("lost", "abandoned")
