"""RULES.md, Win and loss (Decided) and Time: before the end nothing about closed cells -- 3BV
included -- leaves the server through any endpoint, and a paused game's board is hidden from
every response."""

from __future__ import annotations

import json
from typing import Any

import pytest

from games.play.models import Game, GameAnalysis, GameProbabilities
from tests.support.boards import mines
from tests.support.http import SAFE_BOARD_CHARS, post, start

pytestmark = pytest.mark.django_db


def _every_public_read(api: Any, game_id: str) -> dict[str, Any]:
    return {
        "game": api.get(f"/api/games/{game_id}").json(),
        "list": api.get("/api/games").json(),
        "playing": api.get("/api/games?state=playing").json(),
        "paused": api.get("/api/games?state=paused").json(),
        "by_user": api.get("/api/games?user=alice").json(),
        "moves": api.get(f"/api/games/{game_id}/moves").json(),
        # The replay's probability overlay (docs/ANALYSIS.md): made from the layout too.
        "probabilities": api.get(f"/api/games/{game_id}/probabilities?step=0").json(),
        "profile": api.get("/api/users/alice").json(),
        "luck": api.get("/api/users/alice/luck").json(),
        "times": api.get("/api/leaderboards/beginner/times").json(),
        "speed": api.get("/api/leaderboards/beginner/speed").json(),
        "streaks": api.get("/api/leaderboards/beginner/streaks").json(),
    }


def _boards(reads: dict[str, Any]) -> list[Any]:
    games = [reads["game"]]
    for key in ("list", "playing", "paused", "by_user"):
        games += reads[key]["results"]
    return [g["board"] for g in games]


def _assert_nothing_leaks(reads: dict[str, Any], game_id: str) -> None:
    text = json.dumps(reads)
    assert '"bbbv"' not in text and '"bbbv_solved"' not in text
    assert '"result_stats": {' not in text
    for rows in _boards(reads):
        assert rows is None or set("".join(rows)) <= SAFE_BOARD_CHARS
    # The analysis is computed from the layout: null in every answer before the end.
    assert '"analysis": null' in text and '"analysis": {' not in text
    assert '"forced_guess' not in text and '"p_mine"' not in text
    assert reads["probabilities"]["error"]["code"] == "game_not_over"
    # Its luck too (docs/STATS.md, Luck, measured): no game's, and no coin flip in a player's.
    assert '"survival_chance"' not in text
    for luck in reads["luck"]["levels"].values():
        assert luck["months"] == [] and (luck["coin_flips_won"], luck["coin_flips_lost"]) == (0, 0)
    for bucket in reads["profile"]["stats"].values():
        assert (bucket["coin_flips_won"], bucket["coin_flips_lost"], bucket["luck"]) == (0, 0, 0)
    assert reads["profile"]["recent_games"] == []
    assert all(b["played"] == 0 for b in reads["profile"]["stats"].values())
    for board in ("times", "speed", "streaks"):
        assert reads[board]["count"] == 0
    moves = reads["moves"]["results"]
    assert all(set(m) == {"seq", "action", "x", "y", "at_ms", "flagged"} for m in moves)
    stored = Game.objects.get(pk=game_id)
    assert stored.bbbv is not None  # the server knows it; nobody else does


def test_a_running_game_shows_nothing_of_its_closed_cells_or_3bv_anywhere(
    alice_api, anon_api, bob_api
):
    game = start(alice_api)
    x, y = sorted(mines(game["id"]))[0]
    post(alice_api, game["id"], "flag", {"x": x, "y": y})
    # Even a stored analysis (none is ever made before the end) shows nowhere.
    GameAnalysis.objects.create(
        game_id=game["id"],
        moves=[{"seq": 1, "label": "deduced"}],
        guesses_survived=1,
        survival_chance=0.5,
        expected_survivals=0.5,
    )
    GameProbabilities.objects.create(
        game_id=game["id"], steps=2, chunk=32, offsets=[0], data=b"", exact=True
    )
    for api in (alice_api, bob_api, anon_api):
        _assert_nothing_leaks(_every_public_read(api, game["id"]), game["id"])
    me = alice_api.get("/api/me").json()
    assert me["recent_games"] == [] and '"bbbv"' not in json.dumps(me)


def test_a_paused_game_hides_its_board_from_every_response(alice_api, anon_api):
    game = start(alice_api)
    gid = game["id"]
    first = post(alice_api, gid, "reveal", {"x": 4, "y": 4, "client_move_id": "a"})
    paused = post(alice_api, gid, "pause").json()
    assert paused["board"] is None
    assert post(alice_api, gid, "pause").json()["board"] is None  # the no-op too
    reads = _every_public_read(anon_api, gid)
    assert reads["game"]["state"] == "paused"
    assert all(rows is None for rows in _boards(reads))
    _assert_nothing_leaks(reads, gid)
    # API.md, Fine points: while paused a replay answers 409 game_paused (the board is hidden).
    replay = post(alice_api, gid, "reveal", {"x": 4, "y": 4, "client_move_id": "a"})
    assert replay.status_code == 409 and replay.json()["error"]["code"] == "game_paused"
    assert post(alice_api, gid, "resume").json()["board"] is not None
    again = post(alice_api, gid, "reveal", {"x": 4, "y": 4, "client_move_id": "a"}).json()
    assert again["seq"] == first.json()["seq"]


def test_after_the_end_the_layout_and_result_stats_are_shown_to_everyone(alice_api, anon_api):
    game = start(alice_api)
    post(alice_api, game["id"], "resign")
    seen = anon_api.get(f"/api/games/{game['id']}").json()
    assert "".join(seen["board"]).count("*") == 10
    assert seen["result_stats"]["bbbv"] == Game.objects.get(pk=game["id"]).bbbv
