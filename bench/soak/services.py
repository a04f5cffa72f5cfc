"""The private PostgreSQL and Redis of the crash test and the soak.

The crash test stops PostgreSQL in immediate mode and kills servers: it must never touch the
machine's shared PostgreSQL (5432) or Redis (6379), which other people's tests use. The
instances are those of deploy/private_services.py (one implementation for the outage tests,
the crash test, the soak and the scale demo): `initdb` in a temporary directory, trust authentication, one
port on 127.0.0.1, run as the `postgres` user when this runs as root; `stop("immediate")` is a
PostgreSQL crash (no checkpoint, recovery from the WAL at the next start).
"""

from __future__ import annotations

from deploy.private_services import (
    PrivatePostgres,
    PrivateRedis,
    postgres_missing,
    redis_missing,
)

__all__ = ["PrivatePostgres", "PrivateRedis", "missing_tools"]


def missing_tools() -> list[str]:
    """Why the private instances cannot run here (empty when they can)."""
    return [reason for reason in (postgres_missing(), redis_missing()) if reason]
