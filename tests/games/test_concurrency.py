"""Moves on one game never interleave: the service holds the game's row lock, so two
clients hammering one game get seq 1, 2, 3 … with no gap and no duplicate."""

from __future__ import annotations

import threading

import pytest
from django.db import connection, connections

from accounts.models import User
from games.models import Game, Move
from games.play import services

pytestmark = pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="row locks need PostgreSQL (SQLite serialises the whole database); CI sets DATABASE_URL",
)


@pytest.mark.django_db(transaction=True)
def test_concurrent_moves_on_one_game_get_consecutive_seqs():
    alice = User.objects.create_user(username="alice", password="correct horse battery")
    game = services.game_create(player=alice, level="marathon")
    services.game_move(game_id=game.id, player=alice, action="reveal", x=40, y=20)
    errors: list[BaseException] = []

    def worker(row: int) -> None:
        try:
            for x in range(20):
                services.game_move(
                    game_id=game.id, player=alice, action="flag", x=x, y=row, flagged=True
                )
                services.game_move(
                    game_id=game.id, player=alice, action="flag", x=x, y=row, flagged=False
                )
        except BaseException as exc:  # pragma: no cover - reported below
            if getattr(exc, "code", "") not in ("cell_open",):
                errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=worker, args=(row,)) for row in (0, 39)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    seqs = list(Move.objects.filter(game=game).order_by("seq").values_list("seq", flat=True))
    assert seqs == list(range(1, len(seqs) + 1))
    assert Game.objects.get(pk=game.id).seq == len(seqs)
    assert Game.objects.get(pk=game.id).mines_left == 240
