"""The base images docker-compose.yml and the Dockerfile name, on this engine (`make images`;
docs/deploy/SERVING.md, "Where Docker Hub is out of reach"):

    python3 deploy/images.py          # or: make images

For each of python:3.12-slim, postgres:15, redis:7, caddy:2 and prom/prometheus:v2.55.1: kept
when the engine has it, else pulled; where Docker Hub cannot be reached, a stand-in is built from
Debian's packages (deploy/standin/Dockerfile on a root made by `debootstrap --variant=minbase`
and `docker import`) and tagged with the real name, so that the compose file and the Dockerfile
run unchanged: `docker compose up -d --build` or Debian's `docker-compose up -d --build`.
A stand-in keeps its own name too (demineur-standin/...): `is_standin` tells them apart.

When this machine's pip trusts a CA of its own (a TLS-inspecting proxy; pip's `cert` setting or
PIP_CA_BUNDLE), that bundle is copied to deploy/build-ca/ (ignored by git), where the image's
builder stage gives it to pip; it is not in the runtime image.

Standard library only: it runs with the system's python3, before any virtualenv exists.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REAL_IMAGES = {
    "python": "python:3.12-slim",
    "db": "postgres:15",
    "redis": "redis:7",
    "proxy": "caddy:2",
    # The `monitoring` profile's Prometheus (make compose-test scrapes the stack with it).
    "prometheus": "prom/prometheus:v2.55.1",
}
STANDIN_IMAGES = {
    "python": "demineur-standin/python:3.12-slim",
    "db": "demineur-standin/postgres:15",
    "redis": "demineur-standin/redis:7",
    "proxy": "demineur-standin/caddy:2",
    "prometheus": "demineur-standin/prometheus:2",
}
STANDIN_TARGETS = {
    "python": "python",
    "db": "postgres",
    "redis": "redis",
    "proxy": "caddy",
    "prometheus": "prometheus",
}
# The Debian roots of the stand-ins: bookworm (PostgreSQL 15, Redis 7, Caddy), trixie (Python
# 3.13: Django 6 needs 3.12 or later).
DEBIAN_BASES = {
    "bookworm": "demineur-standin/debian:bookworm",
    "trixie": "demineur-standin/debian:trixie",
}
DEBIAN_MIRROR = os.environ.get("DEBIAN_MIRROR", "http://deb.debian.org/debian")
PULL_TIMEOUT = 60.0
BUILD_CA = Path("deploy") / "build-ca" / "pip-ca.pem"
_T0 = time.monotonic()


def progress(message: str) -> None:
    """One line of progress, with the seconds since the run began."""
    print(f"[{time.monotonic() - _T0:7.1f}s] {message}", file=sys.stderr, flush=True)


def run(
    argv: list[str],
    *,
    timeout: float,
    check: bool = True,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
    input: str | None = None,
) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        argv,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        cwd=cwd,
        env={**os.environ, **(env or {})},
        input=input,
    )
    if check and done.returncode != 0:
        raise RuntimeError(
            f"{' '.join(argv)} failed ({done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        )
    return done


def image_id(docker: str, image: str) -> str | None:
    found = run([docker, "image", "inspect", "-f", "{{.Id}}", image], timeout=30, check=False)
    return found.stdout.strip() if found.returncode == 0 else None


def is_standin(docker: str, role: str) -> bool:
    """Whether the engine's image of `role` under its real name is the Debian stand-in."""
    real = image_id(docker, REAL_IMAGES[role])
    return real is not None and real == image_id(docker, STANDIN_IMAGES[role])


def pulled(docker: str, image: str) -> bool:
    try:
        done = run([docker, "pull", "-q", image], timeout=PULL_TIMEOUT, check=False)
    except subprocess.TimeoutExpired:
        return False
    return done.returncode == 0


def build(
    docker: str,
    context: Path,
    tag: str,
    *,
    target: str | None = None,
    args: dict[str, str] | None = None,
    timeout: float = 900,
) -> None:
    """`docker build`: BuildKit or the legacy builder, whichever the CLI has (neither
    Dockerfile needs BuildKit)."""
    argv = [docker, "build", "-q", "-t", tag]
    if target:
        argv += ["--target", target]
    for name, value in (args or {}).items():
        argv += ["--build-arg", f"{name}={value}"]
    run([*argv, str(context)], timeout=timeout)


def debian_base(docker: str, suite: str) -> None:
    image = DEBIAN_BASES[suite]
    if image_id(docker, image):
        return
    if shutil.which("debootstrap") is None:
        raise RuntimeError("stand-in images need debootstrap (apt-get install debootstrap)")
    if os.geteuid() != 0:
        raise RuntimeError("debootstrap needs root: run `make images` as root (or with sudo)")
    progress(f"debootstrap --variant=minbase {suite} (a stand-in base)")
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="demineur-root-") as root:
        run(["debootstrap", "--variant=minbase", suite, root, DEBIAN_MIRROR], timeout=900)
        tar = subprocess.Popen(["tar", "-C", root, "-c", "."], stdout=subprocess.PIPE)
        subprocess.run(
            [docker, "import", "-", image],
            stdin=tar.stdout,
            check=True,
            timeout=300,
            capture_output=True,
        )
        tar.wait(timeout=60)
    progress(f"{image} imported in {time.monotonic() - started:.0f} s")


def base_images(docker: str, *, pull: bool = True) -> dict[str, str]:
    """Every base image under its real name: kept, pulled, or (pull=False, or the pull failed)
    its stand-in built and tagged with that name. Returns role -> "real" or "stand-in"."""
    kinds: dict[str, str] = {}
    for role, real in REAL_IMAGES.items():
        if image_id(docker, real) is None and not (pull and pulled(docker, real)):
            standin = STANDIN_IMAGES[role]
            if image_id(docker, standin) is None:
                debian_base(docker, "trixie" if role == "python" else "bookworm")
                progress(f"{real} cannot be pulled: building its stand-in {standin}")
                started = time.monotonic()
                build(docker, ROOT / "deploy" / "standin", standin, target=STANDIN_TARGETS[role])
                progress(f"{standin} built in {time.monotonic() - started:.0f} s")
            run([docker, "tag", standin, real], timeout=30)
        kinds[role] = "stand-in" if is_standin(docker, role) else "real"
    return kinds


def pip_ca_bundle() -> Path | None:
    """The CA bundle this machine's pip is configured with (PIP_CA_BUNDLE, else pip's `cert`
    setting), or None when pip uses its own CAs."""
    named = os.environ.get("PIP_CA_BUNDLE")
    if named:
        return Path(named) if Path(named).is_file() else None
    pip = shutil.which("pip3") or shutil.which("pip")
    if pip is None:
        return None
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        listed = run([pip, "config", "list"], timeout=30, check=False).stdout
        found = re.search(r"\.cert='([^']+)'", listed)
        if found and Path(found.group(1)).is_file():
            return Path(found.group(1))
    return None


def place_build_ca(tree: Path) -> Path | None:
    """Copy pip's CA bundle (if any) to deploy/build-ca/ in `tree`, the image's build context."""
    bundle = pip_ca_bundle()
    if bundle is None:
        return None
    target = tree / BUILD_CA
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(bundle, target)
    return target


def main() -> int:
    docker = shutil.which("docker")
    if docker is None:
        print("no docker CLI: apt-get install docker.io (README.md, Production)", file=sys.stderr)
        return 2
    if run([docker, "info"], timeout=60, check=False).returncode != 0:
        print(
            "no Docker engine answers `docker info`: start it (systemctl start docker)",
            file=sys.stderr,
        )
        return 2
    started = time.monotonic()
    kinds = base_images(docker, pull=os.environ.get("STANDINS") != "1")
    ca = place_build_ca(ROOT)
    for role, kind in kinds.items():
        print(f"{REAL_IMAGES[role]:28} {kind}")
    if ca is not None:
        print(f"pip's CA bundle for the image build: {ca.relative_to(ROOT)}")
    print(
        f"base images ready in {time.monotonic() - started:.0f} s; next: docker compose up -d --build"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
