"""RULES.md, Win and loss and No-guess boards: a no-guess game leaks no more than a classic one.
Before the end nothing about its closed cells (nor its 3BV) leaves the server through any read,
the no-guess boards and `stats_no_guess` included; it shows nothing before its first tap
either, when its layout does not exist yet."""

from __future__ import annotations

import json
from typing import Any

import pytest

from games.play.models import Game
from tests.support.boards import mines
from tests.support.http import SAFE_BOARD_CHARS, post
from tests.support.noguess import start_no_guess

pytestmark = pytest.mark.django_db


def _reads(api: Any, game_id: str) -> dict[str, Any]:
    reads = {
        "game": api.get(f"/api/games/{game_id}").json(),
        "list": api.get("/api/games").json(),
        "playing": api.get("/api/games?state=playing").json(),
        "by_user": api.get("/api/games?user=alice").json(),
        "moves": api.get(f"/api/games/{game_id}/moves").json(),
        "profile": api.get("/api/users/alice").json(),
    }
    for board in ("times", "speed", "streaks"):
        for mode in ("classic", "no_guess"):
            reads[f"{board}:{mode}"] = api.get(
                f"/api/leaderboards/beginner/{board}", {"mode": mode}
            ).json()
    return reads


def _assert_nothing_leaks(reads: dict[str, Any]) -> None:
    text = json.dumps(reads)
    assert '"bbbv"' not in text and '"bbbv_solved"' not in text
    assert '"result_stats": {' not in text
    games = [
        reads["game"],
        *(g for k in ("list", "playing", "by_user") for g in reads[k]["results"]),
    ]
    assert all(g["no_guess"] is True for g in games)
    for game in games:
        assert game["board"] is None or set("".join(game["board"])) <= SAFE_BOARD_CHARS
    profile = reads["profile"]
    assert profile["recent_games"] == []
    for stats in ("stats", "stats_no_guess"):
        assert all(b["played"] == 0 for b in profile[stats].values())
    for key, board in reads.items():
        if ":" in key:
            assert board["count"] == 0, key
    moves = reads["moves"]["results"]
    assert all(set(m) == {"seq", "action", "x", "y", "at_ms", "flagged"} for m in moves)


def test_a_running_no_guess_game_shows_nothing_of_its_closed_cells_anywhere(
    alice_api, bob_api, anon_api
):
    game = start_no_guess(alice_api, "beginner")
    x, y = sorted(mines(game["id"]))[0]
    post(alice_api, game["id"], "flag", {"x": x, "y": y})
    for api in (alice_api, bob_api, anon_api):
        _assert_nothing_leaks(_reads(api, game["id"]))
    assert Game.objects.get(pk=game["id"]).bbbv is not None  # the server knows; nobody else


def test_a_no_guess_game_before_its_first_tap_has_no_layout_at_all(alice_api, anon_api):
    created = alice_api.post("/api/games", {"level": "beginner", "no_guess": True}, format="json")
    game = created.json()
    assert game["no_guess"] is True and set("".join(game["board"])) == {"#"}
    stored = Game.objects.get(pk=game["id"])
    assert stored.bbbv is None and stored.state == "new"
    assert "*" not in "".join(anon_api.get(f"/api/games/{game['id']}").json()["board"])
