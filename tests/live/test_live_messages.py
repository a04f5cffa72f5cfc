"""API.md, Live updates: every message of /ws/games/{id} carries `type` and the game's `seq`
after it, in the documented shapes; neither a game socket nor the lobby feed shows anything
of closed cells (3BV included) before the end."""

from __future__ import annotations

import json
from typing import Any

import pytest
from channels.db import database_sync_to_async

from games.play import services
from games.play.models import Game
from tests.support.sockets import TIMEOUT, connected, game_path, layout, next_of, socket

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("close_thread_connections"),
]

GAME_KEYS = {
    "id",
    "player",
    "level",
    "no_guess",
    "analysis",
    "width",
    "height",
    "mines",
    "state",
    "mines_left",
    "elapsed_ms",
    "created_at",
    "started_at",
    "ended_at",
    "ranked",
    "unranked_reason",
    "race",
    "daily",
    "end_reason",
    "result_stats",
    "seq",
    "board",
}
MOVE_KEYS = {"type", "seq", "action", "changes", "state", "mines_left", "elapsed_ms"}


def _before_end_shows_nothing(message: dict[str, Any]) -> None:
    text = json.dumps(message)
    assert '"bbbv' not in text, message
    game = message.get("game")
    if game is not None:
        assert game["result_stats"] is None
        assert not set("".join(game["board"] or [])) & set("*X!")
    assert all(c["v"] in "#F012345678" for c in message.get("changes", []))


async def test_every_game_message_has_a_type_and_the_seq_after_it(alice, alice_token):
    game = await database_sync_to_async(services.game_create)(player=alice, level="beginner")
    player = socket(game_path(game), token=alice_token)
    watcher = socket(game_path(game))
    state = await connected(player)
    assert (state["type"], state["seq"]) == ("state", 0)
    assert set(state) == {"type", "seq", "game"} and set(state["game"]) == GAME_KEYS
    assert state["game"]["elapsed_ms"] == 0
    await connected(watcher)

    await player.send_json_to({"action": "reveal", "x": 4, "y": 4, "client_move_id": "c1"})
    move = await next_of(watcher, "move")
    assert set(move) >= MOVE_KEYS and (move["seq"], move["action"]) == (1, "reveal")
    assert move == await next_of(player, "move")
    _before_end_shows_nothing(move)

    mine = next(
        (x, y) for y, row in enumerate(await layout(game)) for x, ch in enumerate(row) if ch == "*"
    )
    await player.send_json_to({"action": "flag", "x": mine[0], "y": mine[1], "flagged": True})
    flag = await next_of(watcher, "move")
    assert (flag["seq"], flag["changes"]) == (2, [{"x": mine[0], "y": mine[1], "v": "F"}])
    assert await next_of(player, "move") == flag

    await player.send_json_to({"action": "pause"})
    paused = await next_of(watcher, "paused")
    assert paused["seq"] == 3 and "board" not in json.dumps(paused)
    assert await next_of(player, "paused") == paused
    await player.send_json_to({"action": "pause"})  # a no-op: the sender alone, same seq
    no_op = await next_of(player, "state")
    assert no_op["seq"] == 3 and no_op["game"]["board"] is None
    assert await watcher.receive_nothing(timeout=0.1)

    await player.send_json_to({"action": "resume"})
    resumed = await next_of(watcher, "resumed")
    assert resumed["seq"] == 4 and resumed["game"]["board"] is not None
    _before_end_shows_nothing(resumed)
    assert await next_of(player, "resumed") == resumed

    await player.send_json_to({"action": "reveal", "x": 4, "y": 4, "client_move_id": "c1"})
    replay = await next_of(player, "move")
    assert (replay["seq"], replay["changes"]) == (1, move["changes"])

    await player.send_json_to({"action": "resign"})
    resign = await next_of(watcher, "move")
    assert (resign["seq"], resign["action"], resign["changes"]) == (5, "resign", [])
    ended = await next_of(watcher, "ended")
    assert ended["seq"] == 5 and set(ended) == {"type", "seq", "game"}
    assert ended["game"]["result_stats"]["bbbv"] >= 1
    assert "".join(ended["game"]["board"]).count("*") == 9  # the flagged mine stays F
    for comm in (player, watcher):
        await comm.disconnect()


async def test_the_lobby_feed_shows_no_3bv_and_no_board_before_the_end(alice, alice_token):
    lobby = socket("/ws/live")
    live = await connected(lobby)
    assert live == {"type": "live", "games": []}
    game = await database_sync_to_async(services.game_create)(player=alice, level="beginner")
    await database_sync_to_async(services.game_move)(
        game_id=game.id, player=alice, action="reveal", x=4, y=4
    )
    again = socket("/ws/live")
    snapshot = await connected(again)
    assert [g["id"] for g in snapshot["games"]] == [str(game.id)]
    started = await lobby.receive_json_from(timeout=TIMEOUT)
    assert started["type"] == "game_started"
    for message in (snapshot, started):
        text = json.dumps(message)
        assert "bbbv" not in text and "board" not in text and "result_stats" not in text
    stored = await database_sync_to_async(Game.objects.get)(pk=game.id)
    assert stored.bbbv is not None
    for comm in (lobby, again):
        await comm.disconnect()


async def test_the_lobby_hears_that_a_discarded_untapped_game_is_gone(alice):
    lobby = socket("/ws/live")
    await connected(lobby)
    create = database_sync_to_async(services.game_create)
    untapped = await create(player=alice, level="expert")
    started = await lobby.receive_json_from(timeout=TIMEOUT)
    assert (started["type"], started["id"]) == ("game_started", str(untapped.id))
    replacement = await create(player=alice, level="expert")
    gone = await lobby.receive_json_from(timeout=TIMEOUT)
    assert (gone["type"], gone["id"], gone["discarded"]) == ("game_ended", str(untapped.id), True)
    assert gone["state"] == "new" and gone["end_reason"] is None
    news = await lobby.receive_json_from(timeout=TIMEOUT)
    assert (news["type"], news["id"]) == ("game_started", str(replacement.id))
    await lobby.disconnect()


async def test_watchers_of_a_discarded_untapped_game_get_a_404_and_close_4404(alice, alice_token):
    create = database_sync_to_async(services.game_create)
    untapped = await create(player=alice, level="hard")
    watcher = socket(game_path(untapped))
    assert (await connected(watcher))["seq"] == 0
    await create(player=alice, level="hard")
    error = await watcher.receive_json_from(timeout=TIMEOUT)
    assert error["type"] == "error" and error["error"]["code"] == "not_found"
    closed = await watcher.receive_output(timeout=TIMEOUT)
    assert closed == {"type": "websocket.close", "code": 4404}
