"""The production server processes (docs/LIVE.md, "Serving layout") and what /proc says about
them.

`web`: gunicorn, sync workers, persistent connections (CONN_MAX_AGE=600), for /api/.
`live`: uvicorn --workers N with DB_POOL=1, for /ws/. Both with DEBUG=0 and the production
settings, each in its own session (process group) so that it can be killed as a whole, as a
container runtime does when a container's main process dies.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from deploy.processes import HOST, ROOT, ServerProcess, server_argv

__all__ = [
    "HOST",
    "ROOT",
    "ProcSample",
    "Server",
    "alive",
    "app_env",
    "children",
    "ready",
    "sample",
]


def app_env(database_url: str, redis_url: str, prefix: str) -> dict[str, str]:
    """The servers' environment: production settings on the given PostgreSQL and Redis.

    The bots all come from 127.0.0.1, so the per-address socket cap (meant for many clients
    behind distinct addresses) is lifted, as bench/live does; the per-user cap stays."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("THROTTLE_", "FAIRPLAY_", "WS_", "DB_POOL", "SQLITE_"))
    }
    env.update(
        DJANGO_SETTINGS_MODULE="demineur_site.settings",
        DATABASE_URL=database_url,
        REDIS_URL=redis_url,
        CHANNELS_PREFIX=prefix,
        CACHE_PREFIX=prefix,
        SECRET_KEY="soak-only-secret-key-not-for-production-0123456789",
        DEBUG="0",
        LOG_LEVEL="WARNING",
        LIVE_EVENTS="1",
        PYTHONPATH=str(ROOT),
        PYTHONUNBUFFERED="1",
        WS_MAX_SOCKETS_PER_ADDRESS="0",
    )
    env.pop("HTTPS", None)
    env.pop("TRUSTED_PROXIES", None)
    return env


def children(pid: int) -> list[int]:
    """Direct children of a process (gunicorn's or uvicorn's workers)."""
    out: list[int] = []
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            out += [int(p) for p in (task / "children").read_text().split()]
    except OSError:
        return []
    return sorted(set(out))


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@dataclass
class ProcSample:
    rss_kb: int
    fds: int
    sockets: int


def sample(pid: int) -> ProcSample | None:
    """Resident memory (VmRSS), open file descriptors and, of them, sockets."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
        rss = next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS"))
        fds = socks = 0
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            fds += 1
            try:
                if os.readlink(fd).startswith("socket:"):
                    socks += 1
            except OSError:
                pass
    except (OSError, StopIteration):
        return None
    return ProcSample(rss, fds, socks)


def ready(port: int) -> bool:
    """`/readyz` answers 200 (PostgreSQL and Redis answer); where the health endpoints do not
    exist, a page of games (which reads the database) answers 200."""
    for path in ("/readyz", "/api/games?page_size=1"):
        try:
            with urllib.request.urlopen(f"http://{HOST}:{port}{path}", timeout=3) as answer:
                return bool(answer.status == 200)
        except urllib.error.HTTPError as exc:
            if exc.code != 404:
                return False
        except OSError:
            return False
    return False


class Server(ServerProcess):
    """One server and its workers in one process group (deploy/processes.py)."""

    def __init__(
        self, kind: str, port: int, env: dict[str, str], logs: Path, workers: int = 2
    ) -> None:
        argv = server_argv(
            kind,
            port,
            workers=workers,
            gunicorn=["-k", "sync", "--log-level", "warning", "--worker-tmp-dir", str(logs)],
            uvicorn=["--no-access-log", "--ws-max-size", "4096", "--no-proxy-headers",
                     "--lifespan", "off", "--log-level", "warning"],
        )  # fmt: skip
        if kind == "uvicorn":
            env = {**env, "DB_POOL": "1", "DB_POOL_MAX": "8"}
        super().__init__(kind, argv, port=port, env=env, log_path=logs / f"{kind}-{port}.log")
        self.kind = kind
        self.logs = logs
        self.workers = workers
        self.starts = 0

    def start(self, *, banner: str = "") -> None:
        self.starts += 1
        super().start(banner=f"--- start {self.starts} at {time.strftime('%H:%M:%S')}\n{banner}")

    def worker_pids(self) -> list[int]:
        """The workers, not the helper processes (uvicorn's supervisor also starts
        multiprocessing's resource tracker)."""
        return [p for p in children(self.pid) if alive(p) and not _is_tracker(p)]

    def wait_ready(self, timeout: float = 60, workers: bool = True) -> None:
        """Until the port answers HTTP and (gunicorn, uvicorn) every worker is up."""
        deadline = time.monotonic() + timeout
        while True:
            if self.proc is not None and self.proc.poll() is not None:
                raise RuntimeError(f"{self.kind} exited ({self.proc.returncode}); see {self.logs}")
            if ready(self.port) and (not workers or len(self.worker_pids()) >= self.workers):
                return
            if time.monotonic() > deadline:
                raise RuntimeError(f"{self.kind} not ready after {timeout} s; see {self.logs}")
            time.sleep(0.2)

    def kill_worker(self, index: int) -> int | None:
        """SIGKILL one worker; its master (gunicorn arbiter, uvicorn supervisor) respawns it."""
        pids = self.worker_pids()
        if not pids:
            return None
        pid = pids[index % len(pids)]
        os.kill(pid, signal.SIGKILL)
        return pid

    def kill_master(self) -> int:
        """SIGKILL the main process, then the rest of its group: a container whose main
        process dies loses every process in it. Returns the main process's pid."""
        assert self.proc is not None
        pid = self.proc.pid
        os.kill(pid, signal.SIGKILL)
        self.proc.wait()
        time.sleep(0.3)  # orphaned workers may finish the request in hand
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and _group_alive(pid):
            time.sleep(0.1)
        return pid


def _is_tracker(pid: int) -> bool:
    try:
        return b"resource_tracker" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def _group_alive(pgid: int) -> bool:
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            rest = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(rest[2]) == pgid and rest[0] != "Z":
            return True
    return False
