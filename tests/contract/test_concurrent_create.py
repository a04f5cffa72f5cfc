"""RULES.md, Statistics: a new game of a level ends the player's started game of that level,
so a player has at most one unfinished game per level -- even when two new games are asked
for at the same moment (two tabs, a retried request)."""

from __future__ import annotations

import threading

import pytest
from django.db import connection, connections

from accounts.models import User
from games.models import Game
from games.play import services

pytestmark = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="row locks need PostgreSQL, as in CI"
)


@pytest.mark.django_db(transaction=True)
def test_two_new_games_of_one_level_at_once_leave_one_unfinished_game():
    alice = User.objects.create_user(username="alice", password="correct horse battery")
    errors: list[BaseException] = []
    for _ in range(15):
        barrier = threading.Barrier(2)

        def create(barrier: threading.Barrier = barrier) -> None:
            try:
                barrier.wait()
                services.game_create(player=alice, level="beginner")
            except BaseException as exc:  # pragma: no cover - reported below
                errors.append(exc)
            finally:
                connections.close_all()

        threads = [threading.Thread(target=create) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors
        unfinished = Game.objects.filter(
            player=alice, level="beginner", state__in=("new", "playing", "paused")
        )
        assert unfinished.count() == 1
