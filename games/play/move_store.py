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
from dataclasses import dataclass
from functools import cache
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import IntegrityError, connections, transaction
from django.db.models import Field

from demineur_site import metrics
from demineur_site.rawsql import Columns, columns, run
from games.play.models import Game, GameState, Move

ALIAS = "default"


def _games() -> Columns[Game]:
    return columns(Game, ALIAS)


@cache
def _lock_sql(vendor: str, condition: str = "", lock: bool = True) -> str:
    games = _games()
    locked = lock and connections[ALIAS].features.has_select_for_update
    also = f" AND {condition}" if condition else ""
    return f"SELECT {games.select_list} FROM {games.table} WHERE {games.pk_name} = %s{also}" + (
        " FOR UPDATE" if locked else ""
    )


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
    return _read_game(game_id, lock=True)


def read_game(game_id: Any) -> Game | None:
    """`lock_game` without the lock: the row as it is now, for `store_if_unchanged`."""
    return _read_game(game_id, lock=False)


def _read_game(game_id: Any, *, lock: bool) -> Game | None:
    connection = connections[ALIAS]
    pk = Game._meta.pk
    assert pk is not None
    try:
        key = pk.get_db_prep_value(pk.to_python(game_id), connection)
    except (ValidationError, ValueError, TypeError, AttributeError):
        return None  # a malformed id is an unknown game
    condition = _condition.get()
    if condition is None:
        row = run(ALIAS, _lock_sql(connection.vendor, "", lock), [key], fetch=True)
    else:
        sql, params = condition
        row = run(ALIAS, _lock_sql(connection.vendor, sql, lock), [key, *params], fetch=True)
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


def can_store_unlocked() -> bool:
    """Whether `store_if_unchanged` may be used here: on PostgreSQL (where the game's update
    and the move's insert are one statement) outside any transaction (each statement is then
    its own), unless DB_MOVE_COMPARE_AND_SET is off."""
    connection = connections[ALIAS]
    return (
        settings.DB_MOVE_COMPARE_AND_SET
        and connection.vendor == "postgresql"
        and not connection.in_atomic_block
    )


@dataclass(frozen=True)
class Also:
    """One more write in a move's compare-and-set statement (`store_if_unchanged`): the body
    of a data-modifying CTE named `also`, written by the room that owns its table (a race's
    next `seq`). It may read `saved`, the game's updated row, and must return exactly one row
    for the move to stand: none, and the whole statement is undone as a lost compare-and-set."""

    sql: str
    params: tuple[Any, ...]


def store_if_unchanged(
    game: Game,
    move: Move,
    *,
    changed: tuple[str, ...],
    read_seq: int,
    also: Also | None = None,
) -> tuple[Any, ...] | None:
    """The compare-and-set of a move (docs/PERFORMANCE.md, The move without a lock): write the
    game's `changed` columns and insert `move` in one statement, only if the game's row still
    has the `seq` it had when `read_game` read it and is still being played (and `also` found
    its row). Returns `also`'s row (an empty tuple without `also`) when it did; None when it
    did not (another writer came first, `also` found no row, or the move's `client_move_id`
    was just taken), and then no row is written. Only where `can_store_unlocked()`.

    The move's `game_id` is the id the update returns (with `also`, only once `also` has its
    row): no id, and the insert breaks the column's NOT NULL, which undoes the whole
    statement."""
    connection = connections[ALIAS]
    games, moves = _games(), columns(Move, ALIAS)
    game_values = [
        f.get_db_prep_save(getattr(game, f.attname), connection) for f in _game_fields(changed)
    ]
    move_values = moves.insert_params(move)
    del move_values[_game_column_index()]
    key = games.pk.get_db_prep_value(game.pk, connection)
    params = [*game_values, key, read_seq, GameState.PLAYING.value]
    if also is not None:
        params += also.params
    params += move_values
    sql = _compare_and_set_sql(connection.vendor, changed, None if also is None else also.sql)
    try:
        row = run(ALIAS, sql, params, fetch=also is not None)
    except IntegrityError:
        return None
    metrics.MOVES.labels(move.action).inc()
    moves.inserted_as(move)
    return () if also is None else row


def _quoted(field: Field[Any, Any]) -> str:
    column = field.get_attname_column()[1]
    assert column is not None  # a concrete field has its column
    return str(connections[ALIAS].ops.quote_name(column))


def _game_field(name: str) -> Field[Any, Any]:
    return next(f for f in Game._meta.concrete_fields if f.name == name)


@cache
def _game_fields(names: tuple[str, ...]) -> tuple[Field[Any, Any], ...]:
    """The fields of `names`, found once: a move would otherwise scan the model's fields for
    each column it writes."""
    return tuple(_game_field(name) for name in names)


@cache
def _game_column_index() -> int:
    return [f.name for f in columns(Move, ALIAS).inserted].index("game")


@cache
def _compare_and_set_sql(vendor: str, changed: tuple[str, ...], also: str | None = None) -> str:
    games, moves = _games(), columns(Move, ALIAS)
    assignments = ", ".join(f"{_quoted(f)} = %s" for f in _game_fields(changed))
    values = ["%s"] * len(moves.inserted)
    saved_id = f"SELECT {games.pk_name} FROM saved"
    if also is not None:
        saved_id += " WHERE EXISTS (SELECT 1 FROM also)"
    values[_game_column_index()] = f"({saved_id})"
    names = ", ".join(_quoted(f) for f in moves.inserted)
    saved = (
        f"saved AS (UPDATE {games.table} SET {assignments} WHERE {games.pk_name} = %s"
        f" AND {_quoted(_game_field('seq'))} = %s AND {_quoted(_game_field('state'))} = %s"
        f" RETURNING {games.pk_name})"
    )
    insert = f"INSERT INTO {moves.table} ({names}) VALUES ({', '.join(values)})"
    if also is None:
        return f"WITH {saved} {insert}"
    # The insert runs as a CTE of its own (a data-modifying CTE always runs to its end), and
    # the statement answers `also`'s row.
    return f"WITH {saved}, also AS ({also}), inserted AS ({insert}) SELECT * FROM also"
