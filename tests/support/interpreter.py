"""Code run in a fresh interpreter, as a server process starts: at the project's root, on the
real settings (demineur_site.settings, DEBUG on, a SQLite file of the test's own), with no
variable of the test run's environment but PATH and those given."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from deploy.processes import ROOT


def run_fresh(code: str, tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={
            "PATH": "/usr/bin:/bin",
            "DEBUG": "1",
            "DJANGO_SETTINGS_MODULE": "demineur_site.settings",
            "SQLITE_PATH": str(tmp_path / "db.sqlite3"),
            **env,
        },
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
