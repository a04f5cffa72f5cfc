"""Run docs/Caddyfile, the proxy of docker-compose.yml, with Debian's caddy outside Docker.

The file names its upstreams by Docker service name (`web`, `live`); PROXY_WEB_HOST/PORT and
PROXY_LIVE_HOST/PORT point them elsewhere, so a test can put this very file in front of real
app servers (tests/deploy/test_proxy_limits.py, test_slow_readers.py) or in front of nothing
(tests/deploy/test_deploy_files.py). An older caddy gets the file in its own spelling
(deploy.serve_prod.caddyfile_for), as `make serve-prod` does with its template. The tests that
compare it with `make serve-prod`'s proxy read through both with `get` and `probe_latencies`.
"""

from __future__ import annotations

import contextlib
import http.client
import os
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

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


@contextlib.contextmanager
def compose_proxy_before(layout: dict[str, Any], **env: str) -> Iterator[int]:
    """docs/Caddyfile in front of a serve_prod layout's gunicorn and its first uvicorn process
    (tests/support/serve_prod.py; `layout` also holds the test's own "tmp" folder), with `env`
    for the other placeholders. Yields the port."""
    caddy = installed_caddy()
    assert caddy is not None
    workdir = layout["tmp"] / "compose-proxy"
    workdir.mkdir()
    with compose_proxy(
        workdir,
        caddy,
        PROXY_WEB_HOST="127.0.0.1",
        PROXY_WEB_PORT=str(layout["layout"]["web_port"]),
        PROXY_LIVE_HOST="127.0.0.1",
        PROXY_LIVE_PORT=str(layout["layout"]["live_ports"][0]),
        **env,
    ) as port:
        yield port


def proxy_port(configuration: str, layout: dict[str, Any], compose_port: Callable[[], int]) -> int:
    """The port of one proxy configuration in front of the layout's app servers: "serve-prod"
    (the layout's own proxy) or "compose" (`compose_port()`, started only when asked for)."""
    if configuration == "serve-prod":
        return int(layout["port"])
    return int(compose_port())


def installed_caddy() -> str | None:
    return os.environ.get("CADDY") or shutil.which("caddy")


def get(
    port: int, path: str, timeout: float, headers: dict[str, str] | None = None
) -> tuple[int, http.client.HTTPMessage, bytes]:
    """One GET on a fresh connection of 127.0.0.1, read at full speed: (status, headers, body)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", path, headers=headers or {})
        response = conn.getresponse()
        return response.status, response.headers, response.read()
    finally:
        conn.close()


def probe_latencies(port: int, path: str, timeout: float, count: int) -> list[float]:
    """`count` GETs of `path` one after the other, each answered 200 within `timeout` (else the
    socket timeout fails the test); their latencies in ms."""
    latencies = []
    for _ in range(count):
        start = time.perf_counter()
        status, _, body = get(port, path, timeout)
        latencies.append((time.perf_counter() - start) * 1000)
        assert status == 200, body[:200]
    return latencies
