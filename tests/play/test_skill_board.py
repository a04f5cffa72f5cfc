"""The `sort=skill` streak board (API.md, No-guess games and analysis): players by their best
skill streak, longest first, with `me` and the page shape of every board."""

from __future__ import annotations

import pytest

from games.play.analysis_jobs import AnalysisWorker
from tests.support.boards import win
from tests.support.http import assert_error, start


def wins(api, n: int) -> None:
    for _ in range(n):
        game = start(api, "beginner")
        if game["state"] != "won":
            assert win(api, game["id"])["state"] == "won"


@pytest.mark.django_db
def test_the_skill_board_ranks_the_longest_best_skill_streak_first(alice_api, bob_api, anon_api):
    wins(alice_api, 1)
    wins(bob_api, 2)
    board = anon_api.get("/api/leaderboards/beginner/streaks?sort=skill").json()
    assert board["count"] == 0  # nothing analysed yet: no skill streak yet
    while AnalysisWorker().run_once():
        pass
    board = anon_api.get("/api/leaderboards/beginner/streaks?sort=skill").json()
    assert [(r["rank"], r["player"], r["best_skill_streak"]) for r in board["results"]] == [
        (1, "bob", 2),
        (2, "alice", 1),
    ]
    assert board["results"][0]["skill_streak"] == 2 and board["results"][0]["best_streak"] == 2
    me = alice_api.get("/api/leaderboards/beginner/streaks?sort=skill").json()["me"]
    assert (me["rank"], me["player"], me["best_skill_streak"]) == (2, "alice", 1)


@pytest.mark.django_db
def test_an_unknown_sort_names_the_skill_sort_among_the_known(anon_api):
    body = assert_error(
        anon_api.get("/api/leaderboards/beginner/streaks?sort=luck"), 400, "invalid_sort"
    )
    assert "skill" in body["error"]["details"]["sorts"]


@pytest.mark.django_db
def test_the_skill_board_of_no_guess_games_is_its_own(alice_api, anon_api):
    wins(alice_api, 1)
    while AnalysisWorker().run_once():
        pass
    classic = anon_api.get("/api/leaderboards/beginner/streaks?sort=skill&mode=classic").json()
    no_guess = anon_api.get("/api/leaderboards/beginner/streaks?sort=skill&mode=no_guess")
    assert classic["count"] == 1
    assert no_guess.status_code == 200 and no_guess.json()["count"] == 0
