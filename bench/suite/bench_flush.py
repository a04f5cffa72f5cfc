"""The flush between the suite's tests that commit, on PostgreSQL: Django's TRUNCATE of every
table against the suite's DELETE per table (tests/support/fast_flush.py). Makes a database of
its own (`demineur_flushbench`), migrates it, then times ROUNDS flushes of each kind,
interleaved so that the machine's load weighs on both alike, and prints the medians.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/demineur_flushbench \\
        .venv/bin/python -m bench.suite.bench_flush
"""

from __future__ import annotations

import os
import statistics
import sys
import time

ROUNDS = 40


def main() -> None:
    os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/demineur_flushbench")
    os.environ.pop("REDIS_URL", None)
    os.environ["DJANGO_SETTINGS_MODULE"] = "demineur_site.settings_test"
    import django

    django.setup()
    from django.core.management import call_command
    from django.core.management.color import no_style
    from django.db import connection

    from tests.support import fast_flush

    if connection.vendor != "postgresql":
        sys.exit("DATABASE_URL must name a PostgreSQL database")
    print("migrating", connection.settings_dict["NAME"], flush=True)
    call_command("migrate", verbosity=0)
    tables = connection.introspection.django_table_names(only_existing=True, include_views=False)
    kinds = {
        "truncate": fast_flush._truncating_flush(connection.ops, no_style(), tables),
        "delete": fast_flush._deleting_flush(connection.ops, no_style(), tables),
    }
    timings: dict[str, list[float]] = {kind: [] for kind in kinds}
    for done in range(ROUNDS):
        for kind, statements in kinds.items():
            started = time.perf_counter()
            connection.ops.execute_sql_flush(statements)
            timings[kind].append(time.perf_counter() - started)
        if (done + 1) % 10 == 0:
            print(f"  {done + 1}/{ROUNDS} rounds", flush=True)
    for kind, values in timings.items():
        print(f"{kind}: {len(tables)} tables, median {statistics.median(values) * 1000:.1f} ms")
    ratio = statistics.median(timings["truncate"]) / statistics.median(timings["delete"])
    print(f"truncate / delete: {ratio:.0f}x")


if __name__ == "__main__":
    main()
