"""Private PostgreSQL and Redis instances and real server processes, for the outage and crash
tests (tests/reliability/) and the deployment tests (tests/deploy/). Never the machine's shared
PostgreSQL or Redis: other test runs use those at the same time, and these tests stop and start
what they run. `postgres_missing()` / `redis_missing()` give the reason to skip when the
binaries are not installed (None when they are).

One implementation for the tests, the soak (bench/soak/) and the scale demo: it lives in
deploy/private_services.py (its use, with an example) and deploy/processes.py, which must not
import the tests; this module is the tests' name for it."""

from __future__ import annotations

import pytest

from deploy.private_services import (
    AppServer,
    PrivatePostgres,
    PrivateRedis,
    PrivateReplica,
    app_env,
    manage,
    migrate,
    postgres_missing,
    redis_missing,
)
from deploy.processes import ROOT, free_port, run_python

# For a module that starts a private PostgreSQL: skipped, with the reason, without the binaries.
NEEDS_PRIVATE_POSTGRES = pytest.mark.skipif(
    postgres_missing() is not None, reason=f"needs a private PostgreSQL: {postgres_missing()}"
)


def settings_under(env: dict[str, str], code: str) -> str:
    """What `code` prints in a fresh Python process where `s` is demineur_site.settings, read
    under `env` (the settings are read once per process: a test changes them this way)."""
    done = run_python(
        "-c", f"import json\nimport demineur_site.settings as s\n{code}", env=env, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


__all__ = [
    "NEEDS_PRIVATE_POSTGRES",
    "ROOT",
    "AppServer",
    "PrivatePostgres",
    "PrivateRedis",
    "PrivateReplica",
    "app_env",
    "free_port",
    "manage",
    "migrate",
    "postgres_missing",
    "redis_missing",
    "settings_under",
]
