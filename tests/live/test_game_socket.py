"""/ws/games/{id}: alice plays, bob and anonymous visitors watch (API.md, Live updates)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, NamedTuple

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.conf import settings

from games.live import guard as socket_guard
from games.live import sequencing
from games.play import events, services
from games.play.models import Game
from tests.support.boards import neighbours
from tests.support.http import UNKNOWN_ID
from tests.support.personas import SOCKET_TESTS
from tests.support.sockets import (
    SITE_ORIGIN,
    connected,
    connected_player,
    game_path,
    layout,
    leaks,
    next_of,
    play_to_the_end,
    player_and_watcher,
    rest_move,
    socket,
)

pytestmark = SOCKET_TESTS


class Playing(NamedTuple):
    game: Game
    player: WebsocketCommunicator
    watcher: WebsocketCommunicator


@pytest.fixture
async def alice_playing(alice: Any, alice_token: str, new_game: Any) -> AsyncIterator[Playing]:
    """Alice's new game, her socket and an anonymous watcher's, both connected and past their
    snapshot; both disconnected after the test."""
    game = await new_game(alice)
    player, watcher = await player_and_watcher(game, alice_token)
    yield Playing(game, player, watcher)
    for comm in (player, watcher):
        await comm.disconnect()


def assert_in_order_without_gaps(messages: list[dict[str, Any]], first_seq: int) -> None:
    seqs = [m["seq"] for m in messages if m["type"] != "ended"]
    assert seqs == list(range(first_seq, first_seq + len(seqs)))
    ended = [m for m in messages if m["type"] == "ended"]
    assert len(ended) == 1 and messages[-1] is ended[0] and ended[0]["seq"] == seqs[-1]


async def test_a_visitor_gets_the_game_as_state_on_connect(alice, new_game):
    game = await new_game(alice)
    visitor = socket(game_path(game))
    state = await connected(visitor)
    assert state["type"] == "state"
    assert state["seq"] == 0
    assert state["game"]["id"] == str(game.id)
    assert state["game"]["player"] == "alice"
    assert state["game"]["board"] == ["#" * 9] * 9
    await visitor.disconnect()


@pytest.mark.parametrize("game_id", [str(UNKNOWN_ID), "not-a-uuid", "1"])
async def test_an_unknown_game_is_a_404_error_and_close_4404(game_id, db):
    visitor = socket(game_path(game_id))
    message = await connected(visitor)
    assert message == {
        "type": "error",
        "status": 404,  # the status the same refusal has over REST
        "seq": None,
        "client_move_id": None,
        "error": {"code": "not_found", "message": "No such game.", "details": {}},
    }
    closed = await visitor.receive_output(timeout=3)
    assert closed == {"type": "websocket.close", "code": 4404}


async def test_a_watcher_sees_every_rest_move_in_order_without_gaps(alice, new_game):
    game = await new_game(alice)
    watcher = socket(game_path(game))
    assert (await connected(watcher))["seq"] == 0
    await rest_move(alice, game, "reveal", 4, 4)
    rows = await layout(game)
    closed = [(x, y) for y, row in enumerate(rows) for x, ch in enumerate(row) if ch in ".*"]
    x, y = closed[0]
    await rest_move(alice, game, "flag", x, y)
    await rest_move(alice, game, "flag", x, y)
    first = await next_of(watcher, "move")
    second = await next_of(watcher, "move")
    third = await next_of(watcher, "move")
    assert [first["seq"], second["seq"], third["seq"]] == [1, 2, 3]
    assert first["action"] == "reveal" and first["state"] == "playing"
    assert {"x": 4, "y": 4, "v": "0"} in first["changes"]
    assert second["changes"] == [{"x": x, "y": y, "v": "F"}] and second["mines_left"] == 9
    assert third["changes"] == [{"x": x, "y": y, "v": "#"}] and third["mines_left"] == 10
    assert set(first) == {"type", "seq", "action", "changes", "state", "mines_left", "elapsed_ms"}
    assert await watcher.receive_nothing(timeout=0.2)
    await watcher.disconnect()


async def test_a_full_game_played_over_the_socket_reaches_every_watcher_without_leaks(
    alice, bob, alice_token, session_cookie, new_game
):
    game = await new_game(alice)
    player = socket(game_path(game), token=alice_token)
    bob_watching = socket(game_path(game), origin=SITE_ORIGIN, cookie=await session_cookie(bob))
    anonymous = socket(game_path(game))
    for comm in (player, bob_watching, anonymous):
        assert (await connected(comm))["type"] == "state"

    played = await play_to_the_end(player, game)

    for comm in (bob_watching, anonymous):
        seen = [await comm.receive_json_from(timeout=3) for _ in played]
        assert seen == played
        assert await comm.receive_nothing(timeout=0.1)
    assert_in_order_without_gaps(played, first_seq=1)
    assert [problem for m in played for problem in leaks(m)] == []
    ended = played[-1]["game"]
    assert ended["state"] == "won" and ended["end_reason"] == "cleared"
    assert ended["result_stats"]["bbbv"] > 0
    # The layout appears only in the end: the won board shows every mine as a flag or `*`.
    assert sum(row.count("*") + row.count("F") for row in ended["board"]) == 10
    for comm in (player, bob_watching, anonymous):
        await comm.disconnect()


async def test_a_lost_game_shows_the_mine_only_in_the_move_that_ends_it(alice_playing):
    game, player, watcher = alice_playing
    await player.send_json_to({"action": "reveal", "x": 4, "y": 4})
    opening = await next_of(watcher, "move")
    assert leaks(opening) == []
    rows = await layout(game)
    mx, my = next((x, y) for y, row in enumerate(rows) for x, ch in enumerate(row) if ch == "*")
    await player.send_json_to({"action": "reveal", "x": mx, "y": my, "client_move_id": "boom"})
    losing = await next_of(watcher, "move")
    assert losing["state"] == "lost" and losing["changes"] == [{"x": mx, "y": my, "v": "X"}]
    ended = await next_of(watcher, "ended")
    assert ended["seq"] == losing["seq"] == 2
    assert ended["game"]["end_reason"] == "mine"
    assert sum(row.count("*") + row.count("X") for row in ended["game"]["board"]) == 10
    assert (await next_of(player, "move")) == opening
    assert (await next_of(player, "move")) == losing
    assert (await next_of(player, "ended")) == ended


async def test_pause_and_resume_over_the_socket_hide_then_show_the_board(alice_playing):
    game, player, watcher = alice_playing
    await player.send_json_to({"action": "reveal", "x": 4, "y": 4})
    await next_of(watcher, "move")
    await player.send_json_to({"action": "pause"})
    paused = await next_of(watcher, "paused")
    assert set(paused) == {"type", "seq", "elapsed_ms", "state"}
    assert paused["seq"] == 2 and paused["state"] == "paused"

    late = socket(game_path(game))
    snapshot = await connected(late)
    assert snapshot["seq"] == 2 and snapshot["game"]["board"] is None

    await player.send_json_to(
        {"action": "reveal", "x": 0, "y": 0, "client_move_id": "while-paused"}
    )
    await next_of(player, "move")
    assert (await next_of(player, "paused")) == paused
    refused = await next_of(player, "error")
    assert refused["client_move_id"] == "while-paused"
    assert refused["error"]["code"] == "game_paused"

    await player.send_json_to({"action": "pause"})  # a no-op: no seq, the sender alone hears it
    again = await next_of(player, "state")
    assert again["seq"] == 2 and again["game"]["board"] is None

    await player.send_json_to({"action": "resume"})
    resumed = await next_of(watcher, "resumed")
    assert resumed["seq"] == 3 and resumed["state"] == "playing"
    assert len(resumed["game"]["board"]) == 9 and leaks(resumed) == []
    assert (await next_of(late, "resumed")) == resumed
    assert await watcher.receive_nothing(timeout=0.1)
    await late.disconnect()


async def test_resigning_over_the_socket_sends_the_move_then_the_end(alice, alice_token, new_game):
    game = await new_game(alice)
    player = await connected_player(game, alice_token)
    await player.send_json_to({"action": "resign"})
    assert (await next_of(player, "error"))["error"]["code"] == "game_not_started"
    await player.send_json_to({"action": "reveal", "x": 4, "y": 4})
    await next_of(player, "move")
    await player.send_json_to({"action": "resign"})
    resign = await next_of(player, "move")
    assert resign["action"] == "resign" and resign["changes"] == [] and resign["state"] == "lost"
    ended = await next_of(player, "ended")
    assert ended["seq"] == resign["seq"] == 2 and ended["game"]["end_reason"] == "resigned"
    await player.disconnect()


async def test_a_watcher_cannot_move_and_an_anonymous_visitor_must_sign_in(
    alice, bob, bob_token, new_game
):
    game = await new_game(alice)
    bob_socket = socket(game_path(game), token=bob_token)
    anonymous = socket(game_path(game))
    await connected(bob_socket)
    await connected(anonymous)
    await bob_socket.send_json_to({"action": "reveal", "x": 1, "y": 1, "client_move_id": "b1"})
    refused = await next_of(bob_socket, "error")
    assert refused == {
        "type": "error",
        "status": 403,
        "seq": 0,
        "client_move_id": "b1",
        "error": {
            "code": "not_your_game",
            "message": "This game belongs to another player.",
            "details": {},
        },
    }
    await bob_socket.send_json_to({"action": "pause"})
    assert (await next_of(bob_socket, "error"))["error"]["code"] == "not_your_game"
    await anonymous.send_json_to({"action": "reveal", "x": 1, "y": 1})
    assert (await next_of(anonymous, "error"))["error"]["code"] == "not_authenticated"
    stored = await database_sync_to_async(Game.objects.get)(pk=game.id)
    assert stored.seq == 0 and stored.state == "new"
    for comm in (bob_socket, anonymous):
        await comm.disconnect()


@pytest.mark.parametrize(
    ("message", "code"),
    [
        ({"action": "reveal", "x": "1", "y": 1}, "invalid"),
        ({"action": "reveal", "x": True, "y": 1}, "invalid"),
        ({"action": "reveal", "x": 1.0, "y": 1}, "invalid"),
        ({"action": "reveal", "x": None, "y": 1}, "invalid"),
        ({"action": "reveal", "y": 1}, "invalid"),
        ({"action": "flag", "x": 1, "y": 1, "flagged": "yes"}, "invalid"),
        ({"action": "reveal", "x": 1, "y": 1, "client_move_id": 7}, "invalid"),
        ({"action": "reveal", "x": 1, "y": 1, "client_move_id": "x" * 65}, "invalid"),
        ({"action": "reveal", "x": 9, "y": 0}, "out_of_bounds"),
        ({"action": "reveal", "x": -1, "y": 0}, "out_of_bounds"),
        ({"action": "dance"}, "invalid"),
        ({"x": 1, "y": 1}, "invalid"),
        ({"action": "flag", "x": 1, "y": 1}, "game_not_started"),
        ({"action": "chord", "x": 1, "y": 1}, "game_not_started"),
    ],
)
async def test_a_refused_move_is_an_error_to_the_sender_alone(alice_playing, message, code):
    _, player, watcher = alice_playing
    await player.send_json_to(message)
    error = await next_of(player, "error")
    assert error["error"]["code"] == code
    assert set(error["error"]) == {"code", "message", "details"}
    assert await watcher.receive_nothing(timeout=0.1)


@pytest.mark.parametrize("frame", ["{not json", "[1, 2]", '"reveal"'])
async def test_a_frame_that_is_not_a_json_object_is_an_error(alice, alice_token, new_game, frame):
    game = await new_game(alice)
    player = await connected_player(game, alice_token)
    await player.send_to(text_data=frame)
    error = await next_of(player, "error")
    assert error["error"]["code"] in ("malformed_json", "invalid")
    await player.send_to(bytes_data=b"\x00")
    assert (await next_of(player, "error"))["error"]["code"] == "invalid"
    await player.disconnect()


async def test_a_replayed_client_move_id_answers_the_sender_alone_with_the_original(alice_playing):
    _, player, watcher = alice_playing
    await player.send_json_to({"action": "reveal", "x": 4, "y": 4, "client_move_id": "first"})
    original = await next_of(player, "move")
    assert (await next_of(watcher, "move")) == original

    await player.send_json_to({"action": "reveal", "x": 4, "y": 4, "client_move_id": "first"})
    replay = await next_of(player, "move")
    assert replay["replayed"] is True and replay["client_move_id"] == "first"
    assert (replay["seq"], replay["changes"]) == (original["seq"], original["changes"])
    assert await watcher.receive_nothing(timeout=0.1)

    await player.send_json_to({"action": "reveal", "x": 0, "y": 0, "client_move_id": "first"})
    conflict = await next_of(player, "error")
    assert conflict["client_move_id"] == "first"
    assert conflict["error"]["code"] == "idempotency_conflict"


def fake_event(game: Game, seq: int) -> dict[str, Any]:
    """A move event as games.play.events publishes it (for ordering tests: nothing is stored)."""
    event = {"type": "move", "seq": seq, "action": "flag", "changes": [], "state": "playing",
             "mines_left": 10, "elapsed_ms": 0}  # fmt: skip
    return {"type": events.GAME_EVENT_TYPE, "game_id": str(game.id), "event": event}


async def watching_a_started_game(
    alice: Any, new_game: Any
) -> tuple[Game, WebsocketCommunicator, Callable[[int], Awaitable[None]]]:
    """Alice's game after her first reveal, a watcher past its snapshot (seq 1), and `publish`,
    which sends the game's group a fake move event of any seq."""
    game = await new_game(alice)
    await rest_move(alice, game, "reveal", 4, 4)
    watcher = socket(game_path(game))
    assert (await connected(watcher))["seq"] == 1
    group = events.game_group(game.id)

    async def publish(seq: int) -> None:
        await get_channel_layer().group_send(group, fake_event(game, seq))

    return game, watcher, publish


async def test_an_event_already_in_the_snapshot_is_dropped_and_a_gap_brings_a_fresh_state(
    alice, new_game
):
    game, watcher, publish = await watching_a_started_game(alice, new_game)
    await publish(1)  # published late, already in the snapshot
    assert await watcher.receive_nothing(timeout=0.1)
    await publish(5)  # seq 2 to 4 never come: re-read the game
    fresh = await next_of(watcher, "state")
    assert fresh["seq"] == 1 and fresh["game"]["state"] == "playing"
    await rest_move(alice, game, "reveal", 4, 4)  # an accepted no-op still takes a seq
    assert (await next_of(watcher, "move"))["seq"] == 2
    await watcher.disconnect()


async def test_events_published_out_of_order_reach_the_watcher_in_order(alice, new_game):
    _, watcher, publish = await watching_a_started_game(alice, new_game)
    for seq in (3, 4, 2):  # two server processes can publish in either order
        await publish(seq)
    assert [(await next_of(watcher, "move"))["seq"] for _ in range(3)] == [2, 3, 4]
    assert await watcher.receive_nothing(timeout=0.3)  # no re-read was needed
    await watcher.disconnect()


async def test_a_watcher_of_an_ended_game_gets_the_whole_layout_in_the_state(alice, new_game):
    game = await new_game(alice)
    await rest_move(alice, game, "reveal", 4, 4)
    await database_sync_to_async(services.game_resign)(game_id=game.id, player=alice)
    watcher = socket(game_path(game))
    state = await connected(watcher)
    assert state["seq"] == 2 and state["game"]["state"] == "lost"
    assert sum(row.count("*") for row in state["game"]["board"]) == 10
    await watcher.disconnect()


async def test_a_game_with_flags_chords_pauses_and_a_loss_leaks_nothing_before_its_end(
    alice_playing,
):
    game, player, watcher = alice_playing

    async def play(message: dict[str, Any], *kinds: str) -> list[dict[str, Any]]:
        await player.send_json_to(message)
        return [await next_of(player, kind) for kind in kinds]

    (opening,) = await play({"action": "reveal", "x": 4, "y": 4}, "move")
    numbers = {(c["x"], c["y"]): int(c["v"]) for c in opening["changes"] if c["v"] != "0"}
    rows = await layout(game)
    # A number on the edge of the opening, its mines flagged, then chorded.
    x, y, mines = next(
        (x, y, [(a, b) for a, b in neighbours(x, y, 9, 9) if rows[b][a] == "*"])
        for (x, y), n in sorted(numbers.items())
        if any(rows[b][a] == "." for a, b in neighbours(x, y, 9, 9))
    )
    for mx, my in mines:
        await play({"action": "flag", "x": mx, "y": my}, "move")
    await play({"action": "pause"}, "paused")
    await play({"action": "resume"}, "resumed")
    (chord,) = await play({"action": "chord", "x": x, "y": y}, "move")
    assert chord["changes"] and all(c["v"] not in "*X!" for c in chord["changes"])
    safe = next(
        (a, b) for b, row in enumerate(await layout(game)) for a, ch in enumerate(row) if ch == "."
    )
    await play({"action": "flag", "x": safe[0], "y": safe[1]}, "move")  # a wrong flag
    mine = next(
        (a, b) for b, row in enumerate(await layout(game)) for a, ch in enumerate(row) if ch == "*"
    )
    losing, ended = await play({"action": "reveal", "x": mine[0], "y": mine[1]}, "move", "ended")

    seen = [await watcher.receive_json_from(timeout=3) for _ in range(len(mines) + 7)]
    assert seen[-2:] == [losing, ended]
    assert {m["type"] for m in seen} == {"move", "paused", "resumed", "ended"}
    assert_in_order_without_gaps(seen, first_seq=1)
    assert [problem for m in seen for problem in leaks(m)] == []
    board = ended["game"]["board"]
    assert board[safe[1]][safe[0]] == "!" and board[mine[1]][mine[0]] == "X"
    assert all(board[b][a] == "F" for a, b in mines)


async def test_a_player_whose_own_move_event_is_lost_still_hears_of_the_move(
    alice, alice_token, new_game, monkeypatch
):
    game = await new_game(alice)
    monkeypatch.setattr(sequencing, "LOST_EVENT_SECONDS", 0.05)  # read when the socket opens
    player = await connected_player(game, alice_token)
    monkeypatch.setattr(settings, "LIVE_EVENTS", False)  # as if Redis dropped the message
    await player.send_json_to({"action": "reveal", "x": 4, "y": 4})
    fresh = await next_of(player, "state")
    assert fresh["seq"] == 1 and fresh["game"]["state"] == "playing"
    assert await player.receive_nothing(timeout=0.2)
    await player.disconnect()


def test_the_socket_token_bucket_allows_bursts_then_asks_to_wait():
    bucket = socket_guard.TokenBucket(rate=2, burst=3)
    t0 = bucket.stamp
    assert [bucket.take(t0) for _ in range(3)] == [0.0, 0.0, 0.0]
    assert bucket.take(t0) == pytest.approx(0.5)
    assert bucket.take(t0 + 0.5) == 0.0  # half a second buys one message at 2/s


async def test_a_player_flooding_the_socket_is_throttled(alice, alice_token, new_game, settings):
    settings.WS_MESSAGES_PER_SECOND = 1
    settings.WS_MESSAGES_BURST = 2
    game = await new_game(alice)
    player = await connected_player(game, alice_token)
    for _ in range(3):
        await player.send_json_to({"action": "flag", "x": 0, "y": 0})
    codes = [(await next_of(player, "error"))["error"] for _ in range(3)]
    assert [c["code"] for c in codes] == ["game_not_started", "game_not_started", "throttled"]
    assert codes[2]["details"]["retry_after"] > 0
    await player.disconnect()
