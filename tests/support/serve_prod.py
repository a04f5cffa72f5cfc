"""`make serve-prod` (deploy/serve_prod.py) run by the tests: the launcher in the foreground on
a database of its own on the shared PostgreSQL and on the shared Redis, stopped by
`serve_prod.py stop`, which must leave no process behind."""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest

ROOT = Path(__file__).resolve().parents[2]
LAUNCHER = ROOT / "deploy" / "serve_prod.py"
START_TIMEOUT = 120.0
DATABASE_URL = os.environ.get("DATABASE_URL", "")
REDIS_URL = os.environ.get("REDIS_URL", "")

needs_proxy_and_services = [
    pytest.mark.skipif(
        shutil.which("caddy") is None,
        reason="needs Debian's caddy (apt-get install caddy): the proxy of `make serve-prod`",
    ),
    pytest.mark.skipif(
        not (DATABASE_URL.startswith("postgres") and REDIS_URL),
        reason="needs DATABASE_URL (PostgreSQL) and REDIS_URL: serve-prod refuses to start "
        "without them, and processes share nothing else",
    ),
]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def admin_connect() -> Any:
    import psycopg

    parts = urlparse(DATABASE_URL)
    return psycopg.connect(parts._replace(path="/postgres").geturl(), autocommit=True)


def layout_pids(run: Path) -> list[int]:
    try:
        return list(json.loads((run / "layout.json").read_text())["pids"].values())
    except (OSError, ValueError):
        return []


@contextlib.contextmanager
def serve_prod_layout(tmp: Path, label: str, **extra_env: str) -> Iterator[dict[str, Any]]:
    """The launcher as `make serve-prod` runs it (two gunicorn workers, two uvicorn
    processes), on database `demineur_<label>_<pid>`; yields port, run dir, layout, env and
    the launcher. On the way out: `serve_prod.py stop` succeeds, the launcher exits 0, and no
    process of the layout is left."""
    name = f"demineur_{label}_{os.getpid()}"
    with admin_connect() as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    run = tmp / "run"
    port = free_port()
    env = {
        **os.environ,
        "DATABASE_URL": urlparse(DATABASE_URL)._replace(path=f"/{name}").geturl(),
        "REDIS_URL": REDIS_URL,
        "CHANNELS_PREFIX": f"{label}{os.getpid()}",
        "SECRET_KEY": secrets.token_urlsafe(60),
        "SERVE_PROD_RUN_DIR": str(run),
        "PORT": str(port),
        "WEB_WORKERS": "2",
        "LIVE_WORKERS": "2",
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "LOG_LEVEL": "WARNING",
        **extra_env,
    }
    env.pop("DJANGO_SETTINGS_MODULE", None)
    launcher = subprocess.Popen(
        [sys.executable, str(LAUNCHER)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    layout: dict[str, Any] = {}
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while not (run / "layout.json").exists():
            if launcher.poll() is not None:
                output = launcher.stdout.read().decode() if launcher.stdout else ""
                pytest.fail(f"serve_prod.py exited with {launcher.returncode}:\n{output}")
            if time.monotonic() > deadline:
                pytest.fail(f"serve_prod.py did not start within {START_TIMEOUT:.0f} s")
            time.sleep(0.2)
        layout = json.loads((run / "layout.json").read_text())
        yield {"port": port, "run": run, "layout": layout, "env": env, "launcher": launcher}
    finally:
        stop = subprocess.run(
            [sys.executable, str(LAUNCHER), "stop"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        try:
            launcher.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(launcher.pid, signal.SIGKILL)
            launcher.wait()
        with admin_connect() as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        if layout:
            assert stop.returncode == 0, stop.stdout + stop.stderr
            assert launcher.returncode == 0
        left = [pid for pid in layout_pids(run) if Path(f"/proc/{pid}").exists()]
        assert not left, f"still running after stop: {left}"
        assert not list(run.glob("*.pid"))
