"""Moves on one game never interleave: the service holds the game's row lock, so two
clients hammering one game get seq 1, 2, 3 … with no gap and no duplicate. And RULES.md,
Statistics: a new game of a level ends the player's started game of that level, so a player
has at most one unfinished game per level -- even when two new games are asked for at the
same moment (two tabs, a retried request)."""

from __future__ import annotations

import functools

import pytest
from django.db import connection

from accounts.models import User
from games.play import services
from games.play.models import Game, Move
from tests.support.personas import PASSWORD
from tests.support.threads import at_once, in_threads

pytestmark = pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="row locks need PostgreSQL (SQLite serialises the whole database); CI sets DATABASE_URL",
)


@pytest.mark.django_db(transaction=True)
def test_concurrent_moves_on_one_game_get_consecutive_seqs():
    alice = User.objects.create_user(username="alice", password=PASSWORD)
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

    in_threads(*(functools.partial(worker, row) for row in (0, 39)))
    assert not errors
    seqs = list(Move.objects.filter(game=game).order_by("seq").values_list("seq", flat=True))
    assert seqs == list(range(1, len(seqs) + 1))
    assert Game.objects.get(pk=game.id).seq == len(seqs)
    assert Game.objects.get(pk=game.id).mines_left == 240


@pytest.mark.django_db(transaction=True)
def test_two_new_games_of_one_level_at_once_leave_one_unfinished_game():
    alice = User.objects.create_user(username="alice", password=PASSWORD)
    errors: list[BaseException] = []

    def create() -> None:
        try:
            services.game_create(player=alice, level="beginner")
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    for _ in range(15):
        at_once(2, create)
        assert not errors
        unfinished = Game.objects.filter(
            player=alice, level="beginner", state__in=("new", "playing", "paused")
        )
        assert unfinished.count() == 1
