"""A benchmark's own PostgreSQL database, and Django set up in the benchmark's process.

A benchmark never measures in the database of a deployment or of the test suite: each has a
database of its own, named after DATABASE_URL's (or given by an environment variable of its
own), made here if missing; one that a benchmark empties is refused unless its name says it is
a benchmark's (`suffixes`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parents[2]
# The secret key of every process a benchmark starts (servers and its own Django).
SECRET = "bench-only-secret-key-not-for-production-0123456789"
DEFAULT_SERVER = "postgres://postgres@127.0.0.1:5432/postgres"


def renamed(url: str, name: str) -> str:
    """`url` with the database `name`."""
    return urlparse(url)._replace(path=f"/{name}").geturl()


def name_of(url: str) -> str:
    return urlparse(url).path.lstrip("/")


def postgres_url() -> str | None:
    """DATABASE_URL when it names a PostgreSQL database."""
    url = os.environ.get("DATABASE_URL", "")
    return url if url.startswith("postgres") else None


def beside_database_url(suffix: str, *, env: str | None = None) -> str | None:
    """The benchmark's database: the URL in the variable `env` when set; else DATABASE_URL's
    database name (default `demineur`) + `suffix` (unless it already ends so) on its server;
    None when DATABASE_URL is not PostgreSQL."""
    if env and os.environ.get(env):
        return os.environ[env]
    base = postgres_url()
    if base is None:
        return None
    name = name_of(base) or "demineur"
    return renamed(base, name if name.endswith(suffix) else name + suffix)


def on_database_server(name: str, *, env: str | None = None) -> str:
    """The database `name` on DATABASE_URL's server (127.0.0.1:5432 when DATABASE_URL is not
    PostgreSQL), or the URL in the variable `env` when set."""
    if env and os.environ.get(env):
        return os.environ[env]
    return renamed(postgres_url() or DEFAULT_SERVER, name)


def create_database(
    url: str, *, fresh: bool = False, suffixes: tuple[str, ...] | None = None
) -> None:
    """The database of `url` made when missing (`fresh`: dropped and made again, its sessions
    ended first). `suffixes`: the benchmark empties it, so its name must end in one of them."""
    import psycopg

    name = name_of(url)
    if suffixes is not None and not name.endswith(suffixes):
        raise SystemExit(
            f"refusing to empty {name!r}: its name must end in {' or '.join(suffixes)}"
        )
    with psycopg.connect(renamed(url, "postgres"), autocommit=True) as conn:
        if fresh:
            conn.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s",
                (name,),
            )
            conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
        if not exists:
            conn.execute(f'CREATE DATABASE "{name}"')


def setup_django(
    env: Mapping[str, str] | None = None,
    *,
    drop: Iterable[str] = (),
    migrate: bool = True,
    flush: bool = False,
    settings: str = "demineur_site.settings",
) -> None:
    """Django in this process: `settings` (the production ones unless told), DEBUG off (it would
    keep every query) and the benchmarks' secret key unless `env` says otherwise, the variables
    of `drop` removed, `env` on top; then the database migrated (and emptied with `flush`)."""
    os.environ["DJANGO_SETTINGS_MODULE"] = settings
    os.environ["DEBUG"] = "0"
    os.environ.setdefault("SECRET_KEY", SECRET)
    for name in drop:
        os.environ.pop(name, None)
    os.environ.update(env or {})
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    import django
    from django.core.management import call_command

    django.setup()
    if migrate:
        call_command("migrate", verbosity=0, interactive=False)
    if flush:
        call_command("flush", verbosity=0, interactive=False)
