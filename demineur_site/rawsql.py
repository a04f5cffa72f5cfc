"""Hand-written statements that still read and write model instances.

The move endpoint runs the same four statements thousands of times a second (token lookup,
row lock, update, insert). Django's ORM rebuilds each statement's SQL on every call, which
costs about as much as the statement itself on this machine (docs/PERFORMANCE.md, "Each
statement of the move path"). A `Columns` is built once per model and database vendor: the
column list, the SQL text, and the converters the ORM would apply to each column it reads
(`from_db_value`, the backend's own: SQLite's text dates and UUIDs, PostgreSQL's bytes) and the
preparation it would apply to each value it writes (`get_db_prep_save`). Reading a row then
costs one `Model.from_db`, the same constructor the ORM's own queries end in, so the instance
is indistinguishable from one the ORM loaded (tests/play/test_move_store.py compares them).

`run` executes one of these statements. On PostgreSQL (unless DB_PREPARED_HOT_PATH is off) it
binds the values on the server through a plain psycopg cursor, which psycopg prepares after a
few runs on a connection: the statement is parsed and planned once per connection instead of
once per move, and the values are not quoted into the text (about 0.1 ms less per move in the
worker, docs/PERFORMANCE.md). Django's own cursors bind on the client, as everywhere else.

Only plain concrete fields are handled: no inheritance, no deferred fields, no expressions as
values. That is all the hot path needs; everything else stays with the ORM.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from functools import cache
from typing import Any, Generic, TypeVar

from django.conf import settings
from django.db import connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import Field, Model

M = TypeVar("M", bound=Model)
Converter = Callable[[Any, Any, BaseDatabaseWrapper], Any]


def _column(field: Field[Any, Any]) -> str:
    assert field.column is not None  # a concrete field always has its column
    return field.column


class Columns(Generic[M]):
    """The concrete fields of `model` on one database: SELECT list, row → instance, and
    instance → values of an UPDATE or an INSERT."""

    def __init__(self, model: type[M], alias: str) -> None:
        self.model = model
        self.alias = alias
        connection = connections[alias]
        self.table = connection.ops.quote_name(model._meta.db_table)
        self.fields: list[Field[Any, Any]] = list(model._meta.concrete_fields)
        self.attnames = [f.attname for f in self.fields]
        self.names = [connection.ops.quote_name(_column(f)) for f in self.fields]
        self.select_list = ", ".join(f"{self.table}.{name}" for name in self.names)
        self._converters: list[tuple[int, list[Converter], Any]] = []
        for i, field in enumerate(self.fields):
            expression = field.get_col(model._meta.db_table)
            converters = connection.ops.get_db_converters(
                expression
            ) + expression.get_db_converters(connection)
            if converters:
                self._converters.append((i, converters, expression))
        pk = model._meta.pk
        assert pk is not None
        self.pk: Field[Any, Any] = pk
        self.pk_name = connection.ops.quote_name(_column(pk))
        self.written = [f for f in self.fields if not f.primary_key]
        self.update_sql = (
            f"UPDATE {self.table} SET "
            + ", ".join(f"{connection.ops.quote_name(_column(f))} = %s" for f in self.written)
            + f" WHERE {self.pk_name} = %s"
        )
        self.inserted = [f for f in self.fields if not (f.primary_key and f.db_returning)]
        self.insert_sql = (
            f"INSERT INTO {self.table} ("
            + ", ".join(connection.ops.quote_name(_column(f)) for f in self.inserted)
            + ") VALUES ("
            + ", ".join("%s" for _ in self.inserted)
            + ")"
        )

    def instance(self, row: Sequence[Any]) -> M:
        """The model instance of one row of `select_list`, as the ORM would have built it."""
        values = list(row)
        if self._converters:
            connection = connections[self.alias]
            for i, converters, expression in self._converters:
                value = values[i]
                for convert in converters:
                    value = convert(value, expression, connection)
                values[i] = value
        return self.model.from_db(self.alias, self.attnames, values)

    def _prepared(self, obj: M, fields: Iterable[Field[Any, Any]]) -> list[Any]:
        connection = connections[self.alias]
        return [f.get_db_prep_save(getattr(obj, f.attname), connection) for f in fields]

    def update_params(self, obj: M) -> list[Any]:
        """The values of `update_sql` for `obj`: every column, then the key."""
        values = self._prepared(obj, self.written)
        values.append(self.pk.get_db_prep_value(obj.pk, connections[self.alias]))
        return values

    def insert_params(self, obj: M) -> list[Any]:
        """The values of `insert_sql` for `obj` (its defaults were applied when it was built;
        a field with a database default is written like any other)."""
        return self._prepared(obj, self.inserted)

    def inserted_as(self, obj: M) -> None:
        """Mark `obj` as a row of the database, as `Model.objects.create` leaves it."""
        obj._state.adding = False
        obj._state.db = self.alias

    def update(self, obj: M) -> None:
        """Write every column of `obj` to its row, as `obj.save()` of an existing row does."""
        run(self.alias, self.update_sql, self.update_params(obj))

    def insert(self, obj: M) -> None:
        """Insert `obj` as `Model.objects.create` would, without reading back a generated key:
        nothing on the hot path needs the id of the row it inserts."""
        run(self.alias, self.insert_sql, self.insert_params(obj))
        self.inserted_as(obj)


def run(
    alias: str, sql: str, params: Sequence[Any], *, fetch: bool = False
) -> tuple[Any, ...] | None:
    """Execute one statement on `alias` inside the current transaction; with `fetch`, its
    first row (None if it found none). (Asking the cursor whether rows came back would build
    its column descriptions: a few percent of a move for a row as wide as a game's.) Django's cursor still opens the connection and runs its health check, and
    a database error is Django's (IntegrityError, OperationalError ...) as with the ORM.
    While Django logs queries (DEBUG, a test counting them), Django's cursor runs it, so that
    no statement is missing from the log."""
    connection = connections[alias]
    with connection.cursor() as cursor:
        target = _target(connection, cursor)
        with connection.wrap_database_errors:
            target.execute(sql, params)
            return target.fetchone() if fetch else None


def rows(alias: str, sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
    """Every row of one read, by `run`'s path (bound and prepared on PostgreSQL). Datetimes
    are passed as the backend stores them (SQLite compares its text). For the statements the
    clocks run ten times a second in every live process (games.races.services,
    games.arenas.services, games.daily.services): built by the ORM, each cost more CPU than
    PostgreSQL's answer (docs/PERFORMANCE.md, "The clocks")."""
    connection = connections[alias]
    if connection.vendor != "postgresql":
        adapt = connection.ops.adapt_datetimefield_value
        params = [adapt(p) if isinstance(p, datetime) else p for p in params]
    with connection.cursor() as cursor:
        target = _target(connection, cursor)
        with connection.wrap_database_errors:
            target.execute(sql, params)
            return list(target.fetchall())


def _target(connection: BaseDatabaseWrapper, cursor: Any) -> Any:
    """Django's own cursor, or on PostgreSQL (unless DB_PREPARED_HOT_PATH is off, or Django
    is logging queries) the connection's server-binding cursor."""
    if (
        connection.vendor != "postgresql"
        or not settings.DB_PREPARED_HOT_PATH
        or connection.queries_logged
    ):
        return cursor
    return _bound_cursor(connection, cursor.connection)


def _bound_cursor(connection: BaseDatabaseWrapper, driver_connection: Any) -> Any:
    """One server-binding psycopg cursor per driver connection, kept on Django's connection
    (which belongs to one thread): a new psycopg cursor copies the connection's adapters,
    a few percent of a move's time when made for every statement."""
    bound = getattr(connection, "_demineur_bound_cursor", None)
    if bound is None or bound.closed or bound.connection is not driver_connection:
        import psycopg  # only here: SQLite deployments need no driver

        bound = psycopg.Cursor(driver_connection)
        connection._demineur_bound_cursor = bound  # type: ignore[attr-defined]
    return bound


@cache
def _columns(model: type[Model], alias: str, vendor: str) -> Columns[Any]:
    return Columns(model, alias)


def columns(model: type[M], alias: str = "default") -> Columns[M]:
    """The `Columns` of `model` on `alias`, built once (per vendor: the test settings can swap
    the database under a running process)."""
    return _columns(model, alias, connections[alias].vendor)
