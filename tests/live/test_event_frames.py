"""The frames of games.play.events through both doors: a move made over REST and
the same move made over the socket reach watchers as the same frame, and a replayed socket
move reports the move's own clock (Move.at_ms), not the clock at the replay."""

from __future__ import annotations

import asyncio
from typing import Any

from channels.db import database_sync_to_async
from rest_framework.test import APIClient

from games.play.models import Move
from tests.support.personas import SOCKET_TESTS
from tests.support.sockets import connected, connected_player, game_path, layout, next_of, socket

pytestmark = SOCKET_TESTS

# What legitimately differs between two games played the same way at different instants.
CLOCK = {"elapsed_ms"}
GAME_IDENTITY = {"id", "player", "created_at", "started_at", "ended_at", "elapsed_ms"}


async def rest(token: str, game_id: Any, action: str, body: dict[str, Any] | None = None) -> Any:
    """A move through the real REST view (token auth), as a bot would send it."""

    def post() -> Any:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
        response = client.post(f"/api/games/{game_id}/{action}", body or {}, format="json")
        assert response.status_code == 200, response.content
        return response.json()

    return await database_sync_to_async(post)()


def differences(a: dict[str, Any], b: dict[str, Any], allowed: set[str]) -> list[str]:
    """Keys the two frames do not share, and shared values that differ outside `allowed`."""
    found = [f"key {k}" for k in sorted(set(a) ^ set(b))]
    found += [
        f"{k}: {a[k]!r} != {b[k]!r}" for k in sorted(set(a) & set(b) - allowed) if a[k] != b[k]
    ]
    return found


async def test_a_rest_move_and_a_socket_move_reach_watchers_as_the_same_frame(
    alice, alice_token, bob, bob_token, new_game, settings
):
    settings.GAME_TEST_SEED = "doors"  # one layout for both games: the same moves, same cells
    by_rest, by_socket = await new_game(alice), await new_game(bob)
    rest_watcher, socket_watcher = socket(game_path(by_rest)), socket(game_path(by_socket))
    player = socket(game_path(by_socket), token=bob_token)
    for comm in (rest_watcher, socket_watcher, player):
        await connected(comm)

    async def both(action: str, body: dict[str, Any], allowed: set[str]) -> dict[str, Any]:
        answer = await rest(alice_token, by_rest.id, action, body)
        await player.send_json_to({"action": action, **body})
        from_rest = await next_of(rest_watcher, "move")
        from_socket = await next_of(socket_watcher, "move")
        assert await next_of(player, "move") == from_socket  # the player's answer is that frame
        assert differences(from_rest, from_socket, allowed) == [], action
        if "changes" in answer:  # a MoveResult: it agrees with the frame
            assert (answer["seq"], answer["changes"]) == (from_rest["seq"], from_rest["changes"])
        return from_rest

    tap = await both("reveal", {"x": 4, "y": 4, "client_move_id": "tap"}, set())  # at_ms 0
    assert tap["seq"] == 1 and tap["elapsed_ms"] == 0 and tap["changes"]
    rows = await layout(by_rest)
    assert rows == await layout(by_socket)
    mine = next((x, y) for y, row in enumerate(rows) for x, ch in enumerate(row) if ch == "*")
    flag = {"x": mine[0], "y": mine[1], "flagged": True, "client_move_id": "f"}
    assert (await both("flag", flag, CLOCK))["changes"] == [{"x": mine[0], "y": mine[1], "v": "F"}]
    await both("resign", {}, CLOCK)
    ended_rest, ended_socket = await next_of(rest_watcher, "ended"), await next_of(player, "ended")
    assert differences(ended_rest, ended_socket, {"game"}) == []
    assert differences(ended_rest["game"], ended_socket["game"], GAME_IDENTITY) == []
    assert ended_socket == await next_of(socket_watcher, "ended")
    for comm in (rest_watcher, socket_watcher, player):
        await comm.disconnect()


async def test_a_replayed_socket_move_carries_the_moves_own_clock(alice, alice_token, new_game):
    game = await new_game(alice)
    player = await connected_player(game, alice_token)

    async def play(message: dict[str, Any]) -> dict[str, Any]:
        await player.send_json_to(message)
        return await next_of(player, "move")

    first = await play({"action": "reveal", "x": 4, "y": 4, "client_move_id": "first"})
    mine = next(
        (x, y) for y, row in enumerate(await layout(game)) for x, ch in enumerate(row) if ch == "*"
    )
    await asyncio.sleep(0.05)  # the game clock moves on: the flag's clock is not the first tap's
    flag = {"action": "flag", "x": mine[0], "y": mine[1], "client_move_id": "flag"}
    original = await play(flag)
    await asyncio.sleep(0.05)  # and on again before the replay
    replay = await play(flag)
    assert replay == {**original, "replayed": True}

    def stored_clock(seq: int) -> int:
        return int(Move.objects.get(game_id=game.id, seq=seq).at_ms)

    assert replay["elapsed_ms"] == await database_sync_to_async(stored_clock)(original["seq"])

    # After the end, the first tap's replay still reports the first tap's clock (0), with the
    # game's state as it is now (API.md: the original seq and changes, the game as it is).
    await player.send_json_to({"action": "resign"})
    await next_of(player, "move")
    await next_of(player, "ended")
    again = await play({"action": "reveal", "x": 4, "y": 4, "client_move_id": "first"})
    assert again["elapsed_ms"] == 0 == await database_sync_to_async(stored_clock)(1)
    assert (again["seq"], again["changes"]) == (first["seq"], first["changes"])
    assert again["state"] == "lost" and again["replayed"] is True
    await player.disconnect()
