"""Fair play on the daily (RULES.md, The daily challenge: the fair-play rules hold): a
superhuman daily win is held off the day's board until staff clear it, and a flagged account
leaves every daily board."""

from __future__ import annotations

import pytest

from accounts.models import User
from accounts.standings.models import DailyEntry
from games.play import fairplay
from games.play.models import Review
from tests.support.boards import board_of, safe_cells
from tests.support.personas import client_for

pytestmark = pytest.mark.django_db


def _win(api, game_id: str) -> None:
    for x, y in safe_cells(board_of(game_id)):
        answer = api.post(f"/api/games/{game_id}/reveal", {"x": x, "y": y}, format="json")
        if answer.status_code == 200 and answer.json()["game"]["state"] == "won":
            return
    raise AssertionError("not won")


def _board(level: str = "beginner") -> list[str]:
    rows = client_for(None).get(f"/api/leaderboards/{level}/daily").json()["results"]
    return [row["player"] for row in rows]


def test_a_superhuman_daily_win_is_held_then_cleared_back_onto_the_board(alice, settings):
    settings.FAIRPLAY_MAX_BBBV_PER_S = {k: 0.001 for k in settings.FAIRPLAY_MAX_BBBV_PER_S}
    settings.FAIRPLAY_MIN_BBBV = {k: 1 for k in settings.FAIRPLAY_MIN_BBBV}
    api = client_for(alice)
    game = api.post("/api/daily/beginner").json()
    _win(api, game["id"])
    review = Review.objects.get(game_id=game["id"])
    assert [f["check"] for f in review.findings] == ["bbbv_per_s"]
    entry = DailyEntry.objects.get(game_id=game["id"])
    assert entry.state == "won" and not entry.ranked and entry.pool == "none"
    assert _board() == []
    staff = User.objects.create_user(username="referee", is_staff=True)
    fairplay.review_clear(review_id=review.pk, staff=staff)
    assert _board() == ["alice"]
    # a daily win ranks on its day's board only: the solo boards stay empty
    times = client_for(None).get("/api/leaderboards/beginner/times?mode=no_guess").json()
    assert times["count"] == 0


def test_a_flagged_account_leaves_every_daily_board(alice, bob):
    for user in (alice, bob):
        client_for(user).post("/api/daily/beginner")
    assert sorted(_board()) == ["alice", "bob"]
    fairplay.account_flag(user=alice)
    assert _board() == ["bob"]
    assert DailyEntry.objects.get(user=alice).pool == "none"
