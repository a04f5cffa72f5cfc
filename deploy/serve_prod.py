"""`make serve-prod`: the production layout on this machine, without Docker.

    Caddy (Debian's package) on PORT (8080)
      /ws/*  round-robin to LIVE_WORKERS (2) uvicorn processes, each on its own port (DB_POOL=1)
      /*     to one gunicorn with WEB_WORKERS (2) sync workers
    against the PostgreSQL of DATABASE_URL and the Redis of REDIS_URL (both required),
    DEBUG off, TRUSTED_PROXIES=1 (Caddy is the one proxy in front).

    python deploy/serve_prod.py          start (foreground; Ctrl-C stops everything)
    python deploy/serve_prod.py stop     stop a running one (from another terminal)

SECRET_KEY comes from the environment, or is generated once into `.run/secret_key` (ignored
by git) for a local try. Pid files, logs and the generated proxy config live in the run
directory (SERVE_PROD_RUN_DIR, default `.run/serve-prod`). docs/deploy/SERVING.md.
Prometheus scrapes each server on its own port, /metrics (docs/DEPLOYMENT.md, "Metrics and
logs"); layout.json names the ports. Each server keeps its workers' counts in
`metrics/<server>` of the run directory (PROMETHEUS_MULTIPROC_DIR), emptied at start.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from string import Template
from types import FrameType

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from deploy.processes import free_port, gunicorn_argv, uvicorn_argv  # noqa: E402 - after the path

TEMPLATE = ROOT / "deploy" / "Caddyfile.template"
START_TIMEOUT = 60.0
STOP_TIMEOUT = 20.0
# The proxy's read timeouts (PROXY_READ_HEADER_TIMEOUT, PROXY_READ_BODY_TIMEOUT): the same
# defaults as docs/Caddyfile (tests/deploy/test_deploy_files.py checks it).
READ_HEADER_TIMEOUT = "10s"
READ_BODY_TIMEOUT = "30s"
# What each pid file may name: a pid reused by another program is never signalled.
EXPECTED = {"launcher": "serve_prod", "web": "gunicorn", "live": "uvicorn", "proxy": "caddy"}


class ServeError(Exception):
    """A refusal to start, with the reason for the operator."""


# `reverse_proxy { request_buffers N  response_buffers M }` (Caddy 2.6.4 and later) is spelled
# `buffer_requests`, `buffer_responses` and one `max_buffer_size` for both before that (Debian
# 12 ships 2.6.2); 2.8 knows only the new form. The shared size is the larger of the two: the
# request side is still bounded by `request_body max_size`, which cuts a body off first.
REQUEST_BUFFERS_SINCE = (2, 6, 4)
BUFFER_LINES = re.compile(
    r"^(?P<indent>[ \t]*)(?:(?:request|response)_buffers [0-9]+\n(?P=indent))*"
    r"(?:request|response)_buffers [0-9]+$",
    re.M,
)


def caddy_version(caddy: str) -> tuple[int, int, int]:
    """The version `caddy version` reports ("v2.6.2 h1:..." or Debian's "2.6.2")."""
    output = subprocess.run(
        [caddy, "version"], capture_output=True, text=True, timeout=30, check=False
    ).stdout
    found = re.search(r"(\d+)\.(\d+)\.(\d+)", output)
    if not found:
        raise ServeError(f"cannot tell the version of {caddy} from {output!r}")
    major, minor, patch = (int(part) for part in found.groups())
    return major, minor, patch


OLD_SPELLING = {"request_buffers": "buffer_requests", "response_buffers": "buffer_responses"}


def _old_buffering(match: re.Match[str]) -> str:
    """One run of `request_buffers` / `response_buffers` lines in the spelling before 2.6.4."""
    sizes: dict[str, int] = {}
    for line in match[0].split("\n"):
        kind, size = line.split()
        sizes[kind] = int(size)
    lines = [old for new, old in OLD_SPELLING.items() if new in sizes]
    lines.append(f"max_buffer_size {max(sizes.values())}")
    return "\n".join(match["indent"] + line for line in lines)


def caddyfile_for(version: tuple[int, int, int], text: str) -> str:
    """A Caddyfile written for current Caddy, in the spelling of `version`: the directives
    whose names changed (request and response buffering, byte counts) are rewritten for an
    older one."""
    if version >= REQUEST_BUFFERS_SINCE:
        return text
    return BUFFER_LINES.sub(_old_buffering, text)


def run_dir() -> Path:
    return Path(os.environ.get("SERVE_PROD_RUN_DIR") or ROOT / ".run" / "serve-prod").resolve()


def positive_int(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ServeError(f"{name}={raw!r} is not an integer") from None
    if value < 1:
        raise ServeError(f"{name} must be 1 or more")
    return value


def duration(name: str, default: str) -> str:
    """A Caddy duration from the environment: a whole number of ms, s or m."""
    raw = os.environ.get(name, "").strip() or default
    if not re.fullmatch(r"[1-9][0-9]*(ms|s|m)", raw):
        raise ServeError(f"{name}={raw!r} is not a duration such as 10s")
    return raw


def secret_key() -> str:
    key = os.environ.get("SECRET_KEY", "")
    if key:
        return key
    path = ROOT / ".run" / "secret_key"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(secrets.token_urlsafe(60))
        print(f"serve-prod: generated a SECRET_KEY into {path} (set SECRET_KEY to use your own)")
    return path.read_text().strip()


def alive(pid: int, role: str) -> bool:
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return False
    return EXPECTED[role] in cmdline


def read_pid(path: Path) -> int | None:
    try:
        return int(path.read_text().strip())
    except (OSError, ValueError):
        return None


def get(url: str, host: str, timeout: float = 2.0) -> int:
    request = urllib.request.Request(url, headers={"Host": host})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)


class Layout:
    def __init__(self) -> None:
        self.dir = run_dir()
        self.children: list[tuple[str, subprocess.Popen[bytes]]] = []
        self.stopping = False

    # --- configuration -------------------------------------------------------------------
    def configure(self) -> None:
        database_url = os.environ.get("DATABASE_URL", "")
        if not database_url.startswith(("postgres://", "postgresql://")):
            raise ServeError("DATABASE_URL must point at PostgreSQL (postgres://...)")
        if not os.environ.get("REDIS_URL", "").startswith(("redis://", "rediss://", "unix://")):
            raise ServeError("REDIS_URL must point at Redis (redis://...)")
        caddy = os.environ.get("CADDY") or shutil.which("caddy")
        if not caddy:
            raise ServeError("no `caddy` binary: apt-get install caddy (or set CADDY=path)")
        self.caddy = caddy
        self.bind = os.environ.get("BIND", "127.0.0.1")
        self.port = positive_int("PORT", 8080)
        self.web_workers = positive_int("WEB_WORKERS", 2)
        self.live_workers = positive_int("LIVE_WORKERS", 2)
        self.web_port = free_port()
        self.live_ports = [free_port() for _ in range(self.live_workers)]
        origin_hosts = ["127.0.0.1", "localhost"]
        self.env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "demineur_site.settings",
            "DEBUG": "0",
            "SECRET_KEY": secret_key(),
            "TRUSTED_PROXIES": "1",
            "ALLOWED_HOSTS": os.environ.get("ALLOWED_HOSTS") or ",".join(origin_hosts),
            "CSRF_TRUSTED_ORIGINS": os.environ.get("CSRF_TRUSTED_ORIGINS")
            or ",".join(f"http://{h}:{self.port}" for h in origin_hosts),
            "PYTHONUNBUFFERED": "1",
        }
        self.probe_host = self.env["ALLOWED_HOSTS"].split(",")[0].strip().lstrip(".")
        max_body = positive_int("MAX_REQUEST_BYTES", 64 * 1024)
        self.caddyfile = self.dir / "Caddyfile"
        config = Template(TEMPLATE.read_text()).substitute(
            run_dir=str(self.dir),
            bind=self.bind,
            port=self.port,
            max_body=f"{max_body}B",
            max_body_bytes=str(max_body),
            # One byte over the limit: the buffer holds any body the limit lets through and
            # sees it end, so a body is never forwarded while it still dribbles in.
            request_buffers=str(max_body + 1),
            read_header_timeout=duration("PROXY_READ_HEADER_TIMEOUT", READ_HEADER_TIMEOUT),
            read_body_timeout=duration("PROXY_READ_BODY_TIMEOUT", READ_BODY_TIMEOUT),
            live_upstreams=" ".join(f"127.0.0.1:{p}" for p in self.live_ports),
            web_upstreams=f"127.0.0.1:{self.web_port}",
        )
        self.caddyfile.write_text(caddyfile_for(caddy_version(self.caddy), config))

    # --- processes -----------------------------------------------------------------------
    def manage(self, *args: str) -> None:
        result = subprocess.run(
            [sys.executable, "manage.py", *args], cwd=ROOT, env=self.env, check=False
        )
        if result.returncode != 0:
            raise ServeError(f"manage.py {' '.join(args)} failed ({result.returncode})")

    def metrics_dir(self, name: str) -> str:
        """An empty directory per server, where its workers keep their Prometheus counts
        (demineur_site.metrics); emptied at every start."""
        path = self.dir / "metrics" / name
        shutil.rmtree(path, ignore_errors=True)
        path.mkdir(parents=True)
        return str(path)

    def spawn(self, name: str, command: list[str], **extra_env: str) -> None:
        log = (self.dir / f"{name}.log").open("ab")
        process = subprocess.Popen(
            command,
            cwd=ROOT,
            env={**self.env, **extra_env},
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: Ctrl-C reaches the launcher only
        )
        log.close()
        (self.dir / f"{name}.pid").write_text(f"{process.pid}\n")
        self.children.append((name, process))

    def wait_until(self, name: str, url: str) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            for child, process in self.children:
                if process.poll() is not None:
                    raise ServeError(f"{child} exited with {process.returncode}: see {child}.log")
            try:
                if get(url, self.probe_host) == 200:
                    return
            except OSError:
                pass
            time.sleep(0.2)
        raise ServeError(f"{name} did not answer {url} within {START_TIMEOUT:.0f} s")

    def start(self) -> None:
        self.manage("migrate", "--noinput", "-v", "0")
        self.manage("collectstatic", "--noinput", "-v", "0")
        web_options = [
            "--access-logfile",
            str(self.dir / "web-access.log"),
            # gunicorn's maximum: every request line the proxy forwards (URI <= 4096 bytes) fits.
            "--limit-request-line",
            "8190",
        ]
        self.spawn(
            "web",
            gunicorn_argv(self.web_port, workers=self.web_workers, extra=web_options),
            PROMETHEUS_MULTIPROC_DIR=self.metrics_dir("web"),
        )
        for index, port in enumerate(self.live_ports, start=1):
            self.spawn(
                f"live-{index}",
                uvicorn_argv(
                    port,
                    extra=[
                        "--no-access-log",
                        # Caddy 2.6.2 writes a socket's 101 answer past its header rules.
                        "--no-server-header",
                        # Django reads X-Forwarded-For itself, TRUSTED_PROXIES hops from the right.
                        "--no-proxy-headers",
                    ],
                ),
                DB_POOL="1",
                PROMETHEUS_MULTIPROC_DIR=self.metrics_dir(f"live-{index}"),
            )
        self.wait_until("web", f"http://127.0.0.1:{self.web_port}/readyz")
        for index, port in enumerate(self.live_ports, start=1):
            self.wait_until(f"live-{index}", f"http://127.0.0.1:{port}/readyz")
        self.spawn(
            "proxy",
            [self.caddy, "run", "--config", str(self.caddyfile), "--adapter", "caddyfile"],
            HOME=str(self.dir),
            XDG_DATA_HOME=str(self.dir / "caddy"),
            XDG_CONFIG_HOME=str(self.dir / "caddy"),
        )
        self.wait_until("proxy", f"http://127.0.0.1:{self.port}/readyz")
        (self.dir / "layout.json").write_text(
            json.dumps(
                {
                    "port": self.port,
                    "web_port": self.web_port,
                    "web_workers": self.web_workers,
                    "live_ports": self.live_ports,
                    "pids": {name: process.pid for name, process in self.children},
                },
                indent=2,
            )
        )

    def stop_children(self) -> None:
        for _, process in reversed(self.children):
            if process.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGTERM)
        deadline = time.monotonic() + STOP_TIMEOUT
        for _, process in self.children:
            try:
                process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        for name, _ in self.children:
            (self.dir / f"{name}.pid").unlink(missing_ok=True)

    def on_signal(self, signum: int, frame: FrameType | None) -> None:
        self.stopping = True


def serve() -> int:
    directory = run_dir()
    directory.mkdir(parents=True, exist_ok=True)
    launcher_pid = directory / "launcher.pid"
    running = read_pid(launcher_pid)
    if running and running != os.getpid() and alive(running, "launcher"):
        print(f"serve-prod: already running (pid {running}); `make serve-prod-stop` stops it")
        return 1
    layout = Layout()
    signal.signal(signal.SIGTERM, layout.on_signal)
    signal.signal(signal.SIGINT, layout.on_signal)
    launcher_pid.write_text(f"{os.getpid()}\n")
    code = 0
    try:
        layout.configure()
        layout.start()
        print(
            f"serve-prod: http://{layout.bind}:{layout.port}/ (proxy) -> gunicorn "
            f"{layout.web_workers} workers on :{layout.web_port}, uvicorn on "
            f"{', '.join(f':{p}' for p in layout.live_ports)}; logs in {directory}. "
            "Ctrl-C or `make serve-prod-stop` stops it.",
            flush=True,
        )
        while not layout.stopping:
            for name, process in layout.children:
                if process.poll() is not None:
                    print(f"serve-prod: {name} exited ({process.returncode}); stopping")
                    layout.stopping = True
                    code = 1
            time.sleep(0.5)
    except ServeError as exc:
        print(f"serve-prod: {exc}", file=sys.stderr)
        code = 2
    finally:
        layout.stop_children()
        launcher_pid.unlink(missing_ok=True)
    return code


def stop() -> int:
    directory = run_dir()
    launcher = read_pid(directory / "launcher.pid")
    if launcher and alive(launcher, "launcher"):
        os.kill(launcher, signal.SIGTERM)
        deadline = time.monotonic() + STOP_TIMEOUT + 5
        while time.monotonic() < deadline and alive(launcher, "launcher"):
            time.sleep(0.2)
    # A launcher killed outright leaves its children: stop those the pid files still name.
    stopped = 0
    for pid_file in sorted(directory.glob("*.pid")):
        role = "live" if pid_file.stem.startswith("live-") else pid_file.stem
        pid = read_pid(pid_file)
        if role in EXPECTED and pid and alive(pid, role):
            try:
                if role == "launcher":
                    os.kill(pid, signal.SIGKILL)
                else:
                    os.killpg(pid, signal.SIGTERM)
                stopped += 1
            except ProcessLookupError:
                pass
        pid_file.unlink(missing_ok=True)
    print("serve-prod: stopped" if launcher or stopped else "serve-prod: nothing was running")
    return 0


def main(argv: list[str]) -> int:
    if argv[1:] == ["stop"]:
        return stop()
    if argv[1:]:
        print(__doc__)
        return 2
    return serve()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
