"""No-flag (NF) records (docs/STATS.md, No-flag records): a game won without a flag ever placed
is NF; the times and speed boards take `?style=nf` beside the standard board (`all`, the
default); a profile's buckets carry the NF bests; anything but `all` or `nf` is 400
`invalid_style`, and a streak board has no NF style."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any
from unittest import mock

import pytest
from rest_framework.test import APIClient

from accounts.models import User
from accounts.standings.records import GameEnd, Summary, stats_after
from accounts.standings.stats import record_game_end
from games.play.models import Game
from tests.support.boards import board_of, mine_cell, win
from tests.support.http import assert_error, post, start
from tests.support.personas import PASSWORD

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 6, 30, 12, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def _seeded(settings: Any) -> None:
    settings.GAME_TEST_SEED = "nf-records"  # a beginner layout a first tap at (4, 4) won't clear


def _won(api: APIClient, *, flag_first: bool, seconds: int) -> dict[str, Any]:
    """A beginner game won through the API in `seconds` s, with a flag placed or none."""
    game = start(api, "beginner")
    assert game["state"] == "playing"
    if flag_first:
        x, y = mine_cell(board_of(game["id"]))
        assert post(api, game["id"], "flag", {"x": x, "y": y}).status_code == 200
    Game.objects.filter(pk=game["id"]).update(
        started_at=Game.objects.get(pk=game["id"]).started_at - timedelta(seconds=seconds)
    )
    final = win(api, game["id"])
    assert final["state"] == "won"
    return final


def _rows(api: APIClient, path: str, **params: str) -> list[tuple[str, Any]]:
    response = api.get(f"/api/leaderboards/{path}", params)
    assert response.status_code == 200, response.content
    key = "time_ms" if "/times" in path else "bbbv_per_s"
    return [(row["player"], row[key]) for row in response.json()["results"]]


def test_a_win_without_a_flag_ranks_on_the_nf_boards_and_a_flagged_win_does_not(
    alice_api: APIClient, bob_api: APIClient, anon_api: APIClient
) -> None:
    nf = _won(alice_api, flag_first=False, seconds=9)
    flagged = _won(bob_api, flag_first=True, seconds=5)
    assert (nf["result_stats"]["no_flags"], flagged["result_stats"]["no_flags"]) == (True, False)
    everyone = [("bob", flagged["elapsed_ms"]), ("alice", nf["elapsed_ms"])]
    assert _rows(anon_api, "beginner/times") == everyone  # `all` is the default
    assert _rows(anon_api, "beginner/times", style="all") == everyone
    assert _rows(anon_api, "beginner/times", style="nf") == [("alice", nf["elapsed_ms"])]
    for period in ("all", "day"):
        speed = _rows(anon_api, "beginner/speed", style="nf", period=period)
        assert speed == [("alice", nf["result_stats"]["bbbv_per_s"])]
    page = alice_api.get("/api/leaderboards/beginner/times", {"style": "nf"}).json()
    assert (page["count"], page["me"]["rank"]) == (1, 1)
    page = bob_api.get("/api/leaderboards/beginner/times", {"style": "nf"}).json()
    assert page["me"] is None

    alice = anon_api.get("/api/users/alice").json()["stats"]["beginner"]
    assert (alice["nf_best_time_ms"], alice["nf_best_time_game_id"]) == (nf["elapsed_ms"], nf["id"])
    assert alice["nf_best_bbbv_per_s"] == nf["result_stats"]["bbbv_per_s"]
    assert alice["nf_best_bbbv_per_s_game_id"] == nf["id"]
    bob = anon_api.get("/api/users/bob").json()["stats"]["beginner"]
    assert (bob["best_time_ms"], bob["nf_best_time_ms"]) == (flagged["elapsed_ms"], None)
    assert (bob["nf_best_bbbv_per_s"], bob["nf_best_bbbv_per_s_game_id"]) == (None, None)


def _ended(user: User, *, ms: int, speed: float, no_flags: bool, at: datetime, **where: Any) -> str:
    gid = uuid.uuid4()
    end = GameEnd(
        won=True, game_id=gid, elapsed_ms=ms, bbbv_per_s=speed, ended_at=at, no_flags=no_flags
    )
    record_game_end(end=end, user_id=user.pk, level="beginner", **where)
    return str(gid)


def test_the_nf_boards_keep_periods_modes_and_pools_apart(anon_api: APIClient) -> None:
    p1, p2, p3, p4 = (
        User.objects.create_user(username=f"p{i}", password=PASSWORD) for i in range(1, 5)
    )
    _ended(p1, ms=9_000, speed=2.0, no_flags=True, at=NOW - timedelta(hours=2))
    _ended(p2, ms=5_000, speed=3.0, no_flags=False, at=NOW - timedelta(hours=1))
    _ended(p3, ms=7_000, speed=2.5, no_flags=True, at=NOW - timedelta(days=9))
    _ended(p3, ms=6_000, speed=4.0, no_flags=False, at=NOW - timedelta(hours=3))
    _ended(p4, ms=4_000, speed=5.0, no_flags=True, at=NOW, no_guess=True)
    with mock.patch("django.utils.timezone.now", return_value=NOW):
        times = lambda **q: _rows(anon_api, "beginner/times", **q)  # noqa: E731
        assert times() == [("p2", 5_000), ("p3", 6_000), ("p1", 9_000)]
        # p3's flagged 6 s does not count; their NF 7 s is 9 days old.
        assert times(style="nf") == [("p3", 7_000), ("p1", 9_000)]
        assert times(style="nf", period="week") == [("p1", 9_000)]
        assert times(style="nf", period="month") == [("p3", 7_000), ("p1", 9_000)]
        assert times(style="nf", mode="no_guess") == [("p4", 4_000)]
        assert times(style="nf", players="bots") == []
        speed = _rows(anon_api, "beginner/speed", style="nf")
        assert speed == [("p3", 2.5), ("p1", 2.0)]


@pytest.mark.parametrize("style", ["NF", "flags", "", "nf "])
def test_an_unknown_style_is_400_with_the_error_body(anon_api: APIClient, style: str) -> None:
    for board in ("times", "speed"):
        response = anon_api.get(f"/api/leaderboards/beginner/{board}", {"style": style})
        assert assert_error(response, 400, "invalid_style")["error"]["details"] == {
            "styles": ["all", "nf"]
        }


def test_a_streak_board_takes_only_the_standard_style(anon_api: APIClient) -> None:
    assert anon_api.get("/api/leaderboards/beginner/streaks", {"style": "all"}).status_code == 200
    response = anon_api.get("/api/leaderboards/beginner/streaks", {"style": "nf"})
    assert_error(response, 400, "invalid_style")


def test_an_nf_win_sets_the_nf_bests_and_a_flagged_one_only_the_bests() -> None:
    def end(ms: int, speed: float, no_flags: bool) -> GameEnd:
        return GameEnd(
            won=True,
            game_id=uuid.uuid4(),
            elapsed_ms=ms,
            bbbv_per_s=speed,
            ended_at=NOW,
            no_flags=no_flags,
        )

    nf_slow, flagged_fast, nf_faster = (
        end(9_000, 1.0, True),
        end(4_000, 3.0, False),
        end(8_000, 2.0, True),
    )
    s, _ = stats_after(Summary(), nf_slow)
    assert (s.best_time_ms, s.nf_best_time_ms, s.nf_best_time_game) == (
        9_000,
        9_000,
        nf_slow.game_id,
    )
    s, result = stats_after(s, flagged_fast)
    assert (s.best_time_ms, s.best_bbbv_per_s) == (4_000, 3.0) and result.best_time
    assert (s.nf_best_time_ms, s.nf_best_bbbv_per_s) == (9_000, 1.0)  # untouched
    s, result = stats_after(s, nf_faster)
    assert not result  # no best of the standard board
    assert (s.nf_best_time_ms, s.nf_best_bbbv_per_s) == (8_000, 2.0)
    assert (s.nf_best_time_game, s.nf_best_bbbv_per_s_game) == (nf_faster.game_id,) * 2
