"""clients/python builds into a wheel that pip installs: typed (py.typed), with its modules
and the bot's command."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_client_builds_into_a_typed_wheel(tmp_path: Path) -> None:
    built = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path),
            str(ROOT / "clients" / "python"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert built.returncode == 0, built.stderr
    (wheel,) = tmp_path.glob("demineur_client-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for module in ("__init__", "client", "aio", "sockets", "solver", "bot", "errors", "types"):
        assert f"demineur_client/{module}.py" in names
    assert "demineur_client/py.typed" in names
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    assert (
        "demineur-bot = demineur_client.bot:main"
        in zipfile.ZipFile(wheel).read(entry_points).decode()
    )
