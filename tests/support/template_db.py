"""Migrate once per run, copy for everyone else.

Applying every migration costs about 8 s of CPU (Django renders the models' state again after
each operation: 52 migrations, 241 renders; cProfile of `manage.py migrate`, docs/TESTING.md).
A `make test` run did it once per pytest-xdist worker for the test database and once more
for each module that starts its own servers on a SQLite file: nine times, a minute of CPU on
a 2-core machine. Now the run does it once per kind of database and copies the result:

* `migrated_sqlite()`: a SQLite file made by `manage.py migrate` (the real settings, as `make
  run` makes it), for the servers the tests start and, on SQLite, for each worker's test
  database;
* `django_db_setup` (tests/conftest.py) on PostgreSQL: the first worker makes the test
  database once as a template (pytest-django's own way, migrations included) and each worker
  takes `CREATE DATABASE ... TEMPLATE` of it.

Either way the worker then lets pytest-django set the database up with `keepdb`, which runs
`migrate` again: a no-op on a copy of a migrated database, and what makes a stale or broken
copy visible (it would apply what is missing, or fail).

"Once per run": pytest-xdist gives every worker of one run the same id
(PYTEST_XDIST_TESTRUNUID, set by the controller in tests/conftest.py so that it can clean up
after the run); the first worker to take the run's file lock makes the thing, the others wait
for the lock and find it made. Without xdist the same code makes it once in the one process."""

from __future__ import annotations

import fcntl
import os
import shutil
import sqlite3
import tempfile
import threading
import uuid
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any

from deploy.processes import run_python, server_env

_PREFIX = "demineur-run-"
_OWN_RUN = uuid.uuid4().hex  # a process outside xdist is a run of its own


def run_id() -> str:
    return os.environ.get("PYTEST_XDIST_TESTRUNUID") or _OWN_RUN


def _path(name: str, run: str | None = None) -> Path:
    return Path(tempfile.gettempdir()) / f"{_PREFIX}{run or run_id()}-{name}"


@contextmanager
def _locked(name: str, run: str | None = None) -> Iterator[None]:
    with open(_path(f"{name}.lock", run), "a+") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        yield


def once(name: str, make: Callable[[Path], None], run: str | None = None) -> Path:
    """The run's `name`, made by `make(path)` by the first caller of the run; later callers, in
    any worker, wait until it is made. `make` writes `path` only when it succeeded. `run`: the
    run's id where this process is not one of its workers (the controller)."""
    path = _path(name, run)
    with _locked(name, run):
        if not path.exists():
            make(path)
            if not path.exists():
                raise RuntimeError(f"{make!r} did not make {path}")
    return path


def _migrate_into(path: Path) -> None:
    partial = path.with_name(path.name + ".partial")
    partial.unlink(missing_ok=True)
    done = run_python(
        "manage.py", "migrate", "--noinput", env=server_env(debug=True, SQLITE_PATH=str(partial))
    )
    if done.returncode != 0:
        raise RuntimeError(f"manage.py migrate failed:\n{done.stderr}")
    # `make run`'s settings keep SQLite in WAL mode: everything into the one file before it is
    # copied (a copy without its -wal file would miss the last writes).
    with closing(sqlite3.connect(partial)) as db:
        db.execute("PRAGMA journal_mode=DELETE")
    partial.rename(path)


def migrated_sqlite(run: str | None = None) -> Path:
    """A SQLite file with every migration applied, made once per run: copy it, never write it."""
    return once("migrated.sqlite3", _migrate_into, run)


def make_ahead(run: str) -> threading.Thread:
    """The controller of a parallel run starts making the run's migrated SQLite file as the run
    starts, in a thread of its own, holding the file's lock: a worker that needs it (every
    worker on SQLite; on PostgreSQL, the first module that starts servers on a SQLite file)
    waits on that lock for what is left, instead of making it inside a test's set-up (about
    20 s there on a busy machine, the longest set-up of a PostgreSQL run)."""
    thread = threading.Thread(
        target=migrated_sqlite, args=(run,), name="migrated-sqlite", daemon=True
    )
    thread.start()
    return thread


def copy_migrated_sqlite(target: Path | str) -> None:
    shutil.copyfile(migrated_sqlite(), target)


def postgres_template(connection: Any, verbosity: int = 0) -> str:
    """The name of a PostgreSQL test database with every migration applied, made once per run
    from `connection` (the worker's default alias, before its own test database exists) and
    left without a session on it, as `CREATE DATABASE ... TEMPLATE` requires."""
    test_settings = connection.settings_dict.setdefault("TEST", {})
    own_name = test_settings.get("NAME")
    # The workers' names end in pytest-django's suffix (_gw0, _gw1, ...); the template's does not.
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    base = connection.creation._get_test_db_name()
    template = f"{base.removesuffix(f'_{worker}') if worker else base}_template"

    def make(marker: Path) -> None:
        from django.conf import settings

        alias = connection.alias
        real_name = connection.settings_dict["NAME"]
        test_settings["NAME"] = template
        try:
            connection.creation.create_test_db(verbosity=verbosity, autoclobber=True)
        finally:
            connection.close()
            test_settings["NAME"] = own_name
            # create_test_db pointed the alias at the template: back to the real name, so that
            # the worker's own test database is made (and named) as before.
            connection.settings_dict["NAME"] = real_name
            settings.DATABASES[alias]["NAME"] = real_name
        marker.write_text(template)

    once(f"postgres-{template}", make)
    return template


def clone_postgres(connection: Any, template: str, target: str) -> None:
    """`target` made afresh as a copy of `template`. One clone at a time: PostgreSQL refuses a
    template that another session (another worker's CREATE DATABASE) is reading."""
    quote = connection.ops.quote_name
    with _locked("postgres-clone"), connection.creation._nodb_cursor() as cursor:
        cursor.execute(f"DROP DATABASE IF EXISTS {quote(target)}")
        cursor.execute(f"CREATE DATABASE {quote(target)} TEMPLATE {quote(template)}")


def clean_up(run: str, connection: Any | None) -> None:
    """After the run (the controller, tests/conftest.py): its files and its PostgreSQL template."""
    folder = Path(tempfile.gettempdir())
    for leftover in folder.glob(f"{_PREFIX}{run}-*"):
        template_marker = leftover.name.startswith(f"{_PREFIX}{run}-postgres-")
        if template_marker and not leftover.name.endswith(".lock") and connection is not None:
            with connection.creation._nodb_cursor() as cursor:
                name = connection.ops.quote_name(leftover.read_text())
                cursor.execute(f"DROP DATABASE IF EXISTS {name}")
        leftover.unlink(missing_ok=True)
