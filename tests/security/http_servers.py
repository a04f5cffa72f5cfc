"""Real server processes for the HTTP-edge tests (tests/security/test_http_*.py).

Each server is uvicorn (ASGI, as `make run`) or gunicorn (WSGI, as production) in its own
process, on a free port, with the real settings (demineur_site.settings) and exactly the
environment a test gives it. The database is a SQLite file migrated once per run (tests/support/template_db.py)
and copied for each server (PostgreSQL is not needed to exercise the edge); Redis is passed only
when a test asks for it. Output goes to a file the test reads after stopping the server.
The processes are deploy/processes.py's, as for every other launcher."""

from __future__ import annotations

import json
import shutil
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Self

from deploy.processes import ROOT, ServerProcess, free_port, server_argv, server_env
from tests.support.template_db import migrated_sqlite

__all__ = ["ROOT", "Server", "base_env", "migrated_sqlite", "post_json"]


def base_env(**extra: str) -> dict[str, str]:
    """The real settings with DEBUG on (as `make run`), throttles raised, nothing of the test
    run's database, Redis or settings unless given."""
    return server_env(debug=True, **extra)


class Server(ServerProcess):
    """One server on a copy of `template_db` in `workdir`, its log there; a context manager
    that waits until the port listens and stops the process group on exit."""

    def __init__(
        self, kind: str, workdir: Path, template_db: Path, args: list[str] | None = None, **env: str
    ) -> None:
        port = free_port()
        workdir.mkdir(parents=True, exist_ok=True)
        self.db = workdir / "db.sqlite3"
        if not self.db.exists():
            shutil.copy(template_db, self.db)
        argv = server_argv(
            kind,
            port,
            uvicorn=["--lifespan", "off"],
            # gunicorn's heartbeat file, out of the temp dir a test watches.
            gunicorn=["--worker-tmp-dir", str(workdir)],
        )
        super().__init__(
            kind,
            argv + (args or []),
            port=port,
            env=base_env(SQLITE_PATH=str(self.db), **env),
            log_path=workdir / f"{kind}-{port}.log",
        )

    def __enter__(self) -> Self:
        self.start()
        self.wait_listening(60)
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def pids(self) -> list[int]:
        """The server's process and its children (gunicorn's worker)."""
        pids = [self.pid]
        children = Path(f"/proc/{self.pid}/task/{self.pid}/children")
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
