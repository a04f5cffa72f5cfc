"""Private PostgreSQL and Redis instances and real server processes, for the outage and crash
tests (tests/reliability/). Never the machine's shared PostgreSQL or Redis: other test runs
use those at the same time, and these tests stop and start what they run.

    with PrivatePostgres() as pg, PrivateRedis() as redis:
        url = pg.create_database("demineur")
        migrate(url)
        with AppServer("gunicorn", DATABASE_URL=url, REDIS_URL=redis.url()) as server:
            pg.stop()            # pg_ctl stop -m immediate
            ...                  # server.get("/readyz") -> 503
            pg.start()

`PrivateReplica(pg)` is a streaming replica of such a cluster (``pg_basebackup -R``).

`postgres_missing()` / `redis_missing()` give the reason to skip when the binaries are not
installed (None when they are)."""

from __future__ import annotations

import contextlib
import glob
import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for_port(
    port: int, timeout: float = 30.0, proc: subprocess.Popen[bytes] | None = None
) -> None:
    deadline = time.monotonic() + timeout
    while True:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"process exited with {proc.returncode} before listening")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise RuntimeError(f"nothing listens on port {port} after {timeout} s") from None
            time.sleep(0.1)


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
        self._run("createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", name)
        return self.url(name)

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    def __enter__(self) -> PrivatePostgres:
        try:
            self.init()
            self.start()
        except BaseException:
            self.cleanup()
            raise
        return self

    def __exit__(self, *exc: Any) -> None:
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
        self._run(
            "pg_basebackup",
            "-h",
            "127.0.0.1",
            "-p",
            str(self.primary.port),
            "-U",
            "postgres",
            "-D",
            str(self.datadir),
            "-R",
            "-X",
            "stream",
            "--checkpoint=fast",
            "--no-sync",
        )

    def sql(self, query: str, *, port: int | None = None, dbname: str = "postgres") -> str:
        done = self._run(
            "psql",
            "-h",
            "127.0.0.1",
            "-p",
            str(port or self.port),
            "-U",
            "postgres",
            "-d",
            dbname,
            "-At",
            "-c",
            query,
        )
        return done.stdout.strip()

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


class PrivateRedis:
    """A throw-away redis-server on a free port of 127.0.0.1, no persistence. `stop()` kills it
    (SIGKILL, as a crash), `start()` starts a new empty one on the same port."""

    def __init__(self, port: int | None = None) -> None:
        reason = redis_missing()
        if reason:
            raise RuntimeError(reason)
        self.port = port or free_port()
        self.root = Path(tempfile.mkdtemp(prefix="demineur-redis-"))
        self.proc: subprocess.Popen[bytes] | None = None

    def url(self, db: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"

    def start(self) -> None:
        log = open(self.root / "redis.log", "ab")  # noqa: SIM115 - kept by the process
        self.proc = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--daemonize",
                "no",
                "--dir",
                str(self.root),
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        log.close()
        wait_for_port(self.port, 30, self.proc)

    def stop(self, sig: int = signal.SIGKILL) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(sig)
            self.proc.wait(timeout=30)
        self.proc = None

    def __enter__(self) -> PrivateRedis:
        self.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()
        shutil.rmtree(self.root, ignore_errors=True)


# --- The application ---------------------------------------------------------------------------

# Variables of the test run that must not leak into a server unless a test passes them.
_DROPPED_PREFIXES = (
    "DATABASE_URL",
    "DATABASE_REPLICA_URL",
    "REDIS_URL",
    "DJANGO_SETTINGS_MODULE",
    "DEBUG",
    "SECRET_KEY",
    "GAME_TEST_SEED",
    "TRUSTED_PROXIES",
    "HTTPS",
    "LOG_LEVEL",
    "DB_",
    "CONN_",
    "THROTTLE_",
    "SQLITE_PATH",
    "FORWARDED_ALLOW_IPS",
)


def app_env(**extra: str) -> dict[str, str]:
    """The production configuration (DEBUG off, real settings), throttles raised."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(_DROPPED_PREFIXES)}
    env.update(
        DJANGO_SETTINGS_MODULE="demineur_site.settings",
        DEBUG="0",
        SECRET_KEY="test-only-secret-key-for-private-servers",
        PYTHONUNBUFFERED="1",
        THROTTLE_ANON="100000/min",
        THROTTLE_USER="100000/min",
        THROTTLE_AUTH="100000/min",
        THROTTLE_AUTH_USERNAME="100000/min",
    )
    env.update(extra)
    return env


def manage(*args: str, timeout: float = 300, **env: str) -> subprocess.CompletedProcess[str]:
    """`manage.py ARGS` with the production configuration and `env` (e.g. DATABASE_URL)."""
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=app_env(**env),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def migrate(database_url: str) -> None:
    done = manage("migrate", "--noinput", DATABASE_URL=database_url)
    if done.returncode != 0:
        raise RuntimeError(f"migrate failed:\n{done.stdout}\n{done.stderr}")


class AppServer:
    """gunicorn (WSGI, sync workers, as the compose file's `web`) or uvicorn (ASGI, as `live`
    and `make run`) on a free port, the production settings and the given environment."""

    def __init__(
        self, kind: str, *, workers: int = 1, args: list[str] | None = None, **env: str
    ) -> None:
        self.kind = kind
        self.port = free_port()
        self.root = Path(tempfile.mkdtemp(prefix=f"demineur-{kind}-"))
        self.log_path = self.root / "server.log"
        self.env = app_env(**env)
        if kind == "gunicorn":
            cmd = [
                sys.executable,
                "-m",
                "gunicorn",
                "demineur_site.wsgi:application",
                "--bind",
                f"127.0.0.1:{self.port}",
                "--workers",
                str(workers),
                "--worker-tmp-dir",
                str(self.root),
            ]
        elif kind == "uvicorn":
            cmd = [
                sys.executable,
                "-m",
                "uvicorn",
                "demineur_site.asgi:application",
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--workers",
                str(workers),
                "--lifespan",
                "off",
                "--no-access-log",
                "--ws-max-size",
                "4096",
            ]
        else:
            raise ValueError(kind)
        self.cmd = cmd + (args or [])
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        log = open(self.log_path, "ab")  # noqa: SIM115 - kept by the process
        self.proc = subprocess.Popen(
            self.cmd,
            cwd=ROOT,
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        log.close()
        try:
            wait_for_port(self.port, 60, self.proc)
        except RuntimeError as exc:
            raise RuntimeError(f"{self.kind}: {exc}\n{self.output()}") from None

    def stop(self, sig: int = signal.SIGTERM) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, sig)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=20)
        self.proc = None

    def output(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        token: str | None = None,
        timeout: float = 30,
    ) -> tuple[int, dict[str, str], Any, float]:
        """(status, headers, JSON body or text, seconds taken)."""
        headers = {"Host": "127.0.0.1"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        if token:
            headers["Authorization"] = f"Token {token}"
        start = time.monotonic()
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            conn.request(method, path, body=data, headers=headers)
            response = conn.getresponse()
            raw = response.read()
            answer_headers = {k.lower(): v for k, v in response.getheaders()}
        finally:
            conn.close()
        taken = time.monotonic() - start
        try:
            parsed: Any = json.loads(raw) if raw else None
        except ValueError:
            parsed = raw.decode(errors="replace")
        return response.status, answer_headers, parsed, taken

    def __enter__(self) -> AppServer:
        self.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()
        shutil.rmtree(self.root, ignore_errors=True)
