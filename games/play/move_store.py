"""The three statements of a move, written by hand: lock and read the game, write it back,
insert the Move (docs/PERFORMANCE.md, Each statement of the move path).

games.play.services decides everything and calls these inside its transaction; this module only
turns rows into a `Game` and a `Game` or `Move` into rows, with the ORM's own conversions
(demineur_site.rawsql). tests/play/test_move_store.py checks that each gives what the ORM's
`select_for_update().get()`, `save()` and `objects.create()` give, on SQLite and PostgreSQL.

Moves always write on the primary (`default`, demineur_site.db_router).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from typing import Any

from django.core.exceptions import ValidationError
from django.db import connections, transaction

from demineur_site import metrics
from demineur_site.rawsql import Columns, columns, run
from games.play.models import Game, Move

ALIAS = "default"


def _games() -> Columns[Game]:
    return columns(Game, ALIAS)


@cache
def _lock_sql(vendor: str, condition: str = "") -> str:
    games = _games()
    lock = " FOR UPDATE" if connections[ALIAS].features.has_select_for_update else ""
    also = f" AND {condition}" if condition else ""
    return f"SELECT {games.select_list} FROM {games.table} WHERE {games.pk_name} = %s{also}{lock}"


# A condition the row lock must also meet (lock_only_if), for the calls in this context only.
_condition: ContextVar[tuple[str, list[Any]] | None] = ContextVar("lock_condition", default=None)


@contextmanager
def lock_only_if(condition: tuple[str, list[Any]] | None) -> Iterator[None]:
    """Within the block, `lock_game` locks the game only if `condition` (SQL and its
    parameters, e.g. accounts.socket_credentials' "the socket's token still stands") holds in
    the same statement, and finds no game otherwise: a check that costs the move no round
    trip of its own. None: no condition."""
    token = _condition.set(condition)
    try:
        yield
    finally:
        _condition.reset(token)


def lock_game(game_id: Any) -> Game | None:
    """The game `game_id`, its row locked until the transaction ends (SQLite: the transaction's
    own write lock, settings' IMMEDIATE mode); None if there is no such game, the id is no
    game id at all, or the condition of `lock_only_if` does not hold."""
    connection = connections[ALIAS]
    pk = Game._meta.pk
    assert pk is not None
    try:
        key = pk.get_db_prep_value(pk.to_python(game_id), connection)
    except (ValidationError, ValueError, TypeError, AttributeError):
        return None  # a malformed id is an unknown game
    condition = _condition.get()
    if condition is None:
        row = run(ALIAS, _lock_sql(connection.vendor), [key], fetch=True)
    else:
        sql, params = condition
        row = run(ALIAS, _lock_sql(connection.vendor, sql), [key, *params], fetch=True)
    return None if row is None else _games().instance(row)


def move_by_client_id(game: Game, client_move_id: str) -> Move | None:
    """The game's move sent with this `client_move_id`, if any: what
    `Move.objects.filter(game=game, client_move_id=...).first()` finds (the pair is unique).
    The site sends a client_move_id with every move, so this runs on most moves."""
    connection = connections[ALIAS]
    moves = columns(Move, ALIAS)
    game_key = Move._meta.get_field("game").get_db_prep_value(game.pk, connection)
    sql = _move_by_client_id_sql(connection.vendor)
    row = run(ALIAS, sql, [game_key, client_move_id], fetch=True)
    if row is None:
        return None
    move = moves.instance(row)
    move.game = game  # the locked game: no query when the replay reads it
    return move


@cache
def _move_by_client_id_sql(vendor: str) -> str:
    moves = columns(Move, ALIAS)
    return (
        f"SELECT {moves.select_list} FROM {moves.table}"
        f" WHERE {moves.table}.game_id = %s AND {moves.table}.client_move_id = %s"
    )


def save_game(game: Game) -> None:
    """Every column of the game back to its row (what `game.save()` writes)."""
    _games().update(game)


def insert_move(move: Move) -> None:
    """The move's row (what `Move.objects.create(...)` inserts)."""
    columns(Move, ALIAS).insert(move)


def store(game: Game, move: Move) -> None:
    """`save_game(game)` then `insert_move(move)`. On PostgreSQL both go in one statement (a
    data-modifying WITH), so a move costs one round trip less. Prometheus counts it once it
    is committed (demineur_moves_total, by action)."""
    transaction.on_commit(metrics.MOVES.labels(move.action).inc, using=ALIAS)
    connection = connections[ALIAS]
    if connection.vendor != "postgresql":
        save_game(game)
        insert_move(move)
        return
    games, moves = _games(), columns(Move, ALIAS)
    run(ALIAS, _store_sql(connection.vendor), games.update_params(game) + moves.insert_params(move))
    moves.inserted_as(move)


@cache
def _store_sql(vendor: str) -> str:
    return f"WITH saved AS ({_games().update_sql}) {columns(Move, ALIAS).insert_sql}"
