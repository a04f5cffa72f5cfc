"""What a client's frame can cost the server.

A 16 MiB frame from an anonymous watcher used to be parsed (json.loads) on the event loop;
watchers' frames are now never parsed, every frame is bounded (WS_MAX_FRAME_BYTES here,
uvicorn's --ws-max-size at the server), and odd JSON from the player is a 400, never a 500.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from channels.db import database_sync_to_async

from games.play.models import Game
from tests.support.personas import SOCKET_TESTS
from tests.support.sockets import game_path, until_closed
from tests.support.sockets import socket as ws

pytestmark = SOCKET_TESTS

LIMIT = 4096
ROOT = Path(__file__).resolve().parents[2]


async def opened(comm) -> dict:
    ok, _ = await comm.connect(timeout=3)
    assert ok
    return await comm.receive_json_from(timeout=3)


async def stored_seq(game) -> int:
    return (await database_sync_to_async(Game.objects.get)(pk=game.id)).seq


async def test_a_16_mib_frame_from_an_anonymous_watcher_is_refused_unread_and_closed_1009(
    alice, new_game
):
    game = await new_game(alice)
    watcher = ws(game_path(game))
    assert (await opened(watcher))["type"] == "state"
    huge = json.dumps({"action": "reveal", "x": 1, "y": 1, "pad": "x" * (16 * 1024 * 1024)})
    await watcher.send_to(text_data=huge)
    frames, code = await until_closed(watcher)
    assert [f["error"]["code"] for f in frames] == ["frame_too_large"]
    assert frames[0]["error"]["details"] == {"max_bytes": LIMIT}
    assert code == 1009


async def test_an_over_long_frame_from_the_player_is_refused_too_text_or_binary(
    alice, alice_token, new_game
):
    game = await new_game(alice)
    for frame in ({"text_data": "{" + " " * LIMIT + "}"}, {"bytes_data": b"\x00" * (LIMIT + 1)}):
        player = ws(game_path(game), token=alice_token)
        await opened(player)
        await player.send_to(**frame)
        frames, code = await until_closed(player)
        assert [f["error"]["code"] for f in frames] == ["frame_too_large"]
        assert code == 1009
        await player.disconnect()


async def test_the_limit_counts_utf8_bytes_not_characters(alice, alice_token, new_game):
    game = await new_game(alice)
    player = ws(game_path(game), token=alice_token)
    await opened(player)
    # 2,100 characters, 4,200 bytes: over the limit although shorter than it in characters.
    await player.send_to(
        text_data=json.dumps({"action": "pause", "pad": "é" * 2100}, ensure_ascii=False)
    )
    frames, code = await until_closed(player)
    assert [f["error"]["code"] for f in frames] == ["frame_too_large"] and code == 1009


async def test_a_move_padded_to_exactly_the_limit_is_still_played(alice, alice_token, new_game):
    game = await new_game(alice)
    player = ws(game_path(game), token=alice_token)
    await opened(player)
    move = json.dumps({"action": "reveal", "x": 4, "y": 4})
    await player.send_to(text_data=move[:-1] + " " * (LIMIT - len(move)) + "}")
    answer = await player.receive_json_from(timeout=3)
    assert (answer["type"], answer["seq"]) == ("move", 1)
    await player.disconnect()


@pytest.mark.parametrize(
    ("who", "code", "close"),
    [("anonymous", "not_authenticated", 4401), ("bob", "not_your_game", 4403)],
)
async def test_a_watchers_frames_are_never_parsed_and_a_few_close_the_socket(
    alice, bob_token, new_game, who, code, close
):
    game = await new_game(alice)
    watcher = ws(game_path(game), token=bob_token if who == "bob" else None)
    await opened(watcher)
    # Not JSON at all: a parser would have said malformed_json.
    for frame in ["{not json", "[" * 2000 + "]" * 2000, '{"action": ["reveal"]}', "x", "y"]:
        await watcher.send_to(text_data=frame)
    await watcher.send_to(text_data='{"action": "reveal", "x": 1, "y": 1}')  # after the close
    frames, closed_with = await until_closed(watcher)
    assert [f["error"]["code"] for f in frames] == [code] * 5
    assert closed_with == close
    assert await watcher.receive_nothing(timeout=0.1)
    assert await stored_seq(game) == 0


async def test_a_watchers_binary_frame_is_refused_the_same_way(alice, bob_token, new_game):
    game = await new_game(alice)
    watcher = ws(game_path(game), token=bob_token)
    await opened(watcher)
    await watcher.send_to(bytes_data=b"\xff" * 100)
    error = await watcher.receive_json_from(timeout=3)
    assert error["error"]["code"] == "not_your_game"
    await watcher.disconnect()


@pytest.mark.parametrize(
    "frame",
    [
        '{"action": ["reveal"], "x": 1, "y": 1}',
        '{"action": {"reveal": 1}, "x": 1, "y": 1}',
        '{"action": 7}',
        '{"action": null}',
        "[" * 2000 + "]" * 2000,
        '{"action": "reveal", "x": ' + "[" * 1500 + "]" * 1500 + ', "y": 1}',
        '{"action": "reveal", "x": 1, "y": 1, "client_move_id": ' + "{}" + "}",
        "12",
        "null",
    ],
    ids=[
        "action-list",
        "action-object",
        "action-number",
        "action-null",
        "nested-2000",
        "nested-in-x",
        "object-client-move-id",
        "number",
        "null",
    ],
)
async def test_odd_json_from_the_player_is_a_400_never_a_server_error(
    alice, alice_token, new_game, frame
):
    assert len(frame.encode()) <= LIMIT
    game = await new_game(alice)
    player = ws(game_path(game), token=alice_token)
    await opened(player)
    await player.send_to(text_data=frame)
    error = await player.receive_json_from(timeout=3)
    assert error["type"] == "error"
    assert error["error"]["code"] in ("invalid", "malformed_json")
    assert set(error["error"]) == {"code", "message", "details"}
    # The socket still works: the next move is played.
    await player.send_to(text_data=json.dumps({"action": "reveal", "x": 4, "y": 4}))
    move = await player.receive_json_from(timeout=3)
    assert (move["type"], move["seq"]) == ("move", 1)
    await player.disconnect()


async def test_the_lobby_reads_nothing_and_closes_after_a_few_frames(db):
    lobby = ws("/ws/live")
    assert (await opened(lobby))["type"] == "live"
    for frame in ["{not json", "[" * 2000 + "]" * 2000, "a", "b", "c"]:
        await lobby.send_to(text_data=frame)
    frames, code = await until_closed(lobby)
    assert [f["error"]["code"] for f in frames] == ["invalid"] * 5
    assert code == 4400


async def test_the_lobby_refuses_an_over_long_frame_at_once(db):
    lobby = ws("/ws/live")
    await opened(lobby)
    await lobby.send_to(text_data="x" * (LIMIT + 1))
    frames, code = await until_closed(lobby)
    assert [f["error"]["code"] for f in frames] == ["frame_too_large"] and code == 1009


def test_make_run_bounds_frames_at_the_server_too():
    """uvicorn's default --ws-max-size is 16 MiB: the development server sets the same
    limit as the consumer, so an over-long frame is dropped before it is even assembled."""
    makefile = (ROOT / "Makefile").read_text()
    run = next(line for line in makefile.splitlines() if "uvicorn demineur_site." in line)
    found = re.search(r"--ws-max-size[ =](\d+)", run)
    assert found is not None, run
    assert int(found.group(1)) == LIMIT
