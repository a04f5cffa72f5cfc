"""A private PostgreSQL and a private Redis for the crash test and the soak.

The crash test stops PostgreSQL in immediate mode and kills servers: it must never touch the
machine's shared PostgreSQL (5432) or Redis (6379), which other people's tests use. Each
instance here lives in its own temporary directory, listens on 127.0.0.1 on its own port and
is removed when the context ends.

PostgreSQL refuses to run as root; when this runs as root, `initdb`, `pg_ctl` and the server
run as the `postgres` system user (the data directory is handed to it).
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from types import TracebackType

HOST = "127.0.0.1"


def pg_bin(name: str) -> str | None:
    """`initdb`, `pg_ctl` or `postgres` from PATH, else from the newest Debian layout."""
    found = shutil.which(name)
    if found:
        return found
    versions = sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)
    for directory in versions:
        if (directory / name).exists():
            return str(directory / name)
    return None


def missing_tools() -> list[str]:
    """What this machine lacks to run the private instances (empty when nothing)."""
    missing = [n for n in ("initdb", "pg_ctl", "postgres") if pg_bin(n) is None]
    if shutil.which("redis-server") is None:
        missing.append("redis-server")
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            missing.append("a `postgres` user (PostgreSQL refuses to run as root)")
    return missing


def wait_port(port: int, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with socket.create_connection((HOST, port), timeout=1):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise TimeoutError(f"nothing listens on {HOST}:{port} after {timeout} s") from None
            time.sleep(0.1)


class PrivatePostgres:
    """`initdb` in a temporary directory, trust authentication, one port on 127.0.0.1."""

    def __init__(self, port: int) -> None:
        self.port = port
        # In the system's temporary directory, not a caller's: when this runs as root, the
        # `postgres` user must be able to reach it, and a private (0700) parent would stop it.
        self.root = Path(tempfile.mkdtemp(prefix="soak-pg-"))
        self.data = self.root / "data"
        self.log = self.root / "postgres.log"
        self._user: str | None = None
        if os.geteuid() == 0:
            self._user = "postgres"
            entry = pwd.getpwnam("postgres")
            os.chown(self.root, entry.pw_uid, entry.pw_gid)
        os.chmod(self.root, 0o755)

    def url(self, database: str) -> str:
        return f"postgres://postgres@{HOST}:{self.port}/{database}"

    def _run(self, argv: list[str], timeout: float = 120) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            argv,
            user=self._user,
            cwd=self.root,
            capture_output=True,
            text=True,
            timeout=timeout,
            env={**os.environ, "LC_ALL": "C"},
        )
        if done.returncode != 0:
            raise RuntimeError(f"{argv[0]} failed ({done.returncode}):\n{done.stderr[-2000:]}")
        return done

    def init(self) -> None:
        initdb = pg_bin("initdb")
        assert initdb is not None
        self._run(
            [initdb, "-D", str(self.data), "-U", "postgres", "-A", "trust", "-E", "UTF8",
             "--no-instructions"]
        )  # fmt: skip
        with (self.data / "postgresql.conf").open("a") as conf:
            conf.write(
                f"\nlisten_addresses = '{HOST}'\nport = {self.port}\n"
                f"unix_socket_directories = '{self.root}'\n"
                "max_connections = 200\nshared_buffers = 64MB\n"
                "logging_collector = off\n"
            )

    def start(self, timeout: float = 60) -> None:
        pg_ctl = pg_bin("pg_ctl")
        assert pg_ctl is not None
        self._run([pg_ctl, "-D", str(self.data), "-l", str(self.log), "-w", "-t", str(int(timeout)),
                   "start"], timeout=timeout + 10)  # fmt: skip
        wait_port(self.port, timeout)

    def stop(self, mode: str = "fast") -> None:
        """`pg_ctl stop -m immediate` is a crash: no checkpoint, recovery from WAL at start."""
        pg_ctl = pg_bin("pg_ctl")
        assert pg_ctl is not None
        self._run([pg_ctl, "-D", str(self.data), "-m", mode, "-w", "stop"], timeout=60)

    def running(self) -> bool:
        return (self.data / "postmaster.pid").exists()

    def create_database(self, name: str) -> None:
        import psycopg

        with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')

    def __enter__(self) -> PrivatePostgres:
        self.init()
        self.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        try:
            if self.running():
                self.stop("immediate")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)


class PrivateRedis:
    """`redis-server` on its own port, no persistence (as docker-compose.yml)."""

    def __init__(self, port: int, workdir: Path | None = None) -> None:
        self.port = port
        self.root = Path(tempfile.mkdtemp(prefix="soak-redis-", dir=workdir))
        self.process: subprocess.Popen[bytes] | None = None

    def url(self, db: int = 0) -> str:
        return f"redis://{HOST}:{self.port}/{db}"

    def start(self) -> None:
        argv = ["redis-server", "--bind", HOST, "--port", str(self.port), "--save", "",
                "--appendonly", "no", "--dir", str(self.root), "--protected-mode", "no"]  # fmt: skip
        with (self.root / "redis.log").open("wb") as out:
            self.process = subprocess.Popen(
                argv, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
            )
        wait_port(self.port, 30)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def __enter__(self) -> PrivateRedis:
        self.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        try:
            self.stop()
        finally:
            shutil.rmtree(self.root, ignore_errors=True)
