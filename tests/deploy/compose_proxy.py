"""Run docs/Caddyfile, the proxy of docker-compose.yml, with Debian's caddy outside Docker.

The file names its upstreams by Docker service name (`web`, `live`); PROXY_WEB_HOST/PORT and
PROXY_LIVE_HOST/PORT point them elsewhere, so a test can put this very file in front of real
app servers (tests/deploy/test_proxy_limits.py) or in front of nothing
(tests/deploy/test_deploy_files.py). An older caddy gets the file in its own spelling
(deploy.serve_prod.caddyfile_for), as `make serve-prod` does with its template.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

from deploy.processes import free_port, stop_group, wait_for_port
from deploy.serve_prod import caddy_version, caddyfile_for

ROOT = Path(__file__).resolve().parents[2]
COMPOSE_CADDYFILE = ROOT / "docs" / "Caddyfile"


@contextlib.contextmanager
def compose_proxy(workdir: Path, caddy: str, **env: str) -> Iterator[int]:
    """docs/Caddyfile served by `caddy` on a free port of 127.0.0.1 until the block ends; `env`
    sets its {$...} placeholders. Yields the port; RuntimeError (with the log) if it does
    not start."""
    port, health = free_port(), free_port()
    config = workdir / "Caddyfile"
    config.write_text(caddyfile_for(caddy_version(caddy), COMPOSE_CADDYFILE.read_text()))
    full_env = {
        **os.environ,
        "SITE_ADDRESS": f"http://127.0.0.1:{port}",
        "PROXY_HEALTH_PORT": str(health),
        "HOME": str(workdir),
        "XDG_DATA_HOME": str(workdir),
        "XDG_CONFIG_HOME": str(workdir),
        **env,
    }
    log_path = workdir / "caddy.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [caddy, "run", "--config", str(config), "--adapter", "caddyfile"],
            env=full_env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group, which stop_group ends
        )
    try:
        try:
            wait_for_port(health, timeout=30, proc=process)
        except RuntimeError:
            raise RuntimeError(log_path.read_text()) from None
        yield port
    finally:
        stop_group(process, timeout=10)


def installed_caddy() -> str | None:
    return os.environ.get("CADDY") or shutil.which("caddy")
