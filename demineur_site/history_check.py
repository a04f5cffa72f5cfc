"""A database that ran only part of a squashed history (docs/ARCHITECTURE.md, "Migrations").

Django uses a squash when a database ran all of the migrations it replaces (it is up to date)
or none of them (a new database). A database that ran some of them cannot go on: the files of
the rest are gone. Django then fails late, with a message about lazy references; this check,
run by `migrate` and `check --database`, names the squash and the way out instead."""

from __future__ import annotations

from typing import Any

from django.core import checks
from django.db import DatabaseError, connections
from django.db.migrations.loader import MigrationLoader
from django.db.migrations.recorder import MigrationRecorder

# Per squash, the last commit of main whose migrations it had not yet taken over: a database
# that ran part of what a squash replaces migrates with that commit first.
BEFORE_THE_SQUASH = {
    ("accounts", "0001_schema"): "988c73f",
    ("accounts", "0002_counts"): "988c73f",
    ("games", "0001_schema"): "988c73f",
    ("accounts", "0003_records_luck_insights_apps"): "640661d",
    ("games", "0002_puzzles_counters_luck_seasons_overlay"): "640661d",
}


def half_run_squashes(alias: str) -> list[tuple[str, str]]:
    """The squashes whose replaced migrations this database ran some, not all, of."""
    connection = connections[alias]
    recorder = MigrationRecorder(connection)
    if not recorder.has_table():
        return []
    applied = set(recorder.applied_migrations())
    loader = MigrationLoader(None, ignore_no_migrations=True)
    half = []
    for key, migration in loader.disk_migrations.items():
        ran = [name in applied for name in migration.replaces or ()]
        if any(ran) and not all(ran):
            half.append(key)
    return sorted(half)


@checks.register(checks.Tags.database)
def squashed_history_check(databases: Any = None, **_: Any) -> list[checks.CheckMessage]:
    errors: list[checks.CheckMessage] = []
    for alias in databases or ():
        try:
            half = half_run_squashes(alias)
        except DatabaseError:
            continue  # no database to read yet: migrate says so itself
        for app, name in half:
            errors.append(
                checks.Error(
                    f"database {alias!r} ran part of the history that {app}.{name} squashes",
                    hint=(
                        f"migrate it with the code of main at {BEFORE_THE_SQUASH[app, name]} first, "
                        "then with this one (docs/ARCHITECTURE.md, Migrations)"
                    ),
                    id="demineur.E001",
                )
            )
    return errors
