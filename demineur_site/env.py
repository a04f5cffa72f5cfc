"""Tiny typed readers of the environment. A bad value fails loudly at start-up."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar
from urllib.parse import parse_qs, unquote, urlparse

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}
N = TypeVar("N", int, float)


def env_str(name: str, default: str = "") -> str:
    """`NAME`, or the content of the file `NAME_FILE` names when that is set (Docker and Swarm
    secrets are files under /run/secrets/: SECRET_KEY_FILE, docs/DEPLOYMENT.md). One trailing
    newline is dropped. The file wins over the variable, so a deployment may leave a
    placeholder in `NAME`; a `NAME_FILE` that cannot be read, or is empty, fails at start-up."""
    path = os.environ.get(f"{name}_FILE", "").strip()
    if not path:
        return os.environ.get(name, default)
    try:
        value = Path(path).read_text(encoding="utf-8").removesuffix("\n")
    except (OSError, UnicodeDecodeError) as exc:
        raise ImproperlyConfigured(f"{name}_FILE={path!r} cannot be read: {exc}") from exc
    if not value:
        raise ImproperlyConfigured(f"{name}_FILE={path!r} is empty")
    return value


def database_password() -> str:
    """DATABASE_PASSWORD (or DATABASE_PASSWORD_FILE, a secret): the password of a database
    URL that has none of its own."""
    return env_str("DATABASE_PASSWORD")


def env_bool(name: str, default: bool = False) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name}={raw!r} is not a boolean (use 1/0, true/false)")


def _env_number(name: str, default: N, parse: Callable[[str], N], what: str) -> N:
    """`NAME` read by `parse` (`default` when unset or blank); `what` names the kind of value
    in the error a bad one raises."""
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        return parse(raw)
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name}={raw!r} is not {what}") from exc


def env_int(name: str, default: int) -> int:
    return _env_number(name, default, int, "an integer")


def env_float(name: str, default: float) -> float:
    return _env_number(name, default, float, "a number")


def env_levels(name: str, default: dict[str, float]) -> dict[str, float]:
    """Per-level numbers: the defaults, with `level:value,level:value` from the environment
    replacing some of them (an unknown level fails at start-up).

    >>> import os; os.environ["X_TEST_LEVELS"] = "expert:7.5"
    >>> env_levels("X_TEST_LEVELS", {"beginner": 12.0, "expert": 9.0})
    {'beginner': 12.0, 'expert': 7.5}
    """
    out = dict(default)
    for item in env_list(name, []):
        level, _, value = item.partition(":")
        if level.strip() not in out:
            raise ImproperlyConfigured(f"{name}: unknown level {level!r}")
        try:
            out[level.strip()] = float(value)
        except ValueError as exc:
            raise ImproperlyConfigured(f"{name}: {item!r} is not level:number") from exc
    return out


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


def database_from_url(
    url: str,
    *,
    pool: bool,
    pool_max: int = 16,
    conn_max_age: int = 600,
    connect_timeout: int = 0,
    pool_timeout: float = 0,
    pool_check: bool = True,
    pool_reconnect_timeout: float = 0,
) -> dict[str, object]:
    """Turn ``postgres://user:pass@host:port/name`` (or ``sqlite:///path``) into a DATABASES entry.

    >>> database_from_url("postgres://u:p@127.0.0.1:5432/demineur", pool=False)["NAME"]
    'demineur'

    `connect_timeout` (seconds, libpq's; 0 leaves it out) bounds each connection attempt, so a
    PostgreSQL that is down or unreachable answers an error in seconds instead of hanging a
    worker (docs/RELIABILITY.md). A ``?connect_timeout=`` in the URL wins. With the pool,
    `pool_timeout` bounds the wait for a free connection and `pool_check` tests a connection
    before lending it, so the pool drops the dead connections a restart of PostgreSQL leaves;
    `pool_reconnect_timeout` is how long the pool retries a lost connection (with a growing
    delay) before it gives the slot up and connects afresh on the next demand: it bounds how
    long recovery can lag behind PostgreSQL's return.

    >>> database_from_url("postgres://h/d", pool=False, connect_timeout=2)["OPTIONS"]
    {'connect_timeout': 2}
    >>> database_from_url("postgres://h/d?connect_timeout=9", pool=False, connect_timeout=2)[
    ...     "OPTIONS"]
    {'connect_timeout': '9'}
    """
    parsed = urlparse(url)
    if parsed.scheme == "sqlite":
        return {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": parsed.path.lstrip("/") or ":memory:",
        }
    if parsed.scheme not in {"postgres", "postgresql", "pgsql"}:
        raise ImproperlyConfigured(f"DATABASE_URL scheme {parsed.scheme!r} is not supported")
    options: dict[str, object] = {k: v[-1] for k, v in parse_qs(parsed.query).items()}
    if connect_timeout > 0:
        options.setdefault("connect_timeout", connect_timeout)
    config: dict[str, object] = {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": unquote(parsed.path.lstrip("/")) or "postgres",
        "USER": unquote(parsed.username or ""),
        # A URL without a password (postgres://demineur@db/demineur) takes DATABASE_PASSWORD
        # or the secret DATABASE_PASSWORD_FILE names.
        "PASSWORD": unquote(parsed.password) if parsed.password else database_password(),
        "HOST": parsed.hostname or "",
        "PORT": str(parsed.port or ""),
    }
    if pool:
        # Under ASGI each request's sync code runs in a fresh thread: persistent per-thread
        # connections leak (shared/perf/perf-limits.md). The psycopg pool does not.
        pool_options: dict[str, object] = {"min_size": 2, "max_size": pool_max}
        if pool_timeout > 0:
            pool_options["timeout"] = pool_timeout
        if pool_reconnect_timeout > 0:
            pool_options["reconnect_timeout"] = pool_reconnect_timeout
        options["pool"] = pool_options
        config["CONN_MAX_AGE"] = 0
        # With the pool, Django turns this into psycopg's check of each lent connection.
        config["CONN_HEALTH_CHECKS"] = pool_check
    else:
        # Under WSGI (gunicorn sync) persistent connections triple throughput (C1 vs C8).
        config["CONN_MAX_AGE"] = conn_max_age
        config["CONN_HEALTH_CHECKS"] = True
    config["OPTIONS"] = options
    return config


def redis_urls(urls: list[str], url: str = "") -> list[str]:
    """The Redis hosts: REDIS_URLS (a list) when set, else REDIS_URL alone, else none.

    >>> redis_urls([], "redis://r:6379/1")
    ['redis://r:6379/1']
    >>> redis_urls(["redis://a:6379/0", "redis://b:6379/0"], "redis://r:6379/1")
    ['redis://a:6379/0', 'redis://b:6379/0']
    """
    hosts = list(urls) if urls else ([url] if url else [])
    for host in hosts:
        if urlparse(host).scheme not in {"redis", "rediss", "unix"}:
            raise ImproperlyConfigured(f"Redis URL {host!r}: the scheme must be redis://")
    return hosts
