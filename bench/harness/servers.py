"""The processes a benchmark starts and stops, and the one way to wait until one is ready.

* `Ports`: free ports of a benchmark's own range of 127.0.0.1 (each has its own, so that two
  benchmarks can run at once).
* `app_env`: the environment of an application server started by a benchmark.
* `Server`: a command in its own process group (deploy/processes.py's ServerProcess), serving
  on a port; `wait_ready` polls a path until it answers 2xx (and until every worker is up),
  `kill_worker` / `kill_master` for the crash test.
* `AppServer`: the application as the production layout serves it (docs/LIVE.md): gunicorn with
  sync workers for the REST API, uvicorn for /ws/ on the database pool.
* `Stack`: one run's application servers on the machine's PostgreSQL and Redis: its database
  made and emptied, Django set up on it in this process, its channel and cache prefix, its
  ports and its logs.
* `PrivatePostgres`, `PrivateRedis`, `private_services_missing`: PostgreSQL and Redis of a run's
  own (deploy/private_services.py), for what stops or kills them.
* /proc: `children`, `alive`, `sample` (memory, descriptors, sockets) of a server's processes.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self

from bench.ports import free_port
from deploy.private_services import (
    PrivatePostgres,
    PrivateRedis,
    postgres_missing,
    redis_missing,
)
from deploy.processes import HOST, ROOT, ServerProcess, server_argv, server_env

from . import database
from .report import say

__all__ = [
    "HOST",
    "ROOT",
    "AppServer",
    "NotReady",
    "Ports",
    "PrivatePostgres",
    "PrivateRedis",
    "ProcSample",
    "Server",
    "Stack",
    "alive",
    "app_env",
    "children",
    "private_services_missing",
    "sample",
]


class Ports:
    """Free ports of `candidates`, none given twice."""

    def __init__(self, candidates: range) -> None:
        self.candidates = candidates
        self.taken: set[int] = set()

    def take(self) -> int:
        return free_port(self.candidates, self.taken)


# Variables of the caller's shell that must not tune a benchmark's servers, besides those
# deploy.processes.server_env already leaves out.
CALLER_ONLY = ("FAIRPLAY_", "WS_", "RACE_CLOCK", "PROMETHEUS_MULTIPROC_DIR")


def app_env(
    database_url: str | None,
    redis_url: str | None,
    prefix: str,
    *,
    debug: bool = False,
    publish: bool = True,
    extra: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """An application server's environment: the production settings (DEBUG off unless
    `debug`), the throttles raised (deploy.processes.server_env: a benchmark's clients play
    faster than people), on `database_url` and `redis_url` (None: SQLite, the in-memory layer),
    channel and cache keys under `prefix`, live events published unless not `publish`; the
    per-address socket cap is lifted, since every bot and watcher comes from 127.0.0.1 (the
    per-user cap stays); then `extra`."""
    env = {k: v for k, v in server_env(debug=debug).items() if not k.startswith(CALLER_ONLY)}
    env.update(
        SECRET_KEY=database.SECRET,
        LOG_LEVEL="WARNING",
        LIVE_EVENTS="1" if publish else "0",
        PYTHONPATH=str(ROOT),
        CHANNELS_PREFIX=prefix,
        CACHE_PREFIX=prefix,
        WS_MAX_SOCKETS_PER_ADDRESS="0",
    )
    if database_url:
        env["DATABASE_URL"] = database_url
    if redis_url:
        env["REDIS_URL"] = redis_url
    env.update(extra or {})
    return env


class NotReady(RuntimeError):
    """A server exited, or did not answer in time."""


class Server(ServerProcess):
    """`argv` in its own process group, serving on `port`, its output in a log of `logs`.
    Ready when GET `ready_path` answers 2xx and, with `workers`, that many workers run."""

    def __init__(
        self,
        name: str,
        argv: list[str],
        *,
        logs: Path,
        ready_path: str = "/readyz",
        workers: int = 0,
        **process: Any,
    ) -> None:
        """`process`: ServerProcess's own (`port`, `env`, `cwd`), passed on as they are; the log
        is a file of the folder `logs`, named after the server and its port."""
        slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
        super().__init__(name, argv, log_path=logs / f"{slug}-{process['port']}.log", **process)
        self.ready_path = ready_path
        self.workers = workers
        self.starts = 0

    def start(self, *, banner: str = "") -> None:
        self.starts += 1
        super().start(banner=f"--- start {self.starts} at {time.strftime('%H:%M:%S')}\n{banner}")

    def answers(self) -> bool:
        """GET `ready_path` answers 2xx now."""
        try:
            with urllib.request.urlopen(f"{self.url}{self.ready_path}", timeout=3) as answer:
                return bool(200 <= answer.status < 300)
        except (urllib.error.HTTPError, OSError):
            return False

    def wait_ready(self, timeout: float = 60.0, *, workers: bool = True) -> Self:
        """Until it answers and (`workers`) every worker runs; NotReady, naming the log, when it
        exits first or is not ready in `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            if self.exited():
                code = self.proc.returncode if self.proc else None
                raise NotReady(f"{self.name} exited ({code}); see {self.log_path}")
            if self.answers() and (not workers or len(self.worker_pids()) >= self.workers):
                return self
            if time.monotonic() > deadline:
                raise NotReady(f"{self.name} not ready after {timeout:g} s; see {self.log_path}")
            time.sleep(0.2)

    def worker_pids(self) -> list[int]:
        """The workers, not the helper processes (uvicorn's supervisor also starts
        multiprocessing's resource tracker)."""
        if self.proc is None:
            return []
        return [p for p in children(self.pid) if alive(p) and not _is_tracker(p)]

    def kill_worker(self, index: int) -> int | None:
        """SIGKILL one worker; its master (gunicorn arbiter, uvicorn supervisor) starts another."""
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


class AppServer(Server):
    """The application as the production layout serves it: gunicorn (`kind` "gunicorn": sync
    workers, the REST API) or uvicorn ("uvicorn": /ws/, each worker on the database pool of at
    most 8 connections) with `workers` workers (uvicorn with None: one process, no supervisor),
    on `port` with `env` (app_env), its log in `logs`. `lifespan`: uvicorn runs its lifespan
    (the race clock and the analysis worker start with it, as deployed); `access_log`: gunicorn
    writes one there, as `make serve-prod` does; `args` go to the server's command line."""

    def __init__(
        self,
        kind: str,
        port: int,
        env: dict[str, str],
        logs: Path,
        workers: int | None = 2,
        *,
        lifespan: bool = False,
        access_log: bool = False,
        args: Iterable[str] = (),
        name: str | None = None,
    ) -> None:
        gunicorn = ["-k", "sync", "--log-level", "warning", "--worker-tmp-dir", str(logs)]
        if access_log:
            gunicorn += ["--access-logfile", str(logs / f"gunicorn-access-{port}.log")]
        uvicorn = ["--no-access-log", "--no-proxy-headers", "--log-level", "warning"]
        if not lifespan:
            uvicorn += ["--lifespan", "off"]
        argv = server_argv(
            kind, port, workers=workers, gunicorn=[*gunicorn, *args], uvicorn=[*uvicorn, *args]
        )
        if kind == "uvicorn":
            env = {**env, "DB_POOL": "1", "DB_POOL_MAX": "8"}
        supervised = kind == "gunicorn" or (workers or 0) > 1
        super().__init__(
            name or kind,
            argv,
            port=port,
            env=env,
            logs=logs,
            workers=(workers or 1) if supervised else 0,
        )
        self.kind = kind


@dataclass
class Stack:
    """One run's application servers on the machine's PostgreSQL and Redis, each in its own
    process group: the REST API on gunicorn, the sockets on uvicorn (docs/LIVE.md). `extra` goes
    into every server's environment; with `metrics_dir`, each server counts its Prometheus
    metrics in a folder of its own there and targets.json names them (job `web`: gunicorn,
    `live`: uvicorn) for a Prometheus that reads it."""

    bench: str
    database_url: str
    redis_url: str
    prefix: str
    ports: Ports
    logs: Path
    extra: dict[str, str] = field(default_factory=dict)
    metrics_dir: Path | None = None

    @classmethod
    def prepare(
        cls,
        bench: str,
        database_url: str,
        redis_url: str,
        *,
        ports: range,
        prefix: str,
        extra: Mapping[str, str] | None = None,
        suffixes: tuple[str, ...] = ("_bench",),
    ) -> Self:
        """The run of `bench`: its database made if missing (it is emptied: its name must end in
        one of `suffixes`), Django set up on it in this process, migrated and emptied; channel
        and cache keys under `prefix` + this process's id; logs in a new bench-BENCH-* folder
        of the temporary directory."""
        database.create_database(database_url, suffixes=suffixes)
        stack = cls(
            bench,
            database_url,
            redis_url,
            f"{prefix}{os.getpid()}",
            Ports(ports),
            Path(tempfile.mkdtemp(prefix=f"bench-{bench}-")),
            dict(extra or {}),
        )
        say(f"bench/{bench}: database {database.name_of(database_url)}, Redis {redis_url}")
        say(f"  logs in {stack.logs}")
        database.setup_django(stack.server_env(), flush=True)
        return stack

    @classmethod
    def shared(
        cls,
        bench: str,
        *,
        ports: range,
        prefix: str,
        suffix: str = "_bench",
        env: str | None = "BENCH_DATABASE_URL",
    ) -> Self | None:
        """`prepare` on the database in the variable `env`, else DATABASE_URL's database +
        `suffix`, and on REDIS_URL; None, said, when either is missing: the layout these
        benchmarks measure is several server processes sharing PostgreSQL and Redis."""
        url = database.beside_database_url(suffix, env=env)
        redis_url = os.environ.get("REDIS_URL")
        if url is None or not redis_url:
            say(f"bench/{bench}: skipped. It needs DATABASE_URL (PostgreSQL) and REDIS_URL: the")
            say("layout it measures is several server processes sharing PostgreSQL and Redis.")
            return None
        return cls.prepare(bench, url, redis_url, ports=ports, prefix=prefix)

    def server_env(self, *, publish: bool = True) -> dict[str, str]:
        """app_env on the run's database and Redis; a thousand anonymous watchers or a bot's
        sockets come from one address and one account here: no socket cap at all."""
        return app_env(
            self.database_url,
            self.redis_url,
            self.prefix,
            publish=publish,
            extra={"WS_MAX_SOCKETS_PER_USER": "0", **self.extra},
        )

    def server(
        self,
        kind: str,
        *,
        workers: int | None = 2,
        publish: bool = True,
        lifespan: bool = False,
        access_log: bool = False,
        args: Iterable[str] = (),
    ) -> AppServer:
        """An AppServer on the run's next free port, started (not waited for)."""
        port = self.ports.take()
        env = self.server_env(publish=publish)
        if self.metrics_dir is not None:
            counts = self.metrics_dir / f"{kind}-{port}"
            shutil.rmtree(counts, ignore_errors=True)
            counts.mkdir(parents=True)
            env["PROMETHEUS_MULTIPROC_DIR"] = str(counts)
        server = AppServer(
            kind,
            port,
            env,
            self.logs,
            workers,
            lifespan=lifespan,
            access_log=access_log,
            args=args,
            name=f"{kind} {workers}w" if workers else f"{kind} 1 process",
        )
        server.start()
        return server

    @contextlib.contextmanager
    def pair(
        self, workers: int = 2, *, lifespan: bool = False, access_log: bool = False
    ) -> Iterator[tuple[AppServer, AppServer]]:
        """gunicorn (REST) and uvicorn (sockets) with `workers` workers each, both ready; both
        stopped on the way out."""
        rest = self.server("gunicorn", workers=workers, access_log=access_log)
        ws: AppServer | None = None
        try:
            ws = self.server("uvicorn", workers=workers, lifespan=lifespan)
            rest.wait_ready()
            ws.wait_ready()
            clock = " (the race clock thread in each worker)" if lifespan else ""
            say(
                f"  gunicorn {workers} workers :{rest.port}, uvicorn {workers} workers :{ws.port}{clock}"
            )
            if self.metrics_dir is not None:
                targets = [
                    {"targets": [f"{HOST}:{rest.port}"], "labels": {"job": "web"}},
                    {"targets": [f"{HOST}:{ws.port}"], "labels": {"job": "live"}},
                ]
                (self.metrics_dir / "targets.json").write_text(json.dumps(targets))
            yield rest, ws
        finally:
            rest.stop()
            if ws is not None:
                ws.stop()


def private_services_missing() -> list[str]:
    """Why a private PostgreSQL and Redis cannot run here (empty when they can)."""
    return [reason for reason in (postgres_missing(), redis_missing()) if reason]


# --- /proc ----------------------------------------------------------------------------------


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
    """Resident memory (VmRSS), open file descriptors and, of them, sockets; None when the
    process is gone."""
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
