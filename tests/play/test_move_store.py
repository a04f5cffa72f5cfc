"""games.play.move_store (the move's hand-written SQL) against the ORM it replaces: the same
instance from a row, the same row from an instance, the same Move row, and a real row lock."""

from __future__ import annotations

import threading
from datetime import timedelta
from typing import Any

import pytest
from django.db import IntegrityError, connection, connections, transaction
from django.utils import timezone

from accounts.models import User
from games.play import move_store, services
from games.play.models import Game, Move
from tests.support.boards import mines, safe_closed
from tests.support.http import UNKNOWN_ID

pytestmark = pytest.mark.django_db


def _values(obj: Any) -> dict[str, Any]:
    """Every concrete column of a model instance, with the Python type it has."""
    return {
        f.attname: (type(getattr(obj, f.attname)), _plain(getattr(obj, f.attname)))
        for f in obj._meta.concrete_fields
    }


def _plain(value: Any) -> Any:
    return bytes(value) if isinstance(value, memoryview) else value


def _games_in_every_shape(player: User) -> list[Game]:
    """A new game, one being played, a won one and a lost one (every nullable column set or
    not), and one paused (an unranked reason, a pause start)."""
    new = services.game_create(player=player, level="beginner")
    playing = services.game_create(player=player, level="intermediate")
    services.game_move(game_id=playing.id, player=player, action="reveal", x=3, y=3)
    mx, my = sorted(mines(str(playing.id)))[0]
    services.game_move(game_id=playing.id, player=player, action="flag", x=mx, y=my, flagged=True)
    paused = services.game_create(player=player, level="expert")
    services.game_move(game_id=paused.id, player=player, action="reveal", x=3, y=3)
    services.game_pause(game_id=paused.id, player=player)
    lost = services.game_create(width=9, height=9, mines=30, player=player)
    services.game_move(game_id=lost.id, player=player, action="reveal", x=2, y=2)
    mx, my = sorted(mines(str(lost.id)))[0]
    services.game_move(game_id=lost.id, player=player, action="reveal", x=mx, y=my)
    won = services.game_create(width=5, height=5, mines=1, player=player)
    services.game_move(game_id=won.id, player=player, action="reveal", x=2, y=2)
    for x, y in safe_closed(str(won.id)):
        if Game.objects.get(pk=won.id).state == "playing":
            services.game_move(game_id=won.id, player=player, action="reveal", x=x, y=y)
    return [Game.objects.get(pk=g.id) for g in (new, playing, paused, lost, won)]


def test_a_locked_game_is_the_orms_game_column_for_column(alice: User) -> None:
    games = _games_in_every_shape(alice)
    assert {g.state for g in games} == {"new", "playing", "paused", "lost", "won"}
    for orm in games:
        with transaction.atomic():
            raw = move_store.lock_game(orm.id)
        assert raw is not None
        assert _values(raw) == _values(orm)
        assert raw._state.adding is False and raw._state.db == "default"
        assert raw == orm  # the same primary key: the same model instance to Django


@pytest.mark.parametrize("game_id", [UNKNOWN_ID, str(UNKNOWN_ID), "not-a-uuid", "", None, 7])
def test_an_unknown_or_malformed_id_is_no_game(alice: User, game_id: Any) -> None:
    services.game_create(player=alice, level="beginner")
    with transaction.atomic():
        assert move_store.lock_game(game_id) is None


def test_the_id_may_be_given_as_text(alice: User) -> None:
    game = services.game_create(player=alice, level="beginner")
    with transaction.atomic():
        found = move_store.lock_game(str(game.id))
    assert found is not None and found.id == game.id


def test_save_game_writes_what_save_writes(alice: User, bob: User) -> None:
    """The same changes made to two equal games, one saved by the ORM and one by hand, leave
    rows that differ only in what makes them two games."""
    mine = services.game_create(player=alice, level="expert")
    theirs = services.game_create(player=bob, level="expert")
    now = timezone.now()
    for game in (mine, theirs):
        game = Game.objects.get(pk=game.id)
        game.state = "lost"
        game.end_reason = "mine"
        game.board = b"\x01\x02\x00binary"
        game.seq, game.clicks, game.mines_left, game.opened = 7, 6, 98, 41
        game.bbbv, game.bbbv_solved, game.bbbv_per_s = 120, 33, 1.25
        game.started_at = now - timedelta(seconds=30)
        game.ended_at = game.last_action_at = now
        game.paused_ms, game.elapsed_ms = 1500, 28_500
        game.ranked, game.unranked_reason = False, "paused"
        game.sealed = True
        if game.player_id == alice.pk:
            with transaction.atomic():
                move_store.save_game(game)
        else:
            game.save()
    by_hand, by_orm = (_values(Game.objects.get(pk=g.id)) for g in (mine, theirs))
    for differing in ("id", "player_id", "created_at"):
        by_hand.pop(differing), by_orm.pop(differing)
    assert by_hand == by_orm
    assert by_hand["board"] == (bytes, b"\x01\x02\x00binary")


def test_insert_move_stores_what_create_stores(alice: User) -> None:
    game = services.game_create(player=alice, level="beginner")
    now = timezone.now()
    fields = {
        "game": game,
        "action": "flag",
        "x": 3,
        "y": 4,
        "flagged": True,
        "at_ms": 1234,
        "changes": [{"x": 3, "y": 4, "state": "flagged"}],
        "created_at": now,
    }
    move = Move(seq=101, client_move_id="c-1", **fields)
    with transaction.atomic():
        move_store.insert_move(move)
    assert move._state.adding is False
    Move.objects.create(seq=102, client_move_id="c-2", **fields)
    by_hand, by_orm = (_values(Move.objects.get(game=game, seq=s)) for s in (101, 102))
    for differing in ("id", "seq", "client_move_id"):
        by_hand.pop(differing), by_orm.pop(differing)
    assert by_hand == by_orm
    bare = Move(game=game, seq=103, action="pause", at_ms=5, created_at=now)
    with transaction.atomic():
        move_store.insert_move(bare)
    stored = Move.objects.get(game=game, seq=103)
    assert (stored.x, stored.y, stored.flagged, stored.changes) == (None, None, None, None)


@pytest.mark.django_db(transaction=True)
def test_the_lock_holds_another_transaction_until_commit(alice: User) -> None:
    """A second move on the same game waits for the first to commit (PostgreSQL's row lock;
    SQLite's IMMEDIATE transactions give the same order)."""
    if connection.vendor != "postgresql":
        pytest.skip(
            "the suite's SQLite database lives in memory, one per connection: a second thread"
            " cannot see the game (SQLite writers are ordered by IMMEDIATE transactions)"
        )
    game = services.game_create(player=alice, level="beginner")
    order: list[str] = []
    locked = threading.Event()

    def second() -> None:
        try:
            locked.wait(5)
            with transaction.atomic():
                move_store.lock_game(game.id)
                order.append("second locked")
        finally:
            connections.close_all()

    thread = threading.Thread(target=second)
    thread.start()
    with transaction.atomic():
        assert move_store.lock_game(game.id) is not None
        locked.set()
        thread.join(0.5)
        order.append("first commits")
    thread.join(10)
    assert order == ["first commits", "second locked"], connection.vendor


def test_store_writes_the_game_and_the_move_together(alice: User) -> None:
    """`store` (one statement on PostgreSQL) leaves what `save_game` then `insert_move` leave."""
    game = services.game_create(player=alice, level="beginner")
    now = timezone.now()
    with transaction.atomic():
        locked = move_store.lock_game(game.id)
        assert locked is not None
        locked.seq, locked.clicks, locked.last_action_at = 1, 1, now
        move = Move(
            game=locked, seq=1, action="flag", x=1, y=2, flagged=None, at_ms=0, created_at=now
        )
        move_store.store(locked, move)
    assert move._state.adding is False
    stored = Game.objects.get(pk=game.id)
    assert (stored.seq, stored.clicks, stored.last_action_at) == (1, 1, now)
    row = Move.objects.get(game=game)
    assert (row.seq, row.action, row.x, row.y, row.at_ms, row.created_at) == (
        1,
        "flag",
        1,
        2,
        0,
        now,
    )


def test_a_failed_store_leaves_neither_row(alice: User) -> None:
    """The game's update and the move's insert stand or fall together: a duplicate move
    number refuses the insert, and the game's new values are not written either."""
    game = services.game_create(player=alice, level="beginner")
    services.game_move(game_id=game.id, player=alice, action="reveal", x=4, y=4)
    before = _values(Game.objects.get(pk=game.id))
    now = timezone.now()
    with pytest.raises(IntegrityError), transaction.atomic():
        locked = move_store.lock_game(game.id)
        assert locked is not None
        locked.clicks = 99
        move_store.store(
            locked, Move(game=locked, seq=1, action="flag", x=0, y=0, at_ms=5, created_at=now)
        )
    assert _values(Game.objects.get(pk=game.id)) == before
    assert Move.objects.filter(game=game).count() == 1


@pytest.mark.parametrize("prepared", [True, False])
def test_the_statements_run_alike_bound_on_the_server_or_the_client(
    alice: User, settings: Any, prepared: bool
) -> None:
    """DB_PREPARED_HOT_PATH (PostgreSQL: server-side binding, prepared after a few runs)
    changes how a statement travels, not what it reads or writes: the sixth run of each on
    one connection is past psycopg's threshold for preparing it."""
    settings.DB_PREPARED_HOT_PATH = prepared
    game = services.game_create(player=alice, level="beginner")
    services.game_move(game_id=game.id, player=alice, action="reveal", x=4, y=4)
    mx, my = sorted(mines(str(game.id)))[0]
    for _ in range(7):
        services.game_move(game_id=game.id, player=alice, action="flag", x=mx, y=my)
    with transaction.atomic():
        raw = move_store.lock_game(game.id)
    assert raw is not None
    assert _values(raw) == _values(Game.objects.get(pk=game.id))
    assert raw.seq == 8 and raw.mines_left == game.mines - 1
    assert list(Move.objects.filter(game=game).values_list("seq", flat=True)) == list(range(1, 9))
    with pytest.raises(IntegrityError), transaction.atomic():  # Django's error, as the ORM's
        move_store.insert_move(Move(game=raw, seq=8, action="flag", x=0, y=0, at_ms=1))


def test_a_move_found_by_its_client_move_id_is_the_orms(alice: User) -> None:
    game = services.game_create(player=alice, level="beginner")
    services.game_move(
        game_id=game.id, player=alice, action="reveal", x=4, y=4, client_move_id="first-tap"
    )
    other = services.game_create(player=alice, level="expert")
    with transaction.atomic():
        locked = move_store.lock_game(game.id)
        assert locked is not None
        found = move_store.move_by_client_id(locked, "first-tap")
        assert move_store.move_by_client_id(locked, "never-sent") is None
        assert move_store.move_by_client_id(other, "first-tap") is None  # another game's ids
    assert found is not None
    orm = Move.objects.get(game=game, client_move_id="first-tap")
    assert _values(found) == _values(orm)
    assert found.game is locked
