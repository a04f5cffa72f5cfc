"""Real server processes for the HTTP-edge tests (tests/security/test_http_*.py).

Each server is uvicorn (ASGI, as `make run`) or gunicorn (WSGI, as production) in its own
process, on a free port, with the real settings (demineur_site.settings) and exactly the
environment a test gives it. The database is a SQLite file migrated once per test session and
copied for each server (PostgreSQL is not needed to exercise the edge); Redis is passed only
when a test asks for it. Output goes to a file the test reads after stopping the server."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

# Variables of the test run that must not leak into a server unless a test sets them.
_DROPPED = {
    "DATABASE_URL",
    "REDIS_URL",
    "DJANGO_SETTINGS_MODULE",
    "DEBUG",
    "SECRET_KEY",
    "GAME_TEST_SEED",
    "TRUSTED_PROXIES",
    "HTTPS",
    "LOG_LEVEL",
    "FORWARDED_ALLOW_IPS",
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def base_env(**extra: str) -> dict[str, str]:
    env = {
        k: v for k, v in os.environ.items() if k not in _DROPPED and not k.startswith("THROTTLE_")
    }
    env.update(
        DJANGO_SETTINGS_MODULE="demineur_site.settings",
        DEBUG="1",  # as `make run`
        PYTHONUNBUFFERED="1",
        # Tests talk to the servers fast; throttles are raised unless a test sets them.
        THROTTLE_ANON="100000/min",
        THROTTLE_USER="100000/min",
        THROTTLE_AUTH="100000/min",
        THROTTLE_AUTH_USERNAME="100000/min",
    )
    env.update(extra)
    return env


def migrated_sqlite(directory: Path) -> Path:
    """A SQLite file with every migration applied."""
    path = directory / "template.sqlite3"
    if not path.exists():
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--noinput"],
            cwd=ROOT,
            env=base_env(SQLITE_PATH=str(path)),
            check=True,
            capture_output=True,
            timeout=120,
        )
    return path


class Server:
    def __init__(
        self, kind: str, workdir: Path, template_db: Path, args: list[str] | None = None, **env: str
    ) -> None:
        self.kind = kind
        self.port = free_port()
        self.workdir = workdir
        workdir.mkdir(parents=True, exist_ok=True)
        self.db = workdir / "db.sqlite3"
        if not self.db.exists():
            shutil.copy(template_db, self.db)
        self.log_path = workdir / f"{kind}-{self.port}.log"
        self.env = base_env(SQLITE_PATH=str(self.db), **env)
        if kind == "uvicorn":
            cmd = [
                sys.executable,
                "-m",
                "uvicorn",
                "demineur_site.asgi:application",
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--lifespan",
                "off",
            ]
        elif kind == "gunicorn":
            cmd = [
                sys.executable,
                "-m",
                "gunicorn",
                "demineur_site.wsgi:application",
                "--bind",
                f"127.0.0.1:{self.port}",
                "--workers",
                "1",
                # Its heartbeat file, out of the temp dir a test watches.
                "--worker-tmp-dir",
                str(workdir),
            ]
        else:
            raise ValueError(kind)
        self.cmd = cmd + (args or [])
        self.proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Server:
        self.log = open(self.log_path, "wb")  # closed in stop()
        self.proc = subprocess.Popen(
            self.cmd,
            cwd=ROOT,
            env=self.env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + 60
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.kind} exited at start:\n{self.output()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{self.kind} did not start:\n{self.output()}") from None
                time.sleep(0.1)
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=20)
        if not self.log.closed:
            self.log.close()

    def output(self) -> str:
        if not self.log.closed:
            self.log.flush()
        return self.log_path.read_text(errors="replace")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def pids(self) -> list[int]:
        """The server's process and its children (gunicorn's worker)."""
        assert self.proc is not None
        pids = [self.proc.pid]
        children = Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children")
        if children.exists():
            pids += [int(p) for p in children.read_text().split()]
        return pids


def post_json(url: str, body: dict[str, Any]) -> int:
    """POST `body` as JSON to a real server; the status, whatever it is."""
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as error:
        return int(error.code)
