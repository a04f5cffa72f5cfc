"""The suite's shared fixtures live in tests/support/; importing them here makes them visible
to every test package."""

import pytest
from hypothesis import settings as hypothesis_settings

from tests.support import fast_flush, ordering
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


def pytest_sessionfinish(session: object, exitstatus: int) -> None:
    """A SQLite test database (a file in the temp folder, demineur_site/settings_test.py) may
    leave its WAL and shared-memory files behind when a server thread still had it open as
    pytest-django dropped it: they go with it."""
    import os

    from django.conf import settings

    if not settings.configured:
        return
    default = settings.DATABASES.get("default", {})
    name = (default.get("TEST") or {}).get("NAME")
    if not str(default.get("ENGINE", "")).endswith("sqlite3") or not name:
        return
    if os.path.exists(name):
        return  # not dropped (--reuse-db, or a run that stopped early): leave it whole
    for leftover in (f"{name}-wal", f"{name}-shm"):
        if os.path.exists(leftover):
            os.remove(leftover)
