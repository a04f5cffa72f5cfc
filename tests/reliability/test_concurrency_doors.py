"""Concurrency: many moves at once through REST and the socket together, two games
of one player ending at the same instant, and one client_move_id sent through both doors at
once. Each ends with `verify_games`. Row locks need PostgreSQL (SQLite, the newcomer's
default, serialises the whole database and is covered by tests/security)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from io import StringIO
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.core.management import call_command
from django.db import connection, connections
from rest_framework.test import APIClient

from accounts.models import User
from accounts.services import token_issue
from accounts.standings.models import PlayerStats
from games.play import services
from games.play.models import Game, Move
from tests.support.boards import safe_closed
from tests.support.personas import PASSWORD
from tests.support.sockets import TIMEOUT, game_path, socket

pytestmark = [
    pytest.mark.skipif(
        connection.vendor != "postgresql",
        reason="row locks across threads need PostgreSQL, as in CI (DATABASE_URL)",
    ),
    pytest.mark.django_db(transaction=True),
]


def _verified() -> None:
    out = StringIO()
    call_command("verify_games", stdout=out, verbosity=0)
    assert "0 mismatch" in out.getvalue()


def _threads(work: Callable[[int], None], n: int) -> list[BaseException]:
    errors: list[BaseException] = []
    barrier = threading.Barrier(n)

    def run(i: int) -> None:
        try:
            barrier.wait()
            work(i)
        except BaseException as exc:  # reported by the caller
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors


async def test_fifty_moves_at_once_through_rest_and_the_socket_get_seq_1_to_n() -> None:
    def setup() -> tuple[str, Game, list[tuple[int, int]]]:
        alice = User.objects.create_user(username="alice", password=PASSWORD)
        key = token_issue(user=alice)[1]
        game = services.game_create(player=alice, level="marathon")
        services.game_move(game_id=game.id, player=alice, action="reveal", x=40, y=20)
        return key, game, safe_closed(str(game.id))

    key, game, closed = await database_sync_to_async(setup)()
    cells = closed[:50]
    rest_cells, socket_cells = cells[:25], cells[25:]
    statuses: list[int] = []

    def rest(i: int) -> None:
        api = APIClient()
        api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
        x, y = rest_cells[i]
        response = api.post(
            f"/api/games/{game.id}/flag", {"x": x, "y": y, "flagged": True}, format="json"
        )
        statuses.append(response.status_code)

    player = socket(game_path(game), token=key)
    ok, _ = await player.connect(timeout=TIMEOUT)
    assert ok
    assert (await player.receive_json_from(timeout=TIMEOUT))["type"] == "state"
    rest_done = asyncio.get_running_loop().run_in_executor(None, _threads, rest, 25)
    for n, (x, y) in enumerate(socket_cells):
        await player.send_json_to(
            {"action": "flag", "x": x, "y": y, "flagged": True, "client_move_id": f"s{n}"}
        )
    errors = await rest_done
    assert not errors and statuses == [200] * 25

    def stored() -> tuple[list[int], int, int]:
        seqs = list(Move.objects.filter(game=game).order_by("seq").values_list("seq", flat=True))
        fresh = Game.objects.get(pk=game.id)
        return seqs, fresh.seq, fresh.mines_left

    for _ in range(100):  # the socket's moves are applied one after another
        seqs, seq, mines_left = await database_sync_to_async(stored)()
        if len(seqs) == 51:
            break
        await asyncio.sleep(0.05)
    assert seqs == list(range(1, 52)) and seq == 51
    assert mines_left == 240 - 50
    await player.disconnect()
    await database_sync_to_async(_verified)()
    await database_sync_to_async(connections.close_all)()


def test_two_games_of_one_player_ending_at_the_same_instant_leave_correct_statistics() -> None:
    alice = User.objects.create_user(username="alice", password=PASSWORD)
    games = []
    for level in ("beginner", "intermediate"):
        game = services.game_create(player=alice, level=level)
        services.game_move(game_id=game.id, player=alice, action="reveal", x=4, y=4)
        games.append(game)
    # Both ends take the player's statistics in one transaction each; neither may be lost.
    errors = _threads(lambda i: services.game_resign(game_id=games[i].id, player=alice), len(games))
    assert not errors
    rows = {r.level: r for r in PlayerStats.objects.filter(user=alice)}
    assert {level: (r.played, r.won) for level, r in rows.items()} == {
        "beginner": (1, 0),
        "intermediate": (1, 0),
    }
    _verified()


async def test_one_client_move_id_through_both_doors_at_once_applies_once() -> None:
    def setup() -> tuple[str, Game, tuple[int, int]]:
        alice = User.objects.create_user(username="alice", password=PASSWORD)
        key = token_issue(user=alice)[1]
        game = services.game_create(player=alice, level="expert")
        services.game_move(game_id=game.id, player=alice, action="reveal", x=15, y=8)
        return key, game, safe_closed(str(game.id))[0]

    key, game, (x, y) = await database_sync_to_async(setup)()
    body: dict[str, Any] = {"x": x, "y": y, "flagged": True, "client_move_id": "same-tap"}
    player = socket(game_path(game), token=key)
    ok, _ = await player.connect(timeout=TIMEOUT)
    assert ok
    await player.receive_json_from(timeout=TIMEOUT)

    def rest(_: int) -> None:
        api = APIClient()
        api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
        response = api.post(f"/api/games/{game.id}/flag", body, format="json")
        assert response.status_code == 200 and response.json()["seq"] == 2

    rest_done = asyncio.get_running_loop().run_in_executor(None, _threads, rest, 3)
    await player.send_json_to({"action": "flag", **body})
    assert not await rest_done
    answer = await player.receive_json_from(timeout=TIMEOUT)
    assert answer["seq"] == 2

    def count() -> tuple[int, int]:
        return Move.objects.filter(game=game).count(), Game.objects.get(pk=game.id).seq

    assert await database_sync_to_async(count)() == (2, 2)
    await player.disconnect()
    await database_sync_to_async(_verified)()
    await database_sync_to_async(connections.close_all)()
