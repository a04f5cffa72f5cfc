"""The suite's flush between tests that commit (tests/support/fast_flush.py) leaves PostgreSQL
as Django's TRUNCATE leaves it: every Django table empty and the raw count tables emptied as
their TRUNCATE triggers empty them, with no delta left behind by the row triggers."""

from __future__ import annotations

import pytest
from django.core.management.color import no_style
from django.db import connection, transaction

from tests.support import fast_flush
from tests.support.board_history import board_history

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(
        connection.vendor != "postgresql",
        reason="the deleting flush replaces PostgreSQL's TRUNCATE",
    ),
]

COUNTS = ("accounts_board_count", "accounts_daily_count")


def _rows() -> dict[str, int]:
    tables = connection.introspection.django_table_names(only_existing=True, include_views=False)
    with connection.cursor() as cursor:
        counted = {}
        for table in [*tables, *COUNTS]:
            cursor.execute(f"SELECT count(*) FROM {connection.ops.quote_name(table)}")
            counted[table] = cursor.fetchone()[0]
    return counted


def _flush_with(sql_flush: object) -> dict[str, int]:
    tables = connection.introspection.django_table_names(only_existing=True, include_views=False)
    with transaction.atomic():
        # The rows were written in this test's transaction: their deferred foreign-key checks
        # run now, as they would have at the commit that precedes a real flush.
        with connection.cursor() as cursor:
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        connection.ops.execute_sql_flush(sql_flush(connection.ops, no_style(), tables))  # type: ignore[operator]
        after = _rows()
        transaction.set_rollback(True)
    return after


def test_the_deleting_flush_empties_what_truncate_empties() -> None:
    board_history(seed=5, players=4, games=30)
    before = _rows()
    assert before["accounts_board_count"] > 0 and before["accounts_player_stats"] > 0

    truncated = _flush_with(fast_flush._truncating_flush)
    deleted = _flush_with(fast_flush._deleting_flush)

    assert _rows() == before  # both ran inside a transaction rolled back
    assert deleted == truncated
    assert set(deleted.values()) == {0}


def test_the_suite_uses_the_deleting_flush() -> None:
    tables = ["accounts_player_stats"]
    statements = connection.ops.sql_flush(no_style(), tables)
    assert any(s.startswith("DELETE FROM") for s in statements)
    assert not any("TRUNCATE" in s for s in statements)
