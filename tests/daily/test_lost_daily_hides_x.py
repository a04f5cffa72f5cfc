"""A lost daily shows its player only the cells they opened and flagged until the day ends
(API.md, Daily challenge: no mine, no `X`, no `!`): the mine they opened shows closed, in
every answer and frame the player gets; once the day is over the whole layout shows, `X`
included. The same holds for a race game until its race ends (API.md, Races)."""

from __future__ import annotations

from typing import Any

import pytest
from channels.db import database_sync_to_async

from accounts.models import User
from accounts.services import token_issue
from games.daily import rules, services
from games.play.models import Game
from tests.support.boards import board_of, mine_cell, safe_cells
from tests.support.personas import client_for
from tests.support.races import racing
from tests.support.sockets import TIMEOUT, connected, game_path, socket

LAYOUT_CHARS = "*X!"


def _shows_only_what_was_opened(rows: list[str], game_id: str, mine: tuple[int, int]) -> None:
    """No layout character anywhere, the mine opened shows closed, and every other cell is
    what the player's board holds (their numbers and flags)."""
    assert not set("".join(rows)) & set(LAYOUT_CHARS), rows
    x, y = mine
    assert rows[y][x] == "#"
    view = board_of(game_id).render(layout=False)
    expected = [row.replace("X", "#") for row in view]
    assert rows == expected


def _lose_by_rest(api: Any, game_id: str) -> tuple[dict[str, Any], tuple[int, int]]:
    x, y = mine_cell(board_of(game_id))
    answer = api.post(f"/api/games/{game_id}/reveal", {"x": x, "y": y}, format="json")
    assert answer.status_code == 200 and answer.json()["game"]["state"] == "lost"
    return answer.json(), (x, y)


@pytest.mark.django_db
def test_a_lost_daily_shows_its_player_no_x_over_rest_until_the_day_ends(alice: User) -> None:
    api = client_for(alice)
    game = api.post("/api/daily/beginner").json()
    x, y = safe_cells(board_of(game["id"]))[0]
    flagged = safe_cells(board_of(game["id"]))[-1]
    api.post(f"/api/games/{game['id']}/reveal", {"x": x, "y": y}, format="json")
    api.post(f"/api/games/{game['id']}/flag", dict(zip("xy", flagged, strict=True)), format="json")
    lost, mine = _lose_by_rest(api, game["id"])
    # the move's own answer, the game, the daily's overview and the daily asked for again
    day = api.get("/api/daily").json()
    overview = next(level["game"] for level in day["levels"] if level["level"] == "beginner")
    again = api.post("/api/daily/beginner")
    assert again.status_code == 200
    for answer in (lost["game"], api.get(f"/api/games/{game['id']}").json(), overview):
        _shows_only_what_was_opened(answer["board"], game["id"], mine)
    _shows_only_what_was_opened(again.json()["board"], game["id"], mine)
    fx, fy = flagged
    assert lost["game"]["board"][fy][fx] == "F"  # a flag on a safe cell, not yet a `!`
    # The day over, the whole layout is shown, the mine she opened as `X`.
    day_of = rules.parse_day(game["daily"])
    assert day_of is not None
    assert services.daily_close(day=day_of, level="beginner", now=rules.day_end(day_of))
    public = api.get(f"/api/games/{game['id']}").json()["board"]
    assert public[mine[1]][mine[0]] == "X" and "*" in "".join(public)
    assert public[fy][fx] == "!"


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_thread_connections")
async def test_a_lost_daily_shows_its_player_no_x_on_the_socket(alice: User) -> None:
    def setup() -> tuple[Game, str, tuple[int, int]]:
        game, _ = services.daily_start(player=alice, level="beginner")
        return game, token_issue(user=alice)[1], mine_cell(board_of(game))

    game, token, mine = await database_sync_to_async(setup)()
    own = socket(game_path(game), token=token)
    state = await connected(own)
    assert state["type"] == "state"
    await own.send_json_to({"action": "reveal", "x": mine[0], "y": mine[1]})
    ended = await own.receive_json_from(timeout=TIMEOUT)
    while ended["type"] != "ended":
        ended = await own.receive_json_from(timeout=TIMEOUT)
    await own.disconnect()
    assert ended["game"]["state"] == "lost"
    await database_sync_to_async(_shows_only_what_was_opened)(
        ended["game"]["board"], str(game.id), mine
    )
    # A socket opened after the loss gets the same board in its `state`.
    again = socket(game_path(game), token=token)
    state = await connected(again)
    await again.disconnect()
    await database_sync_to_async(_shows_only_what_was_opened)(
        state["game"]["board"], str(game.id), mine
    )


@pytest.mark.django_db
def test_a_lost_race_game_shows_its_player_no_x_until_the_race_ends(
    alice_api: Any, bob_api: Any
) -> None:
    race = racing(alice_api, [bob_api])
    game_id = next(r["game"] for r in race["racers"] if r["player"] == "bob")
    lost, mine = _lose_by_rest(bob_api, game_id)
    _shows_only_what_was_opened(lost["game"]["board"], game_id, mine)
    _shows_only_what_was_opened(bob_api.get(f"/api/games/{game_id}").json()["board"], game_id, mine)
