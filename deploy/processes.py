"""How this project's server processes are started and stopped on one machine.

One implementation for every launcher that runs gunicorn or uvicorn as child processes: the
production layout of `make serve-prod` (deploy/serve_prod.py), the scale demo, the benchmarks
(bench/) and the tests that need real server processes (tests/support/services.py,
tests/security/http_servers.py). Nothing here imports Django or the tests.

* `gunicorn_argv` / `uvicorn_argv` / `server_argv`: the command lines (WSGI and ASGI
  applications).
* `ServerProcess`: one such command in its own session (process group), its output appended
  to a log file; `stop()` signals the whole group, SIGKILL after a timeout.
* `run_python`: a short-lived Python subprocess (manage.py, a module), its output captured.
* `server_env`: the environment of a server started by a test or a benchmark, without the
  variables of the caller's run that must not leak into it.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HOST = "127.0.0.1"

# The WebSocket options of every uvicorn serving the application (`make run`, `make
# serve-prod`, the compose file's `live`, the benchmarks and tests that start one; the Makefile
# and the compose file spell them out, tests/deploy check they match):
# * a frame over 4096 bytes is dropped before it is assembled (games.live.base: the consumers'
#   own WS_MAX_FRAME_BYTES; uvicorn's default is 16 MiB);
# * no permessage-deflate. Browsers ask for it, and uvicorn grants it by default: then every
#   socket keeps zlib streams of its own (97.8 KiB a socket once a frame went out, against 5.4
#   without) and a fan-out compresses its frame once per watcher (3.66 against 1.35 µs of CPU
#   a `progress` frame), to save a few hundred bytes a frame (`make bench-compression`,
#   docs/LIVE.md, "Compression").
WS_OPTIONS = ("--ws-max-size", "4096", "--ws-per-message-deflate", "false")
WSGI_APP = "demineur_site.wsgi:application"
ASGI_APP = "demineur_site.asgi:application"

# Variables of the caller's run (a test session, a shell) that must not reach a server unless
# the caller passes them: the database, Redis, the settings module and what tunes them.
LEAKY_PREFIXES = (
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
    "ACCOUNT_",
    "SQLITE_PATH",
    "FORWARDED_ALLOW_IPS",
)
# Tests and benchmarks talk to their servers fast: the throttles are raised unless they set them.
RAISED_THROTTLES = {
    "THROTTLE_ANON": "100000/min",
    "THROTTLE_USER": "100000/min",
    "THROTTLE_AUTH": "100000/min",
    "THROTTLE_AUTH_USERNAME": "100000/min",
    # The caps on new accounts per address and site-wide (0: off).
    "ACCOUNT_GUESTS_PER_ADDRESS_DAY": "0",
    "ACCOUNT_SIGNUPS_PER_ADDRESS_DAY": "0",
    "ACCOUNT_NEW_PER_HOUR": "0",
}


def free_port(host: str = HOST) -> int:
    """A port nobody listens on right now (the kernel's pick)."""
    with socket.socket() as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


def wait_for_port(
    port: int, timeout: float = 30.0, proc: subprocess.Popen[bytes] | None = None
) -> None:
    """Until something accepts TCP connections on 127.0.0.1:`port`; RuntimeError when `proc`
    exits first or after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"process exited with {proc.returncode} before listening")
        try:
            with socket.create_connection((HOST, port), timeout=1):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise RuntimeError(f"nothing listens on port {port} after {timeout} s") from None
            time.sleep(0.1)


def stop_group(
    proc: subprocess.Popen[bytes] | None, *, sig: int = signal.SIGTERM, timeout: float = 20.0
) -> None:
    """Send `sig` to the process group of `proc` (started with start_new_session) and wait for
    it; SIGKILL the group when it has not exited within `timeout` seconds."""
    if proc is None or proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, sig)
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    except ProcessLookupError:
        pass


def server_env(*, debug: bool, **extra: str) -> dict[str, str]:
    """The real settings (demineur_site.settings), DEBUG on or off, the throttles raised, none of
    LEAKY_PREFIXES from this process's environment, then `extra`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(LEAKY_PREFIXES)}
    env.update(
        DJANGO_SETTINGS_MODULE="demineur_site.settings",
        DEBUG="1" if debug else "0",
        PYTHONUNBUFFERED="1",
        **RAISED_THROTTLES,
    )
    env.update(extra)
    return env


def gunicorn_argv(
    port: int,
    *,
    workers: int = 1,
    app: str = WSGI_APP,
    host: str = HOST,
    extra: Iterable[str] = (),
) -> list[str]:
    """gunicorn (sync workers, its default) serving the WSGI `app` on host:port."""
    return [
        sys.executable,
        "-m",
        "gunicorn",
        app,
        "--bind",
        f"{host}:{port}",
        "--workers",
        str(workers),
        *extra,
    ]


def uvicorn_argv(
    port: int, *, workers: int | None = None, host: str = HOST, extra: Iterable[str] = ()
) -> list[str]:
    """uvicorn serving the ASGI application on host:port with WS_OPTIONS (`workers` None:
    uvicorn's default, one process, no supervisor)."""
    argv = [sys.executable, "-m", "uvicorn", ASGI_APP, "--host", host, "--port", str(port)]
    argv += WS_OPTIONS
    if workers is not None:
        argv += ["--workers", str(workers)]
    return [*argv, *extra]


def server_argv(
    kind: str,
    port: int,
    *,
    workers: int | None = None,
    gunicorn: Iterable[str] = (),
    uvicorn: Iterable[str] = (),
) -> list[str]:
    """The command line of a `kind` server ("gunicorn" or "uvicorn") on 127.0.0.1:`port`, with
    the extra options given for that kind."""
    if kind == "gunicorn":
        return gunicorn_argv(port, workers=workers or 1, extra=gunicorn)
    if kind == "uvicorn":
        return uvicorn_argv(port, workers=workers, extra=uvicorn)
    raise ValueError(kind)


def run_python(
    *args: str, env: dict[str, str], cwd: Path = ROOT, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """`python ARGS` (this interpreter: a manage.py command, a module, a snippet) in `cwd` with
    exactly `env`, to its end; its output captured as text."""
    return subprocess.run(
        [sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
    )


class ServerProcess:
    """`argv` in its own session (so that it and its workers are stopped as one group), in
    `cwd` with exactly `env`, its output appended to `log_path`. `start()` may be called again
    after a stop or a kill (a restart on the same port)."""

    def __init__(
        self,
        name: str,
        argv: list[str],
        *,
        port: int,
        env: dict[str, str],
        log_path: Path,
        cwd: Path = ROOT,
    ) -> None:
        self.name = name
        self.argv = argv
        self.port = port
        self.env = env
        self.log_path = log_path
        self.cwd = cwd
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, *, banner: str = "") -> None:
        """Start the command; `banner` is written to the log first."""
        with self.log_path.open("ab") as log:
            if banner:
                log.write(banner.encode())
                log.flush()
            self.proc = subprocess.Popen(
                self.argv,
                cwd=self.cwd,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"

    def exited(self) -> bool:
        return self.proc is not None and self.proc.poll() is not None

    def output(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    def wait_listening(self, timeout: float = 60.0) -> None:
        """Until the port accepts connections; RuntimeError, with the log, when it exits first
        or does not listen within `timeout` seconds."""
        try:
            wait_for_port(self.port, timeout, self.proc)
        except RuntimeError as exc:
            raise RuntimeError(f"{self.name}: {exc}\n{self.output()}") from None

    def wait_answering(
        self, path: str, timeout: float = 60.0, *, error: type[BaseException] = RuntimeError
    ) -> None:
        """Until GET `path` answers 2xx; `error` (naming the log) when the process exits first
        or nothing answers within `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.exited():
                raise error(f"{self.name} exited; see {self.log_path}")
            try:
                with urllib.request.urlopen(f"{self.url}{path}", timeout=2):
                    return
            except OSError:
                time.sleep(0.2)
        raise error(f"{self.name} did not answer in {timeout} s; see {self.log_path}")

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 20.0) -> None:
        stop_group(self.proc, sig=sig, timeout=timeout)
