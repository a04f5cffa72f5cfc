"""The move without a lock (games.play.services._move_without_lock, move_store's
compare-and-set; docs/PERFORMANCE.md): outside a transaction on PostgreSQL, a move that neither
starts nor ends its solo game is a read and one write, and it must leave exactly what the
locked path leaves, lose cleanly to another writer, and never store a client_move_id twice.
tests/play/test_concurrency.py's threads hammering one game go through it too."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest
from django.db import connection, connections
from django.test.utils import CaptureQueriesContext

from accounts.models import User
from games.play import move_store, services
from games.play.models import Game, Move
from tests.support.boards import board_of, chord_target, mines, safe_cells, safe_closed
from tests.support.personas import PASSWORD
from tests.support.plans import Step, answers_to
from tests.support.threads import at_once

on_postgres = pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="the compare-and-set is PostgreSQL's (SQLite moves take the locked path); CI sets "
    "DATABASE_URL",
)
SEED = "compare-and-set"


def _started(player: User) -> tuple[Game, list[tuple[int, int]]]:
    """A new Expert game of `player`, its first tap made at the centre: the game and its
    mines (the layout of the test seed, which the test's settings set)."""
    game = services.game_create(player=player, level="expert")
    services.game_move(game_id=game.id, player=player, action="reveal", x=15, y=8)
    return game, sorted(mines(str(game.id)))


def _alices_game(settings: Any) -> tuple[User, Game, list[tuple[int, int]]]:
    """alice, made here, on a started Expert game of the test seed (`_started`)."""
    settings.GAME_TEST_SEED = SEED
    alice = User.objects.create_user(username="alice", password=PASSWORD)
    return alice, *_started(alice)


def _columns(game: Game) -> dict[str, Any]:
    return {f.name: getattr(game, f.attname) for f in Game._meta.concrete_fields}


@pytest.mark.django_db
def test_a_move_changes_only_the_columns_the_compare_and_set_writes(alice: User, settings):
    # Played on the locked path (inside the test's transaction), every move between the first
    # tap and the end changes no column outside MOVE_COLUMNS: the compare-and-set, which
    # writes only those, leaves the row the locked path leaves.
    settings.GAME_TEST_SEED = SEED
    game, mine_cells = _started(alice)
    seen: set[str] = set()
    center, its_mines = chord_target(board_of(str(game.id)), set(mine_cells))
    asks = [("flag", x, y, True) for x, y in its_mines]
    asks += [("chord", *center, None), ("flag", *mine_cells[-1], None)]
    asks += [("flag", *mine_cells[-1], None), ("reveal", *safe_closed(str(game.id))[0], None)]
    for action, x, y, flagged in asks:
        before = _columns(Game.objects.get(pk=game.id))
        services.game_move(
            game_id=game.id, player=alice, action=action, x=x, y=y, flagged=flagged,
            client_move_id=f"{action}-{x}-{y}-{len(seen)}",
        )  # fmt: skip
        after = _columns(Game.objects.get(pk=game.id))
        assert after["state"] == "playing"
        changed = {name for name in before if before[name] != after[name]}
        assert changed <= set(services.MOVE_COLUMNS), changed - set(services.MOVE_COLUMNS)
        seen |= changed
    assert {"seq", "board", "last_action_at", "clicks", "opened", "mines_left"} <= seen


@on_postgres
@pytest.mark.django_db(transaction=True)
def test_outside_a_transaction_a_move_is_a_read_and_one_write_without_a_lock(settings):
    alice, game, mine_cells = _alices_game(settings)
    x, y = mine_cells[0]
    with CaptureQueriesContext(connection) as flag:
        result = services.game_move(
            game_id=game.id, player=alice, action="flag", x=x, y=y, flagged=True
        )
    statements = [q["sql"] for q in flag.captured_queries]
    assert len(statements) == 2, statements
    assert not any("FOR UPDATE" in s for s in statements)
    assert statements[1].startswith("WITH saved AS (UPDATE")
    assert result.seq == 2 and result.changes == [{"x": x, "y": y, "v": "F"}]
    stored = Move.objects.get(game=game, seq=2)
    assert (stored.action, stored.x, stored.y, stored.flagged) == ("flag", x, y, True)
    assert Game.objects.get(pk=game.id).mines_left == game.mines - 1

    # With a client_move_id, still a read and one write: no lookup of an earlier use of it.
    with CaptureQueriesContext(connection) as again:
        services.game_move(
            game_id=game.id, player=alice, action="flag", x=x, y=y, client_move_id="unflag-1"
        )
    assert len(again.captured_queries) == 2
    assert Move.objects.get(game=game, seq=3).changes == [{"x": x, "y": y, "v": "#"}]

    # Its replay breaks the id's uniqueness in the compare-and-set, which stores nothing; the
    # locked path then answers it as the replay of seq 3.
    with CaptureQueriesContext(connection) as replayed:
        replay = services.game_move(
            game_id=game.id, player=alice, action="flag", x=x, y=y, client_move_id="unflag-1"
        )
    assert replay.replayed and replay.seq == 3 and replay.changes == [{"x": x, "y": y, "v": "#"}]
    assert any("FOR UPDATE" in q["sql"] for q in replayed.captured_queries)
    assert Move.objects.filter(game=game).count() == 3
    assert Game.objects.get(pk=game.id).seq == 3

    # The first tap and a move that ends the game take the locked path.
    with CaptureQueriesContext(connection) as mine:
        lost = services.game_move(game_id=game.id, player=alice, action="reveal", x=x, y=y)
    assert lost.game.state == "lost"
    assert any("FOR UPDATE" in q["sql"] for q in mine.captured_queries)


def _played(player: User, plan: list[Step]) -> list[Any]:
    """`plan` played on a new Expert game of `player` (first tap at its centre): the game's id
    and each move's answer, or the refusal's code."""
    game, _mines = _started(player)
    return [game.id, answers_to(player, game.id, plan)]


def _stored(game_id: Any) -> tuple[dict[str, Any], list[tuple[Any, ...]]]:
    """The game's row and its moves, without what differs between two players' games: ids,
    owners, the times of day and what the clock gives (the moves' times, the game's time and
    speed)."""
    row = _columns(Game.objects.get(pk=game_id))
    for name, value in list(row.items()):
        if name in ("id", "player", "elapsed_ms", "bbbv_per_s") or isinstance(value, datetime):
            row.pop(name)
    moves = list(
        Move.objects.filter(game_id=game_id)
        .order_by("seq")
        .values_list("seq", "action", "x", "y", "flagged", "client_move_id", "changes")
    )
    return row, moves


@on_postgres
@pytest.mark.django_db(transaction=True)
def test_a_game_played_with_and_without_the_lock_ends_alike(settings):
    # The same layout (the seed, the same first tap) played by the same plan: flags, a chord,
    # a replay, a client_move_id reused for another move, refusals, reveals to the win.
    alice, probe, mine_cells = _alices_game(settings)
    bob = User.objects.create_user(username="bob", password=PASSWORD)
    board = board_of(str(probe.id))
    center, its_mines = chord_target(board, set(mine_cells))
    safe = safe_cells(board)
    services.game_resign(game_id=probe.id, player=alice)
    plan: list[Step] = [
        *(("flag", x, y, True, f"f{i}") for i, (x, y) in enumerate(its_mines)),
        ("flag", *its_mines[0], True, "f0"),  # the same move again: a replay
        ("reveal", *its_mines[0], None, "f0"),  # another move with the same id: refused
        ("chord", *center, None, "c"),
        ("reveal", *safe[-1], None, None),
        ("reveal", 99, 0, None, None),  # off the board
        ("flag", *mine_cells[-1], None, None),
        ("flag", *mine_cells[-1], None, None),
    ]
    # Every safe cell closed after the first tap, in order: the ones a chord or a cascade
    # opened meanwhile are accepted no-ops, the last closed one wins, and any after it is
    # refused (game_over).
    plan += [("reveal", x, y, None, f"r{x}.{y}") for x, y in safe]

    settings.DB_MOVE_COMPARE_AND_SET = True
    unlocked_id, unlocked = _played(alice, plan)
    settings.DB_MOVE_COMPARE_AND_SET = False
    locked_id, locked = _played(bob, plan)

    assert unlocked == locked
    assert "out_of_bounds" in unlocked and "idempotency_conflict" in unlocked
    assert any(isinstance(a, tuple) and a[3] == "won" for a in unlocked)
    assert _stored(unlocked_id) == _stored(locked_id)


@on_postgres
@pytest.mark.django_db(transaction=True)
def test_a_move_that_loses_its_compare_and_set_is_played_after_the_winner(settings, monkeypatch):
    # Between alice's read and her write, another move of hers lands (a second tab): her first
    # move's compare-and-set fails, writes nothing, and the locked path plays it after the
    # other one, with the next seq.
    alice, game, mine_cells = _alices_game(settings)
    first, second = mine_cells[:2]
    read = move_store.read_game
    calls = []

    def read_then_another_tab_moves(game_id: Any) -> Game | None:
        row = read(game_id)
        calls.append(row.seq if row else None)
        if len(calls) == 1:
            settings.DB_MOVE_COMPARE_AND_SET = False  # the other tab's move: the locked path
            services.game_move(
                game_id=game_id, player=alice, action="flag", x=second[0], y=second[1]
            )
            settings.DB_MOVE_COMPARE_AND_SET = True
        return row

    monkeypatch.setattr(move_store, "read_game", read_then_another_tab_moves)
    result = services.game_move(
        game_id=game.id, player=alice, action="flag", x=first[0], y=first[1]
    )

    assert calls == [1]  # one unlocked read, which lost; the locked path did the rest
    assert result.seq == 3 and not result.replayed
    moves = list(Move.objects.filter(game=game).order_by("seq").values_list("seq", "x", "y"))
    assert moves == [(1, 15, 8), (2, *second), (3, *first)]
    stored = Game.objects.get(pk=game.id)
    assert (stored.seq, stored.mines_left, stored.clicks) == (3, game.mines - 2, 3)
    shown = board_of(str(game.id)).render()
    assert shown[first[1]][first[0]] == shown[second[1]][second[0]] == "F"


@on_postgres
@pytest.mark.django_db(transaction=True)
def test_one_client_move_id_sent_at_once_from_four_threads_is_stored_once(settings):
    alice, game, mine_cells = _alices_game(settings)
    x, y = mine_cells[0]
    answers: list[Any] = []

    def send() -> None:
        answers.append(
            services.game_move(
                game_id=game.id, player=alice, action="flag", x=x, y=y, client_move_id="once"
            )
        )

    at_once(4, send)
    assert len(answers) == 4
    assert {a.seq for a in answers} == {2}
    assert sum(not a.replayed for a in answers) == 1
    assert Move.objects.filter(game=game, client_move_id="once").count() == 1
    stored = Game.objects.get(pk=game.id)
    assert (stored.seq, stored.mines_left) == (2, game.mines - 1)
    connections.close_all()
