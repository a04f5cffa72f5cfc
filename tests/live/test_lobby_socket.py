"""/ws/live: the "live now" feed. Games starting and ending, and new personal records."""

from __future__ import annotations

from typing import Any

from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from games.play import services
from tests.support.personas import SOCKET_TESTS
from tests.support.sockets import (
    TIMEOUT,
    connected,
    connected_player,
    play_to_the_end,
    rest_move,
    socket,
)

pytestmark = SOCKET_TESTS


async def about(comm: WebsocketCommunicator, game_id: str, count: int) -> list[dict[str, Any]]:
    """The next `count` lobby events about one game (the lobby is shared by every game)."""
    found: list[dict[str, Any]] = []
    while len(found) < count:
        event = await comm.receive_json_from(timeout=TIMEOUT)
        if game_id in (event.get("id"), event.get("game_id")):
            found.append(event)
    return found


async def test_the_lobby_starts_with_the_running_games_newest_first(alice, bob, new_game):
    untapped = await new_game(alice, "beginner")
    alice_playing = await new_game(alice, "expert")
    bob_playing = await new_game(bob, "expert")
    ended = await new_game(bob, "beginner")
    for player, game in ((alice, alice_playing), (bob, bob_playing), (bob, ended)):
        await rest_move(player, game, "reveal", 4, 4)
    await database_sync_to_async(services.game_resign)(game_id=ended.id, player=bob)

    lobby = socket("/ws/live")
    live = await connected(lobby)
    assert live["type"] == "live"
    ids = [g["id"] for g in live["games"]]
    assert ids == [str(bob_playing.id), str(alice_playing.id)]
    assert str(untapped.id) not in ids
    first = live["games"][0]
    assert first == {
        "id": str(bob_playing.id),
        "player": "bob",
        "player_kind": "human",
        "level": "expert",
        "no_guess": False,
        "width": 30,
        "height": 16,
        "state": "playing",
        "end_reason": None,
        "ranked": True,
        "elapsed_ms": first["elapsed_ms"],
    }
    await lobby.disconnect()


async def test_the_lobby_hears_a_game_start_and_end_and_a_new_record(alice, alice_token, new_game):
    lobby = socket("/ws/live")
    await connected(lobby)
    game = await new_game(alice, "beginner")
    (started,) = await about(lobby, str(game.id), 1)
    assert started["type"] == "game_started"
    assert (started["player"], started["level"], started["state"]) == ("alice", "beginner", "new")

    player = await connected_player(game, alice_token)
    await play_to_the_end(player, game)
    news = await about(lobby, str(game.id), 1)
    while news[-1]["type"] != "game_ended":  # records are published before the end
        news += await about(lobby, str(game.id), 1)
    assert {event["type"] for event in news} == {"record", "game_ended"}
    ended = next(e for e in news if e["type"] == "game_ended")
    assert (ended["state"], ended["end_reason"]) == ("won", "cleared")
    record = next(e for e in news if e["type"] == "record")
    assert record["player"] == "alice" and record["level"] == "beginner"
    assert "board" not in ended and "board" not in record
    for comm in (player, lobby):
        await comm.disconnect()


async def test_the_lobby_is_read_only(db):
    lobby = socket("/ws/live")
    await connected(lobby)
    await lobby.send_json_to({"action": "reveal", "x": 0, "y": 0})
    error = await lobby.receive_json_from(timeout=TIMEOUT)
    assert error["type"] == "error" and error["error"]["code"] == "invalid"
    await lobby.disconnect()
