"""The suite's shared fixtures live in tests/support/; importing them here makes them visible
to every test package."""

import threading
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import settings as hypothesis_settings

from tests.support import fast_flush, ordering, template_db
from tests.support.personas import (  # noqa: F401  (fixtures)
    alice,
    alice_api,
    alice_token,
    anon_api,
    bob,
    bob_api,
    bob_token,
    carol,
    carol_api,
    close_thread_connections,
    dave,
    dave_api,
    session_cookie,
)
from tests.support.sockets import new_game  # noqa: F401  (fixture)
from tests.support.throttles import rates  # noqa: F401  (fixture)

# Hypothesis's per-example deadline (200 ms) is a timing assertion: on a loaded machine a
# correct example took 272 ms and failed the run. No test of the suite asserts a time (speed
# is measured under bench/), so the deadline is off for every property test.
hypothesis_settings.register_profile("suite", deadline=None)
hypothesis_settings.load_profile("suite")

# The flush after each test that commits deletes rows instead of truncating tables on
# PostgreSQL (tests/support/fast_flush.py: 17 ms instead of 944 ms, measured).
fast_flush.install()

# The stack tests start their own server processes (serve-prod's Caddy, gunicorn and uvicorn;
# uvicorn pairs) in front of the real PostgreSQL and Redis, or take those services down and
# bring them back. They run in their own target, `make test-stack`, which .ci/run runs after
# `make test` (README, Tests): together they are the whole suite.
STACK_MODULES = {
    "tests/deploy/test_serve_prod.py",
    "tests/deploy/test_metrics_stack.py",
    "tests/deploy/test_proxy_limits.py",
    "tests/deploy/test_slow_readers.py",
    "tests/deploy/test_replica.py",
    "tests/reliability/test_crash.py",
    "tests/reliability/test_postgres_outage.py",
    "tests/reliability/test_redis_outage.py",
    "tests/reliability/test_socket_outage.py",
    "tests/live/test_multiprocess.py",
    "tests/security/test_ws_multiprocess.py",
    "tests/races/test_race_clock.py",
}


def pytest_configure(config: Any) -> None:
    """The controller names the run (pytest-xdist would, but keeps the name to itself) so that it
    can remove what the workers made for the run once it ends (template_db.clean_up)."""
    if not hasattr(config, "workerinput") and hasattr(config.option, "testrunuid"):
        config.option.testrunuid = config.option.testrunuid or uuid.uuid4().hex


_MADE_AHEAD: list[threading.Thread] = []


def pytest_sessionstart(session: Any) -> None:
    """The controller of a parallel run has the migrated SQLite file made while the workers
    start (template_db.make_ahead)."""
    config = session.config
    run = getattr(config.option, "testrunuid", None)
    if run and not hasattr(config, "workerinput") and getattr(config.option, "numprocesses", 0):
        _MADE_AHEAD.append(template_db.make_ahead(str(run)))


@pytest.fixture(scope="session")
def django_db_setup(
    request: pytest.FixtureRequest,
    django_test_environment: None,
    django_db_blocker: Any,
    django_db_modify_db_settings: None,
) -> Iterator[None]:
    """pytest-django's set-up, but each worker's test database starts as a copy of one migrated
    once for the whole run (tests/support/template_db.py), and `keepdb` makes pytest-django
    run the (no-op) migrations on the copy instead of on an empty database."""
    from django.db import connections
    from django.test.utils import setup_databases, teardown_databases

    connection = connections["default"]
    verbosity = request.config.option.verbose
    with django_db_blocker.unblock():
        target = connection.creation._get_test_db_name()
        if connection.vendor == "sqlite" and not connection.creation.is_in_memory_db(target):
            template_db.copy_migrated_sqlite(target)
        elif connection.vendor == "postgresql":
            template = template_db.postgres_template(connection, verbosity)
            template_db.clone_postgres(connection, template, target)
        databases = setup_databases(verbosity=verbosity, interactive=False, keepdb=True)
    yield
    with django_db_blocker.unblock():
        teardown_databases(databases, verbosity=verbosity)


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups (ordering.py)
def pytest_collection_modifyitems(config: object, items: list[object]) -> None:
    for item in items:
        path = str(getattr(item, "path", "")).split("/tests/", 1)[-1]
        if f"tests/{path}" in STACK_MODULES:
            item.add_marker(pytest.mark.stack)  # type: ignore[attr-defined]
        if path.startswith("browser/"):  # every test there drives Chromium (tests/browser/)
            item.add_marker(pytest.mark.browser)  # type: ignore[attr-defined]
    ordering.long_first(items)
    if getattr(config.option, "loadgroup", False):  # type: ignore[attr-defined]  # --dist loadgroup
        ordering.group_for_xdist(items)


def _close_the_workers_chromium() -> None:
    """The worker's Chromium closed (tests/support/browser.py): its asyncio loop would stand in
    the way of async tests. No browser test has run while its module is not imported yet."""
    import sys

    support = sys.modules.get("tests.support.browser")
    if support is not None:
        support.WORKER_CHROMIUM.close()


def pytest_runtest_setup(item: object) -> None:
    if not ordering.drives_a_browser(item):
        _close_the_workers_chromium()


def pytest_sessionfinish(session: object, exitstatus: int) -> None:
    """The controller removes what the run made once for all its workers (template_db). A SQLite
    test database (a file in the temp folder, demineur_site/settings_test.py) may leave its WAL
    and shared-memory files behind when a server thread still had it open as pytest-django
    dropped it: they go with it."""
    import os

    from django.conf import settings

    _close_the_workers_chromium()
    for thread in _MADE_AHEAD:
        thread.join()  # before clean_up removes the run's files
    if not settings.configured:
        return
    config: Any = getattr(session, "config", None)
    if config is not None and not hasattr(config, "workerinput"):
        from django.db import connections
        from pytest_django.plugin import blocking_manager_key

        connection = connections["default"]
        pg = connection if connection.vendor == "postgresql" else None
        with config.stash[blocking_manager_key].unblock():
            for run in {getattr(config.option, "testrunuid", None), template_db.run_id()} - {None}:
                template_db.clean_up(str(run), pg)
    default = settings.DATABASES.get("default", {})
    name = (default.get("TEST") or {}).get("NAME")
    if not str(default.get("ENGINE", "")).endswith("sqlite3") or not name:
        return
    if os.path.exists(name):
        return  # not dropped (--reuse-db, or a run that stopped early): leave it whole
    for leftover in (f"{name}-wal", f"{name}-shm"):
        if os.path.exists(leftover):
            os.remove(leftover)
