"""Nothing leaks before midnight (RULES.md, The daily challenge; API.md): until the day ends,
nobody but its player sees a daily game's board, moves, replay, socket or analysis, and a
player who lost sees only the cells they opened. A finished player's second account learns
nothing from any answer or frame. After the day everything is public."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.utils import timezone

from accounts.models import User
from accounts.services import token_issue
from frontend.previews import board_picture
from games.daily import rules, services
from games.engine import Board
from games.play.analysis_jobs import AnalysisWorker, analyse_game
from games.play.models import GameAnalysis
from tests.support.boards import board_of, mine_cell, safe_cells
from tests.support.personas import client_for
from tests.support.sockets import only_its_player_watches

LAYOUT_CHARS = "*X!"


def _boards(value: Any) -> list[list[str]]:
    """Every `board` of an answer, wherever it sits."""
    found: list[list[str]] = []
    if isinstance(value, dict):
        for key, inner in value.items():
            if key == "board" and isinstance(inner, list):
                found.append(inner)
            else:
                found += _boards(inner)
    elif isinstance(value, list):
        for inner in value:
            found += _boards(inner)
    return found


def _assert_no_layout(answer: Any, game_id: str, rendered: list[str]) -> None:
    """No board in `answer` shows a mine or a wrong flag, none is the game's whole ended
    board, and the game's moves are in none of it."""
    for rows in _boards(answer):
        assert not any(ch in LAYOUT_CHARS for ch in "".join(rows)), rows
        assert rows != rendered
    text = json.dumps(answer)
    assert '"changes"' not in text


def _lose(api, game_id: str) -> dict[str, Any]:
    x, y = mine_cell(board_of(game_id))
    answer = api.post(f"/api/games/{game_id}/reveal", {"x": x, "y": y}, format="json").json()
    assert answer["game"]["state"] == "lost"
    return answer


@pytest.mark.django_db
def test_a_finished_players_second_account_learns_nothing(alice, bob):
    alice_api, bob_api = client_for(alice), client_for(bob)
    game = alice_api.post("/api/daily/beginner").json()
    lost = _lose(alice_api, game["id"])
    # alice herself sees only what she opened: no mine, no X, no wrong flag, no analysis
    own = alice_api.get(f"/api/games/{game['id']}").json()
    assert not any(ch in "*!" for ch in "".join(own["board"]))
    assert "".join(lost["game"]["board"]).count("X") <= 1
    assert own["analysis"] is None and own["result_stats"] is None
    assert not analyse_game(game["id"])  # sealed: the worker leaves it for the day's end
    assert uuid.UUID(game["id"]) not in AnalysisWorker().pending()
    assert not GameAnalysis.objects.filter(game_id=game["id"]).exists()
    for path in ("replay.evf", "probabilities?step=0"):  # the overlay: docs/ANALYSIS.md
        own_file = alice_api.get(f"/api/games/{game['id']}/{path}")
        assert (own_file.status_code, own_file.json()["error"]["code"]) == (403, "daily_running")
    rendered = board_of(game["id"]).render()
    # bob, the second account, asks everything there is to ask
    detail = bob_api.get(f"/api/games/{game['id']}")
    assert detail.status_code == 200 and detail.json()["board"] is None
    assert detail.json()["analysis"] is None and detail.json()["result_stats"] is None
    for path in ("moves", "replay.evf", "probabilities?step=0"):
        refused = bob_api.get(f"/api/games/{game['id']}/{path}")
        assert (refused.status_code, refused.json()["error"]["code"]) == (403, "daily_running")
    answers = [
        detail.json(),
        bob_api.get("/api/games?user=alice").json(),
        bob_api.get("/api/games?state=lost").json(),
        bob_api.get("/api/users/alice").json(),
        bob_api.get("/api/users/alice/daily").json(),
        bob_api.get("/api/daily").json(),
        bob_api.get(f"/api/daily/{game['daily']}").json(),
        bob_api.get("/api/leaderboards/beginner/daily").json(),
        bob_api.get("/api/leaderboards/beginner/times").json(),
        client_for(None).get(f"/api/games/{game['id']}").json(),
    ]
    for answer in answers:
        _assert_no_layout(answer, game["id"], rendered)
    # the day's overview says she played and lost, and shows no start cell yet
    day = bob_api.get("/api/daily").json()
    beginner = next(level for level in day["levels"] if level["level"] == "beginner")
    assert beginner["players"] == 1 and beginner["winners"] == 0 and beginner["game"] is None
    assert "start_cell" not in beginner
    board = bob_api.get("/api/leaderboards/beginner/daily").json()
    assert [row["player"] for row in board["results"]] == ["alice"]
    assert board["results"][0]["state"] == "lost" and board["results"][0]["time_ms"] is None
    # bob's own daily is the same board: nothing he plays shows him alice's
    mine = bob_api.post("/api/daily/beginner").json()
    assert mine["board"] == game["board"]


@pytest.mark.django_db
def test_the_page_and_picture_of_a_daily_game_show_no_board_to_others(alice, bob):
    alice_api = client_for(alice)
    game = alice_api.post("/api/daily/beginner").json()
    _lose(alice_api, game["id"])
    page = client_for(bob).get(f"/games/{game['id']}")
    assert page.status_code == 200
    html = page.content.decode()
    assert not any(row in html for row in board_of(game["id"]).render() if "*" in row)
    picture = client_for(bob).get(f"/games/{game['id']}/preview.png")
    assert picture.status_code == 200
    closed = board_picture({**game, "board": None})
    assert picture.content == closed  # every cell drawn closed, as for a paused game


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_thread_connections")
async def test_sockets_on_a_daily_game_are_refused_to_everyone_but_its_player(
    alice: User, bob: User
) -> None:
    def setup() -> tuple[str, str, str]:
        game, _ = services.daily_start(player=alice, level="beginner")
        return str(game.id), token_issue(user=alice)[1], token_issue(user=bob)[1]

    game_id, alice_token, bob_token = await database_sync_to_async(setup)()
    state = await only_its_player_watches(game_id, alice_token, bob_token, "daily_running")
    assert state["game"]["daily"] == rules.day_of(timezone.now()).isoformat()


@pytest.mark.django_db
def test_after_the_day_everything_is_public(alice, bob):
    alice_api, bob_api = client_for(alice), client_for(bob)
    game = alice_api.post("/api/daily/beginner").json()
    x, y = safe_cells(board_of(game["id"]))[0]
    alice_api.post(f"/api/games/{game['id']}/reveal", {"x": x, "y": y}, format="json")
    running = bob_api.post("/api/daily/beginner").json()  # bob's is still running at midnight
    day = rules.parse_day(game["daily"])
    assert day is not None
    assert services.daily_close(day=day, level="beginner", now=rules.day_end(day))
    # bob's game ended at the day's end, as the server's abandon
    ended = bob_api.get(f"/api/games/{running['id']}").json()
    assert ended["state"] == "lost" and ended["end_reason"] == "abandoned"
    # alice's game is public now, layout and moves included, and its analysis follows
    alice_api.post(f"/api/games/{game['id']}/resign")  # refused or not, the day has ended
    public = bob_api.get(f"/api/games/{game['id']}").json()
    assert public["state"] == "lost"
    assert public["board"] == Board.decode(bytes(board_of(game["id"]).encode())).render()
    assert any(ch == "*" for ch in "".join(public["board"]))
    moves = bob_api.get(f"/api/games/{game['id']}/moves")
    assert moves.status_code == 200 and moves.json()["count"] >= 2
    assert bob_api.get(f"/api/games/{game['id']}/replay.evf").status_code == 200
    # the analysis worker finds it now that the day is over (its own queue: docs/DAILY.md)
    assert uuid.UUID(game["id"]) in AnalysisWorker().pending()
    assert analyse_game(game["id"])
    assert bob_api.get(f"/api/games/{game['id']}").json()["analysis"] is not None
    assert bob_api.get(f"/api/games/{game['id']}/probabilities?step=0").status_code == 200
    past = bob_api.get(f"/api/daily/{game['daily']}").json()
    beginner = next(level for level in past["levels"] if level["level"] == "beginner")
    assert past["over"] is True and set(beginner["start_cell"]) == {"x", "y"}
