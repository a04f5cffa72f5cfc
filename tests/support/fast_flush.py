"""A faster flush between the tests that commit, on PostgreSQL.

After each `transactional_db` test (the browser tests, the socket tests: about 340), Django
empties every table with one `TRUNCATE`. PostgreSQL makes a TRUNCATE of 31 tables cost a new
file per table and a lock on each: measured 944 ms against 17 ms for the same tables emptied
by `DELETE` (medians of 40 each, on this machine under the load of a parallel suite;
docs/TESTING.md). A test leaves a few rows behind, so `DELETE` is the cheap way here.

`DELETE` differs from `TRUNCATE` in what the schema does on each, and this flush keeps the
outcome the same:
* foreign keys: Django makes them `DEFERRABLE INITIALLY DEFERRED`, so the order of the
  deletes does not matter inside the flush's transaction (`SET CONSTRAINTS ALL DEFERRED`
  covers any declared deferrable by hand);
* the board and daily count triggers (accounts/migrations/0002_counts.py) append a -1 delta
  for each deleted row, while TRUNCATE's statement triggers empty the counts: the deltas are
  switched off (`demineur.board_counts`) and the counts are emptied here as those statement
  triggers would.

A flush that resets sequences or cascades to tables outside the list keeps Django's TRUNCATE.
"""

from __future__ import annotations

from typing import Any

from django.db.backends.postgresql.operations import DatabaseOperations

# Raw tables of counts that a TRUNCATE of a Django table empties through a trigger, and what
# each trigger deletes: {Django table: [statement]}.
COUNTS_EMPTIED_WITH = {
    "accounts_personal_record": [
        "DELETE FROM accounts_board_count WHERE left(board, 7) <> 'streak:'"
    ],
    "accounts_player_stats": ["DELETE FROM accounts_board_count WHERE left(board, 7) = 'streak:'"],
    "accounts_daily_entry": ["DELETE FROM accounts_daily_count"],
}

_truncating_flush = DatabaseOperations.sql_flush


def _deleting_flush(
    self: DatabaseOperations,
    style: Any,
    tables: list[str],
    *,
    reset_sequences: bool = False,
    allow_cascade: bool = False,
) -> list[str]:
    if reset_sequences or allow_cascade or not tables:
        return _truncating_flush(
            self, style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade
        )
    statements = ["SET LOCAL demineur.board_counts = 'off'", "SET CONSTRAINTS ALL DEFERRED"]
    statements += [f"DELETE FROM {self.quote_name(table)}" for table in tables]
    for table in tables:
        statements += COUNTS_EMPTIED_WITH.get(table, [])
    return statements


def install() -> None:
    """Use the deleting flush for this test process (PostgreSQL only; SQLite's flush is
    already a DELETE per table)."""
    DatabaseOperations.sql_flush = _deleting_flush  # type: ignore[method-assign, assignment]
