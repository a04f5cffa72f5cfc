"""The flush between the suite's tests that commit, on PostgreSQL: Django's TRUNCATE of every
table against the suite's DELETE per table (tests/support/fast_flush.py). Works in a database
of its own (DATABASE_URL's, default `demineur_flushbench`; its name must end in `bench`: it is
emptied ROUNDS times), made if missing and migrated, then times ROUNDS flushes of each kind,
interleaved so that the machine's load weighs on both alike, and prints the medians.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/demineur_flushbench \\
        .venv/bin/python -m bench.suite.bench_flush
"""

from __future__ import annotations

import os

from bench import cli
from bench.harness.database import create_database, name_of, setup_django
from bench.harness.report import say, show, table
from bench.harness.timing import interleaved, median

ROUNDS = 40
DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/demineur_flushbench"


def main() -> None:
    cli.parser(__doc__).parse_args()
    url = os.environ.get("DATABASE_URL", DEFAULT_URL)
    if not url.startswith("postgres"):
        raise SystemExit("DATABASE_URL must name a PostgreSQL database")
    create_database(url, suffixes=("bench",))
    say(f"migrating {name_of(url)}")
    setup_django({"DATABASE_URL": url}, drop=("REDIS_URL",), settings="demineur_site.settings_test")
    from django.core.management.color import no_style
    from django.db import connection
    from django.db.backends.postgresql.operations import DatabaseOperations

    from tests.support import fast_flush

    tables = connection.introspection.django_table_names(only_existing=True, include_views=False)
    ops = connection.ops
    assert isinstance(ops, DatabaseOperations)
    kinds = {
        "truncate": fast_flush._truncating_flush(ops, no_style(), tables),
        "delete": fast_flush._deleting_flush(ops, no_style(), tables),
    }

    def said(done: int, _: object) -> None:
        if done % 10 == 0:
            say(f"  {done}/{ROUNDS} rounds")

    cases = {
        kind: (lambda s=statements: ops.execute_sql_flush(s)) for kind, statements in kinds.items()
    }
    timed = interleaved(cases, ROUNDS, warmup=0, on_round=said)["wall"]
    rows = [[kind, len(tables), f"{median(values) * 1000:.1f}"] for kind, values in timed.items()]
    show(table(["flush", "tables", "median ms"], rows))
    say(f"truncate / delete: {median(timed['truncate']) / median(timed['delete']):.0f}x")


if __name__ == "__main__":
    main()
