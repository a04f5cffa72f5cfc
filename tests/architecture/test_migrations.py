"""The migrations: the squashed schema is what the models say, and a database that ran the
history it replaces is up to date (docs/ARCHITECTURE.md, "Migrations")."""

from __future__ import annotations

from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.db.migrations.loader import MigrationLoader
from django.db.migrations.recorder import MigrationRecorder

from demineur_site.history_check import BEFORE_THE_SQUASH, half_run_squashes

pytestmark = pytest.mark.django_db

OURS = ("accounts", "games")


def _squashes() -> list[tuple[tuple[str, str], list[tuple[str, str]]]]:
    loader = MigrationLoader(None, ignore_no_migrations=True)
    return [
        (key, list(migration.replaces))
        for key, migration in loader.disk_migrations.items()
        if key[0] in OURS and migration.replaces
    ]


def test_the_models_need_no_migration_the_tree_does_not_hold() -> None:
    out = StringIO()
    try:
        call_command("makemigrations", *OURS, check=True, dry_run=True, stdout=out)
    except SystemExit as missing:  # --check exits 1 when a change has no migration
        pytest.fail(f"models and migrations disagree (exit {missing.code}):\n{out.getvalue()}")
    assert "No changes detected" in out.getvalue()


# Migrations made after the last squash, for models added since (docs/ARCHITECTURE.md,
# Migrations): none yet.
SINCE_THE_SQUASH: list[tuple[str, str]] = []


def test_every_migration_of_ours_is_a_squash_of_the_landed_history_or_came_after_it() -> None:
    loader = MigrationLoader(None, ignore_no_migrations=True)
    ours = sorted(key for key in loader.disk_migrations if key[0] in OURS)
    assert ours == sorted(
        [
            ("accounts", "0001_schema"),
            ("accounts", "0002_counts"),
            ("accounts", "0003_records_luck_insights_apps"),
            ("games", "0001_schema"),
            ("games", "0002_puzzles_counters_luck_seasons_overlay"),
            *SINCE_THE_SQUASH,
        ]
    )
    assert not any(loader.disk_migrations[key].replaces for key in SINCE_THE_SQUASH)
    replaced = [name for _key, names in _squashes() for name in names]
    assert len(replaced) == len(set(replaced)), "a replaced migration is claimed twice"
    assert not set(replaced) & set(ours), "a squash replaces a migration still on disk"
    # Every squash names the commit a database that ran part of its history migrates with first.
    assert {key for key, _names in _squashes()} <= set(BEFORE_THE_SQUASH)


def test_a_database_that_ran_the_old_history_has_nothing_to_migrate() -> None:
    recorder = MigrationRecorder(connection)
    rows: Any = recorder.migration_qs
    squashed = [key for key, _names in _squashes()]
    for app, name in squashed:
        rows.filter(app=app, name=name).delete()
    for _key, names in _squashes():
        for app, name in names:
            recorder.record_applied(app, name)
    # What the test database holds now is the record of a database migrated before the squash.
    assert not recorder.applied_migrations().keys() & set(squashed)

    executor = MigrationExecutor(connection)
    assert executor.migration_plan(executor.loader.graph.leaf_nodes()) == []
    for key in squashed:
        assert key in executor.loader.applied_migrations


def test_a_database_that_ran_part_of_the_old_history_is_refused_by_name() -> None:
    recorder = MigrationRecorder(connection)
    assert half_run_squashes("default") == []
    call_command("check", databases=["default"], stdout=StringIO())  # passes as it is
    (app, name), names = next(item for item in _squashes() if len(item[1]) > 1)
    for gone in [(app, name), *names]:  # a new database records both the squash and its names
        recorder.migration_qs.filter(app=gone[0], name=gone[1]).delete()
    for replaced in names[:-1]:
        recorder.record_applied(*replaced)
    assert half_run_squashes("default") == [(app, name)]
    with pytest.raises(SystemCheckError) as refused:
        call_command("check", databases=["default"], stdout=StringIO(), stderr=StringIO())
    assert f"ran part of the history that {app}.{name} squashes" in str(refused.value)
    assert BEFORE_THE_SQUASH[app, name] in str(refused.value)
