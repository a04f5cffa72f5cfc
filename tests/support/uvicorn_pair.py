"""Uvicorn processes serving the pytest-django test database, for the tests that need more
than one server process (one PostgreSQL, one Redis between them)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings

from deploy.processes import free_port

__all__ = [
    "NEEDS_POSTGRES_AND_REDIS",
    "free_port",
    "http",
    "receive",
    "served_database_url",
    "uvicorn_servers",
]

ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT = 30.0

NEEDS_POSTGRES_AND_REDIS = pytest.mark.skipif(
    not (os.environ.get("DATABASE_URL", "").startswith("postgres") and os.environ.get("REDIS_URL")),
    reason="needs DATABASE_URL (PostgreSQL) and REDIS_URL: processes share nothing else",
)


def served_database_url() -> str:
    """The URL of the test database (its name is known only once pytest-django made it)."""
    db = settings.DATABASES["default"]
    url = f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
    if db.get("PASSWORD"):
        url = url.replace("@", f":{db['PASSWORD']}@", 1)
    return url


def http(method: str, url: str, token: str, body: dict[str, Any] | None = None) -> tuple[int, Any]:
    request = urllib.request.Request(
        url,
        method=method,
        data=None if body is None else json.dumps(body).encode(),
        headers={"Authorization": f"Token {token}", "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def wait_until_serving(port: int, server: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"the server on port {port} exited with {server.returncode}")
        try:
            with urllib.request.urlopen(
                f"http://127.0.0.1:{port}/api/games?page_size=1", timeout=2
            ):
                return
        except (OSError, urllib.error.URLError):
            time.sleep(0.1)
    raise RuntimeError(f"the server on port {port} did not answer in {START_TIMEOUT} s")


@contextmanager
def uvicorn_servers(ports: tuple[int, ...], *args: str, **env: str) -> Iterator[tuple[int, ...]]:
    """One uvicorn process a port, on the test database and the test run's channel layer,
    with the extra command-line `args` and environment `env`; stopped on exit."""
    environment = {
        **os.environ,
        "DATABASE_URL": served_database_url(),
        "DB_POOL": "1",
        "DJANGO_SETTINGS_MODULE": "demineur_site.settings_test",
        "CHANNELS_PREFIX": settings.CHANNEL_LAYERS["default"]["CONFIG"]["prefix"],
        "LOG_LEVEL": "WARNING",
        **env,
    }
    command = [sys.executable, "-m", "uvicorn", "demineur_site.asgi:application"]
    options = ["--host", "127.0.0.1", "--no-access-log", "--lifespan", "off"]
    servers = [
        subprocess.Popen(
            [*command, *options, "--log-level", "warning", *args, "--port", str(port)],
            cwd=ROOT,
            env=environment,
            start_new_session=True,
        )
        for port in ports
    ]
    try:
        for port, server in zip(ports, servers, strict=True):
            wait_until_serving(port, server)
        yield ports
    finally:
        for server in servers:
            if server.poll() is None:
                os.killpg(server.pid, signal.SIGTERM)
        for server in servers:
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, signal.SIGKILL)
                server.wait()


async def receive(ws: Any) -> dict[str, Any]:
    """The next frame of a `websockets` client, decoded."""
    frame: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), timeout=5))
    return frame
