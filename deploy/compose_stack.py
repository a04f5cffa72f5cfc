"""docker-compose.yml run for real: the engine, the images, the stack, and a client that talks to
it only through the proxy's port on 127.0.0.1 (make compose-test, tests/deploy/
test_compose_stack.py; make swarm-test, deploy/swarm_check.py; docs/DEPLOYMENT.md).

    engine = Engine.find()                      # None: engine_missing() says why
    with Stack(engine, run_dir) as stack:       # images built, `up -d`, every health check green
        client = Client(stack.port)
        ...
    # `down -v` on exit

The base images (python:3.12-slim, postgres:15, redis:7, caddy:2) come from deploy/images.py
(`make images`): the real ones when they can be pulled, else stand-ins built from Debian's
packages and tagged with the real names, so the compose file runs as an operator runs it. Every
step prints what it does and how long it took (`progress`), and every wait has a deadline.
"""

from __future__ import annotations

import contextlib
import os
import random
import secrets
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self

from deploy import images

# Re-exported for the Swarm test and tests/support/docker_stacks.py.
from deploy.images import REAL_IMAGES as REAL_IMAGES
from deploy.images import ROOT as ROOT
from deploy.images import progress as progress
from deploy.images import run as run
from deploy.json_http import JsonServer

PROJECT_IMAGE = "demineur:latest"
# Deadline of `up -d` to every health check green: a loaded 2-core machine took 161 s (issue 43).
HEALTH_TIMEOUT = 480.0
# Files that make the image and the stack: with COMPOSE_TEST_SOURCE=head they are taken from the
# working tree over a `git archive HEAD` (a shared checkout where others' edits are in flight).
DEPLOY_FILES = (
    "Dockerfile",
    ".dockerignore",
    "docker-compose.yml",
    "docker-compose.swarm.yml",
    "docs/Caddyfile",
    "deploy",
)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


# --- the engine -------------------------------------------------------------------------------


@dataclass
class Engine:
    docker: str
    compose: list[str]

    @classmethod
    def find(cls) -> Engine | None:
        return None if engine_missing() else _ENGINE[0]

    def d(
        self, *args: str, timeout: float = 120, check: bool = True
    ) -> subprocess.CompletedProcess[str]:
        return run([self.docker, *args], timeout=timeout, check=check)


_ENGINE: list[Engine] = []


def engine_missing() -> str | None:
    """Why no Docker engine can be used here (None when one answers). A dockerd that is
    installed but not running is started in the background when we are root."""
    docker = shutil.which("docker")
    if docker is None:
        return "no docker CLI (apt-get install docker.io)"
    if run([docker, "info"], timeout=60, check=False).returncode != 0:
        dockerd = shutil.which("dockerd") or (
            "/usr/sbin/dockerd" if Path("/usr/sbin/dockerd").exists() else None
        )
        if dockerd is None or os.geteuid() != 0:
            return "no Docker engine answers `docker info` and none can be started here (root and dockerd needed)"
        progress("starting dockerd in the background (log: /tmp/dockerd.log)")
        with open("/tmp/dockerd.log", "ab") as log:
            subprocess.Popen([dockerd], stdout=log, stderr=log, start_new_session=True)
        deadline = time.monotonic() + 60
        while run([docker, "info"], timeout=60, check=False).returncode != 0:
            if time.monotonic() > deadline:
                return "dockerd was started but `docker info` did not answer within 60 s (see /tmp/dockerd.log)"
            time.sleep(1)
    if run([docker, "compose", "version"], timeout=30, check=False).returncode == 0:
        compose = [docker, "compose"]
    elif shutil.which("docker-compose"):
        compose = [str(shutil.which("docker-compose"))]
    else:
        return "neither `docker compose` nor docker-compose is installed"
    _ENGINE[:] = [Engine(docker=docker, compose=compose)]
    return None


def base_images(engine: Engine, figures: dict[str, Any]) -> dict[str, str]:
    """Every base image under its real name, as `make images` leaves them (real or stand-in:
    COMPOSE_TEST_STANDINS=1 builds stand-ins without trying to pull)."""
    started = time.monotonic()
    kinds = images.base_images(engine.docker, pull=os.environ.get("COMPOSE_TEST_STANDINS") != "1")
    figures["base_images"] = kinds
    figures["base_images_s"] = round(time.monotonic() - started, 1)
    progress(f"base images: {kinds}")
    return dict(REAL_IMAGES)


# --- images -----------------------------------------------------------------------------------


def image_size_mb(engine: Engine, image: str) -> float:
    size = engine.d("image", "inspect", "-f", "{{.Size}}", image, timeout=30).stdout.strip()
    return round(int(size) / 1e6, 1)


def source_tree(dest: Path) -> Path:
    """The build context and compose project directory: the working tree's files as git
    knows them (tracked and untracked, not ignored), or with COMPOSE_TEST_SOURCE=head the
    committed tree with the deployment files (DEPLOY_FILES) from the working tree."""
    dest.mkdir(parents=True, exist_ok=True)
    if os.environ.get("COMPOSE_TEST_SOURCE") == "head":
        archive = subprocess.Popen(["git", "archive", "HEAD"], cwd=ROOT, stdout=subprocess.PIPE)
        subprocess.run(
            ["tar", "-x", "-C", str(dest)], stdin=archive.stdout, check=True, timeout=120
        )
        archive.wait(timeout=60)
        names = [name for name in DEPLOY_FILES if (ROOT / name).exists()]
    else:
        listed = run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=ROOT,
            timeout=60,
        )
        names = [name for name in listed.stdout.split("\0") if name and (ROOT / name).is_file()]
    for name in names:
        source, target = ROOT / name, dest / name
        if source.is_dir():
            shutil.copytree(
                source, target, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__")
            )
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    return dest


def build_project_image(
    engine: Engine, src: Path, bases: dict[str, str], figures: dict[str, Any]
) -> None:
    """The project's image from `src`, as `docker compose build` makes it (pip's CA bundle,
    if this machine has one, in the builder stage: deploy/images.place_build_ca)."""
    progress("building the project's image")
    images.place_build_ca(src)
    started = time.monotonic()
    images.build(
        engine.docker, src, PROJECT_IMAGE, args={"PYTHON_IMAGE": bases["python"]}, timeout=1200
    )
    figures["image_build_s"] = round(time.monotonic() - started, 1)
    figures["image_mb"] = image_size_mb(engine, PROJECT_IMAGE)
    progress(f"{PROJECT_IMAGE}: {figures['image_mb']} MB, built in {figures['image_build_s']} s")


# --- the stack --------------------------------------------------------------------------------


@dataclass
class Stack:
    engine: Engine
    workdir: Path
    project: str = "demineurct"
    figures: dict[str, Any] = field(default_factory=dict)
    port: int = 0
    secret_key: str = field(default_factory=lambda: secrets.token_urlsafe(48))
    db_password: str = field(default_factory=lambda: secrets.token_urlsafe(18))

    def compose(
        self, *args: str, timeout: float = 300, check: bool = True
    ) -> subprocess.CompletedProcess[str]:
        return run(
            [*self.engine.compose, "-p", self.project, "-f", "docker-compose.yml", *args],
            timeout=timeout,
            check=check,
            cwd=self.src,
        )

    def __enter__(self) -> Self:
        try:
            return self._start()
        except BaseException:
            progress("the stack did not start: docker-compose down -v")
            with contextlib.suppress(Exception):
                self.compose("down", "-v", "--remove-orphans", timeout=300, check=False)
            raise

    def _start(self) -> Self:
        self.src = source_tree(self.workdir / "src")
        bases = base_images(self.engine, self.figures)
        self.port = free_port()
        env_file = (
            (self.src / ".env.example").read_text() if (self.src / ".env.example").exists() else ""
        )
        env_file += (
            f"\nSECRET_KEY={self.secret_key}\nPOSTGRES_PASSWORD={self.db_password}\n"
            f"ALLOWED_HOSTS=127.0.0.1,localhost\nCSRF_TRUSTED_ORIGINS=http://127.0.0.1:{self.port}\n"
            f"PUBLISH_ADDRESS=127.0.0.1\nPUBLISH_HTTP_PORT={self.port}\n"
            f"PUBLISH_ACME_PORT={free_port()}\nPUBLISH_TLS_PORT={free_port()}\n"
            # Many clients from one address (the Docker bridge): the tests' own accounts.
            "THROTTLE_AUTH=600/min\nTHROTTLE_AUTH_USERNAME=600/min\nACCOUNT_SIGNUPS_PER_ADDRESS_DAY=1000\n"
            "LOG_LEVEL=WARNING\n"
        )
        (self.src / ".env").write_text(env_file)
        self.compose("down", "-v", "--remove-orphans", timeout=180, check=False)
        build_project_image(self.engine, self.src, bases, self.figures)
        started = time.monotonic()
        progress(f"docker-compose up -d (proxy on 127.0.0.1:{self.port})")
        self.compose("up", "-d", "--no-build", timeout=600)
        # The scheduler's and the backup's checks first run a minute after the start.
        self.wait_healthy(HEALTH_TIMEOUT, skip={"scheduler", "backup"})
        self.figures["time_to_healthy_s"] = round(time.monotonic() - started, 1)
        progress(f"every health check green {self.figures['time_to_healthy_s']} s after `up`")
        return self

    def __exit__(self, *exc: object) -> None:
        if os.environ.get("COMPOSE_TEST_KEEP") == "1":
            progress(f"COMPOSE_TEST_KEEP=1: the stack {self.project} is left running")
            return
        progress("docker-compose down -v")
        started = time.monotonic()
        self.compose("down", "-v", "--remove-orphans", timeout=300, check=False)
        self.figures["down_s"] = round(time.monotonic() - started, 1)

    # --- containers ---------------------------------------------------------------------------
    def containers(self, service: str) -> list[str]:
        out = self.engine.d(
            "ps",
            "-q",
            "--filter",
            f"label=com.docker.compose.project={self.project}",
            "--filter",
            f"label=com.docker.compose.service={service}",
            timeout=30,
        ).stdout
        return sorted(out.split())

    def inspect(self, container: str, template: str) -> str:
        return self.engine.d("inspect", "-f", template, container, timeout=30).stdout.strip()

    def health(self, container: str) -> str:
        return self.inspect(
            container,
            "{{if .State.Health}}{{.State.Health.Status}}{{else}}{{.State.Status}}{{end}}",
        )

    def wait_healthy(self, timeout: float, *, skip: set[str] = frozenset()) -> None:  # type: ignore[assignment]
        deadline = time.monotonic() + timeout
        services = ["db", "redis", "web", "live", "proxy", "scheduler", "backup"]
        last = ""
        while True:
            states = {
                s: [self.health(c) for c in self.containers(s)] for s in services if s not in skip
            }
            line = ", ".join(f"{s}={'/'.join(v) or 'none'}" for s, v in states.items())
            if line != last:
                progress(f"health: {line}")
                last = line
            if all(v and all(h == "healthy" for h in v) for v in states.values()):
                return
            if time.monotonic() > deadline:
                logs = self.compose("logs", "--tail", "30", timeout=60, check=False).stdout
                raise RuntimeError(f"not healthy within {timeout:.0f} s: {line}\n{logs[-6000:]}")
            time.sleep(1)

    def exec(self, container: str, *argv: str, timeout: float = 60, check: bool = True) -> str:
        return self.engine.d("exec", container, *argv, timeout=timeout, check=check).stdout

    def socket_peers(self, container: str, port: int = 8002) -> int:
        """Established TCP connections to `port` in the container from another host (the
        proxy): read from /proc/net/tcp, the image has no ss."""
        table = self.exec(container, "cat", "/proc/net/tcp", "/proc/net/tcp6", check=False)
        count = 0
        for line in table.splitlines()[1:]:
            parts = line.split()
            if len(parts) < 4 or ":" not in parts[1]:
                continue
            local_port = int(parts[1].rsplit(":", 1)[1], 16)
            remote = parts[2].rsplit(":", 1)[0]
            if (
                local_port == port
                and parts[3] == "01"
                and remote not in {"0100007F", "00000000000000000000000001000000"}
            ):
                count += 1
        return count


# --- the client (through the proxy only) -------------------------------------------------------


class Client(JsonServer):
    """The public API through the proxy on 127.0.0.1:port, one connection per request:
    `request(...)` is the Answer, `ok(...)` the body of a 200 or 201 (else ApiError)."""

    text_limit = 200

    def __init__(self, port: int, host: str = "127.0.0.1", timeout: float = 10.0) -> None:
        self.port = port
        self.host = host
        self.request_timeout = timeout

    def request_headers(self) -> dict[str, str]:
        return {"Host": f"127.0.0.1:{self.port}", "Accept": "application/json"}

    def ok(self, method: str, path: str, body: Any = None, *, token: str | None = None) -> Any:
        return self.request(method, path, body, token=token).ok()

    def signup(self, prefix: str = "ct") -> Account:
        username = f"{prefix}{secrets.token_hex(4)}"
        password = secrets.token_urlsafe(16)
        credentials = {"username": username, "password": password}
        self.ok("POST", "/api/auth/register", credentials)
        token = self.ok("POST", "/api/auth/token", credentials)["token"]
        return Account(username, password, token)

    def ws_url(self, path: str, token: str | None = None) -> str:
        return f"ws://{self.host}:{self.port}{path}" + (f"?token={token}" if token else "")


@dataclass
class Account:
    username: str
    password: str
    token: str


# --- a player that sees only what the API shows -----------------------------------------------


def _neighbours(x: int, y: int, width: int, height: int) -> Iterator[tuple[int, int]]:
    for ny in range(max(0, y - 1), min(height, y + 2)):
        for nx in range(max(0, x - 1), min(width, x + 2)):
            if (nx, ny) != (x, y):
                yield nx, ny


def next_reveal(board: list[str], rng: random.Random) -> tuple[int, int]:
    """A closed cell to reveal: one the two counting rules prove safe, else a guess among the
    closed cells not proven mines."""
    height, width = len(board), len(board[0])
    mines: set[tuple[int, int]] = set()
    while True:
        safe: set[tuple[int, int]] = set()
        grew = False
        for y, row in enumerate(board):
            for x, v in enumerate(row):
                if not v.isdigit():
                    continue
                closed = [c for c in _neighbours(x, y, width, height) if board[c[1]][c[0]] == "#"]
                unknown = [c for c in closed if c not in mines]
                missing = int(v) - (len(closed) - len(unknown))
                if unknown and missing == 0:
                    safe.update(unknown)
                elif unknown and missing == len(unknown):
                    mines.update(unknown)
                    grew = True
        if safe:
            return min(safe, key=lambda c: (c[1], c[0]))
        if not grew:
            break
    closed = [
        (x, y)
        for y, row in enumerate(board)
        for x, v in enumerate(row)
        if v == "#" and (x, y) not in mines
    ]
    return rng.choice(closed)


@dataclass
class Played:
    game: dict[str, Any]
    acked: list[int]  # the seq of every move the server answered 200
    move_s: list[float]


def play(
    client: Client,
    account: Account,
    game: dict[str, Any],
    *,
    rng: random.Random,
    pause_s: float = 0.0,
    max_moves: int = 500,
) -> Played:
    """Reveal until the game ends, over REST."""
    acked: list[int] = []
    times: list[float] = []
    board = game.get("board") or ["#" * game["width"]] * game["height"]
    first = True
    for _ in range(max_moves):
        if game["state"] in {"won", "lost"}:
            break
        x, y = (game["width"] // 2, game["height"] // 2) if first else next_reveal(board, rng)
        first = False
        answer = client.request(
            "POST",
            f"/api/games/{game['id']}/reveal",
            {"x": x, "y": y, "client_move_id": secrets.token_hex(8)},
            token=account.token,
        )
        body = answer.ok(expect=(200,))
        acked.append(body["seq"])
        times.append(answer.seconds)
        game = body["game"]
        board = game["board"]
        if pause_s:
            time.sleep(pause_s)
    return Played(game, acked, times)
