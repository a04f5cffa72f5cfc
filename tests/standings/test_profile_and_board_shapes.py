"""API.md, Leaderboards and statistics + Fine points: `win_rate` a fraction, `recent_games`
the 20 newest ended games with exactly seven fields, and the rows, `me` and `around=me` of
each board, on games ended through the statistics or on a mine the test knows (the
black-box part: tests/contract/test_profiles_and_boards.py)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest

from accounts.models import User
from accounts.standings.records import GameEnd
from accounts.standings.stats import record_game_end
from tests.support.boards import mines
from tests.support.http import assert_error, new_game, post, start
from tests.support.personas import PASSWORD, client_for
from tests.support.shapes import RECENT_KEYS

pytestmark = pytest.mark.django_db


def test_win_rate_is_a_fraction_and_a_running_game_counts_nowhere_yet(alice_api, anon_api):
    lost = start(alice_api)
    post(alice_api, lost["id"], "resign")
    running = start(alice_api)  # started, not ended: not in the stats, not in recent_games
    profile = anon_api.get("/api/users/alice").json()
    beginner = profile["stats"]["beginner"]
    assert (beginner["played"], beginner["won"], beginner["win_rate"]) == (1, 0, 0)
    assert [g["id"] for g in profile["recent_games"]] == [lost["id"]]
    assert running["id"] not in str(profile)
    alice = User.objects.get(username="alice")
    _ended(alice, level="beginner", won=True, ms=5000, speed=2.0, at=datetime.now(UTC))
    beginner = anon_api.get("/api/users/alice").json()["stats"]["beginner"]
    assert beginner["win_rate"] == 0.5 and isinstance(beginner["win_rate"], float)


def test_recent_games_are_the_20_newest_ended_games_with_exactly_seven_fields(alice_api, anon_api):
    ended: list[str] = []
    for _ in range(22):
        game = start(alice_api, "beginner")
        x, y = sorted(mines(game["id"]))[0]
        post(alice_api, game["id"], "reveal", {"x": x, "y": y})
        ended.append(game["id"])
    new_game(alice_api, "expert")  # an untapped game is not an ended one
    recent = anon_api.get("/api/users/alice").json()["recent_games"]
    assert [g["id"] for g in recent] == ended[::-1][:20]
    for game in recent:
        assert set(game) == RECENT_KEYS
        assert (game["level"], game["state"], game["end_reason"]) == ("beginner", "lost", "mine")
        assert isinstance(game["elapsed_ms"], int)
        assert game["result_stats"]["bbbv_per_s"] is None
    mine = alice_api.get("/api/me").json()
    # /api/me adds only what its owner sees (API.md, The account's lifecycle)
    owner_only = {"email", "email_verified", "two_factor", "closed"}
    assert {k: v for k, v in mine.items() if k not in owner_only} == anon_api.get(
        "/api/users/alice"
    ).json()
    assert set(mine) - set(anon_api.get("/api/users/alice").json()) == owner_only


def _ended(
    user: User, *, level: str, won: bool, ms: int, speed: float | None, at: datetime
) -> None:
    """A game's end as the statistics record it (set-up without playing it)."""
    record_game_end(
        end=GameEnd(won=won, game_id=uuid.uuid4(), elapsed_ms=ms, bbbv_per_s=speed, ended_at=at),
        user_id=user.pk,
        level=level,
    )


def _win(user: User, *, ms: int, speed: float | None, at: datetime) -> None:
    _ended(user, level="expert", won=True, ms=ms, speed=speed, at=at)


@pytest.mark.parametrize("board", ["times", "speed", "streaks"])
def test_each_board_has_its_rows_and_me_and_around_me(alice, bob, board):
    now = datetime.now(UTC)
    others = [User.objects.create_user(username=f"p{i}", password=PASSWORD) for i in range(4)]
    for i, user in enumerate(others):
        for _ in range(i + 2):  # longer streaks for later players
            _win(user, ms=1000 + i, speed=5.0 - i, at=now - timedelta(hours=1))
    _win(alice, ms=9000, speed=0.5, at=now - timedelta(hours=2))
    alice_api, bob_api = client_for(alice), client_for(bob)
    path = f"/api/leaderboards/expert/{board}"
    page = alice_api.get(path, {"page_size": 2}).json()
    assert set(page) == {"count", "next", "previous", "results", "me"}
    assert page["count"] == 5 and len(page["results"]) == 2
    for row in page["results"]:
        assert ROW_KEYS[board] <= set(row)
    assert [r["rank"] for r in page["results"]] == [1, 2]
    assert page["me"]["player"] == "alice" and page["me"]["rank"] == 5
    assert ROW_KEYS[board] <= set(page["me"])
    around = alice_api.get(path, {"page_size": 2, "around": "me"}).json()
    assert [r["player"] for r in around["results"]] == ["alice"]
    assert around["me"] == page["me"] and around["previous"] is not None
    assert around["next"] is None
    # bob has no row: the first page, with me null; anonymous: me null, around=me 401
    nobody = bob_api.get(path, {"page_size": 2, "around": "me"}).json()
    assert nobody["me"] is None and nobody["results"] == page["results"]
    assert client_for(None).get(path).json()["me"] is None
    assert_error(client_for(None).get(path, {"around": "me"}), 401, "not_authenticated")


def test_streak_boards_sort_by_best_unless_sort_is_current(alice, bob, anon_api):
    now = datetime.now(UTC)
    for _ in range(3):
        _win(alice, ms=1000, speed=1.0, at=now)
    _ended(alice, level="expert", won=False, ms=10, speed=None, at=now)
    _win(alice, ms=1000, speed=1.0, at=now)
    for _ in range(2):
        _win(bob, ms=1000, speed=1.0, at=now)
    default = anon_api.get("/api/leaderboards/expert/streaks").json()["results"]
    assert [(r["player"], r["best_streak"], r["current_streak"]) for r in default] == [
        ("alice", 3, 1),
        ("bob", 2, 2),
    ]
    best = anon_api.get("/api/leaderboards/expert/streaks", {"sort": "best"}).json()["results"]
    assert best == default
    current = anon_api.get("/api/leaderboards/expert/streaks", {"sort": "current"}).json()
    assert [r["player"] for r in current["results"]] == ["bob", "alice"]


ROW_KEYS = {
    "times": {"rank", "player", "time_ms", "game_id", "achieved_at"},
    "speed": {"rank", "player", "bbbv_per_s", "game_id", "achieved_at"},
    "streaks": {"rank", "player", "best_streak", "current_streak"},
}
