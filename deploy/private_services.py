"""Private PostgreSQL and Redis instances and application servers on free ports of 127.0.0.1,
for the scale demo (deploy/scale_demo.py), the outage and crash tests (tests/reliability/,
through tests/support/services.py) and the soak (bench/soak/): one implementation for all. Never the machine's shared
PostgreSQL or Redis: other runs use those at the same time, and these stop and start what
they run.

    with PrivatePostgres() as pg, PrivateRedis() as redis:
        url = pg.create_database("demineur")
        migrate(url)
        with AppServer("gunicorn", DATABASE_URL=url, REDIS_URL=redis.url()) as server:
            pg.stop()            # pg_ctl stop -m immediate
            ...                  # server.request("GET", "/readyz") -> 503
            pg.start()

`PrivateReplica(pg)` is a streaming replica of such a cluster (``pg_basebackup -R``).

`postgres_missing()` / `redis_missing()` give the reason why they cannot run here (None when
they can)."""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Self

from deploy.json_http import JsonServer
from deploy.processes import (
    HOST,
    ServerProcess,
    free_port,
    run_python,
    server_argv,
    server_env,
)


class _Scratch:
    """A context manager over something started in its own scratch directory (`root`):
    started on entry; stopped, and the directory removed, on exit."""

    root: Path

    def start(self) -> None:
        raise NotImplementedError

    def stop(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
        shutil.rmtree(self.root, ignore_errors=True)


# --- PostgreSQL ------------------------------------------------------------------------------


def _postgres_bindir() -> Path | None:
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), reverse=True)
    if candidates:
        return Path(candidates[0]).parent
    found = shutil.which("initdb")
    return Path(os.path.realpath(found)).parent if found else None


def postgres_missing() -> str | None:
    bindir = _postgres_bindir()
    if bindir is None or not (bindir / "initdb").exists():
        return "PostgreSQL server binaries (initdb, pg_ctl) are not installed"
    if os.geteuid() == 0 and shutil.which("runuser") is None:
        return "running as root without runuser: initdb cannot run as the postgres user"
    return None


class PrivatePostgres:
    """A throw-away PostgreSQL cluster on a free port of 127.0.0.1, trust auth, its socket in
    its own data directory. `stop()` is an immediate stop (as a crash), `start()` brings the
    same cluster back on the same port."""

    def __init__(self, port: int | None = None, *, fsync: bool = True) -> None:
        reason = postgres_missing()
        if reason:
            raise RuntimeError(reason)
        self.bindir = _postgres_bindir()
        self.port = port or free_port()
        self.fsync = fsync
        self.root = Path(tempfile.mkdtemp(prefix="demineur-pg-"))
        self.datadir = self.root / "data"
        self.log_path = self.root / "postgres.log"
        self._as_postgres = os.geteuid() == 0
        # Extra `-c name=value` server settings (e.g. log_statement=all on a replica).
        self.server_settings: dict[str, str] = {}

    def _run(self, tool: str, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        cmd = [str(self.bindir / tool), *args]  # type: ignore[operator]
        if self._as_postgres:
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        if done.returncode != 0:
            raise subprocess.CalledProcessError(done.returncode, cmd, done.stdout, done.stderr)
        return done

    def client(
        self, tool: str, *args: str, port: int | None = None
    ) -> subprocess.CompletedProcess[str]:
        """A client tool (psql, createdb, pg_dump, pg_restore, pg_basebackup) as the `postgres`
        user over TCP, against this cluster or the one on `port`."""
        address = ("-h", HOST, "-p", str(port or self.port), "-U", "postgres")
        return self._run(tool, *address, *args)

    def init(self) -> None:
        if self._as_postgres:
            shutil.chown(self.root, user="postgres", group="postgres")
        os.chmod(self.root, 0o755)
        self._run("initdb", "-D", str(self.datadir), "-A", "trust", "-U", "postgres", "--no-sync")

    def start(self) -> None:
        options = f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1"
        if not self.fsync:
            # Faster, and still safe for these tests: a commit is in the kernel's cache when
            # answered, which an immediate stop (unlike a machine crash) does not lose. Never
            # synchronous_commit=off: it loses answered commits on an immediate stop.
            options += " -c fsync=off"
        for name, value in self.server_settings.items():
            options += f" -c {name}={value}"
        self._run(
            "pg_ctl",
            "-D",
            str(self.datadir),
            "-o",
            options,
            "-l",
            str(self.log_path),
            "-w",
            "-t",
            "60",
            "start",
        )

    def stop(self, mode: str = "immediate") -> None:
        self._run("pg_ctl", "-D", str(self.datadir), "-m", mode, "-w", "stop")

    def running(self) -> bool:
        try:
            self._run("pg_ctl", "-D", str(self.datadir), "status", timeout=10)
        except subprocess.CalledProcessError:
            return False
        return True

    def url(self, dbname: str = "postgres") -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{dbname}"

    def create_database(self, name: str) -> str:
        self.client("createdb", name)
        return self.url(name)

    def sql(self, query: str, *, port: int | None = None, dbname: str = "postgres") -> str:
        """`query` run by psql (on this cluster or the one on `port`), its unaligned output."""
        done = self.client("psql", "-d", dbname, "-At", "-c", query, port=port)
        return done.stdout.strip()

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    def __enter__(self) -> Self:
        try:
            self.init()
            self.start()
        except BaseException:
            self.cleanup()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.cleanup()

    def cleanup(self) -> None:
        if self.datadir.exists() and self.running():
            with contextlib.suppress(subprocess.CalledProcessError):
                self.stop("immediate")
        shutil.rmtree(self.root, ignore_errors=True)


class PrivateReplica(PrivatePostgres):
    """A hot-standby streaming replica of a PrivatePostgres: its data directory is a
    ``pg_basebackup -R`` of the primary (which writes the standby.signal and the
    primary_conninfo), on its own free port. `log_statement=all` by default, so a test can see
    which statements reached it; `wait_for_replay()` waits until it has replayed all the
    primary has written so far; `pause()` / `resume()` stop and restart the replay (a replica
    that lags, on demand)."""

    def __init__(self, primary: PrivatePostgres, *, log_statements: bool = True) -> None:
        super().__init__(fsync=False)
        self.primary = primary
        self.server_settings["hot_standby"] = "on"
        if log_statements:
            self.server_settings["log_statement"] = "all"

    def init(self) -> None:
        if self._as_postgres:
            shutil.chown(self.root, user="postgres", group="postgres")
        os.chmod(self.root, 0o755)
        self.client(
            "pg_basebackup",
            "-D",
            str(self.datadir),
            "-R",
            "-X",
            "stream",
            "--checkpoint=fast",
            "--no-sync",
            port=self.primary.port,
        )

    def wait_for_replay(self, timeout: float = 30.0) -> None:
        target = self.sql("SELECT pg_current_wal_lsn()", port=self.primary.port)
        deadline = time.monotonic() + timeout
        while True:
            done = self.sql(f"SELECT pg_last_wal_replay_lsn() >= '{target}'::pg_lsn")
            if done == "t":
                return
            if time.monotonic() > deadline:
                raise RuntimeError(f"the replica has not replayed up to {target} in {timeout} s")
            time.sleep(0.1)

    def pause(self) -> None:
        self.sql("SELECT pg_wal_replay_pause()")

    def resume(self) -> None:
        self.sql("SELECT pg_wal_replay_resume()")


# --- Redis -----------------------------------------------------------------------------------


def redis_missing() -> str | None:
    if shutil.which("redis-server") is None:
        return "redis-server is not installed"
    return None


class PrivateRedis(_Scratch):
    """A throw-away redis-server on a free port of 127.0.0.1, no persistence. `stop()` kills it
    (SIGKILL, as a crash), `start()` starts a new empty one on the same port."""

    def __init__(self, port: int | None = None) -> None:
        reason = redis_missing()
        if reason:
            raise RuntimeError(reason)
        self.port = port or free_port()
        self.root = Path(tempfile.mkdtemp(prefix="demineur-redis-"))
        argv = ["redis-server", "--port", str(self.port), "--bind", HOST, "--save", ""]
        argv += ["--appendonly", "no", "--daemonize", "no", "--dir", str(self.root)]
        self.server = ServerProcess(
            "redis-server",
            argv,
            port=self.port,
            env=dict(os.environ),
            log_path=self.root / "redis.log",
            cwd=self.root,
        )

    def url(self, db: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"

    def start(self) -> None:
        self.server.start()
        self.server.wait_listening(30)

    def stop(self, sig: int = signal.SIGKILL) -> None:
        self.server.stop(sig, timeout=30)


# --- The application ---------------------------------------------------------------------------


def app_env(**extra: str) -> dict[str, str]:
    """The production configuration (DEBUG off, real settings), throttles raised."""
    secret = {"SECRET_KEY": "test-only-secret-key-for-private-servers"}
    return server_env(debug=False, **(secret | extra))


def manage(*args: str, timeout: float = 300, **env: str) -> subprocess.CompletedProcess[str]:
    """`manage.py ARGS` with the production configuration and `env` (e.g. DATABASE_URL)."""
    return run_python("manage.py", *args, env=app_env(**env), timeout=timeout)


def migrate(database_url: str) -> None:
    done = manage("migrate", "--noinput", DATABASE_URL=database_url)
    if done.returncode != 0:
        raise RuntimeError(f"migrate failed:\n{done.stdout}\n{done.stderr}")


class AppServer(JsonServer, ServerProcess, _Scratch):
    """gunicorn (WSGI, sync workers, as the compose file's `web`) or uvicorn (ASGI, as `live`
    and `make run`) on a free port, the production settings and the given environment;
    `request` (JsonServer) sends it one JSON request."""

    host = HOST

    def __init__(
        self, kind: str, *, workers: int = 1, args: list[str] | None = None, **env: str
    ) -> None:
        self.kind = kind
        port = free_port()
        self.root = Path(tempfile.mkdtemp(prefix=f"demineur-{kind}-"))
        argv = server_argv(
            kind,
            port,
            workers=workers,
            gunicorn=["--worker-tmp-dir", str(self.root)],
            uvicorn=["--lifespan", "off", "--no-access-log"],
        )
        super().__init__(
            kind,
            argv + (args or []),
            port=port,
            env=app_env(**env),
            log_path=self.root / "server.log",
        )

    def start(self, *, banner: str = "") -> None:
        super().start(banner=banner)
        self.wait_listening(60)

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 20.0) -> None:
        super().stop(sig, timeout)
        self.proc = None
