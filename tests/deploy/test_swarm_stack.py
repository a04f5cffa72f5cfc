"""docker-compose.yml on a one-node Docker Swarm (make swarm-test; docs/DEPLOYMENT.md, "Swarm"):
`docker stack deploy` of the compose file with docker-compose.swarm.yml over it, SECRET_KEY and
the database password as Swarm secrets, two replicas of `web` and `live`, and a rolling update
of `web` while a client plays without a pause, counting every failed request.

Slow (minutes), so `make test` skips it unless SWARM_TEST=1 (the make target sets it); skipped
with the reason when no Docker engine can run. Nothing is published on the host: the clients
run in containers on the stack's own (attachable) network. A Swarm this test made is left
again at the end; one that was already active is kept."""

from __future__ import annotations

import json
import secrets
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from deploy.compose_stack import (
    PROJECT_IMAGE,
    ROOT,
    Engine,
    base_images,
    build_project_image,
    progress,
    run,
    source_tree,
)
from tests.support.docker_stacks import docker_engine, only_when_asked, write_figures

pytestmark = only_when_asked(
    "SWARM_TEST",
    reason="slow (builds images, deploys a Swarm stack): `make swarm-test` runs it (SWARM_TEST=1)",
)

STACK = "demineurst"
SECRETS = ("demineur_secret_key", "demineur_db_password")
FIGURES: dict[str, Any] = {}

# The client: stdlib only, run with the project's image on the stack's network. It signs up,
# then plays (new game, reveals of closed cells, a leaderboard read now and then) until
# /tmp/stop exists; every answer that is not the expected status is a failure. Last line:
# SUMMARY {json}.
CLIENT = r"""
import json, os, random, secrets, sys, time, urllib.error, urllib.request
BASE = "http://proxy:8000"
def call(method, path, body=None, token=None):
    headers = {"Host": "localhost", "Content-Type": "application/json"}
    if token:
        headers["Authorization"] = "Token " + token
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(BASE + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()[:300].decode(errors="replace")
    except OSError as exc:
        return 0, repr(exc)
name, password = "sw" + secrets.token_hex(4), secrets.token_urlsafe(16)
deadline = time.time() + 120
while True:
    status, body = call("POST", "/api/auth/register", {"username": name, "password": password})
    if status == 201:
        break
    if time.time() > deadline:
        sys.exit("no sign-up within 120 s: %s %s" % (status, body))
    time.sleep(1)
token = call("POST", "/api/auth/token", {"username": name, "password": password})[1]["token"]
print("READY", flush=True)
rng = random.Random(1)
sent, failures, game = 0, [], None
while not os.path.exists("/tmp/stop"):
    if game is None or game["state"] in ("won", "lost"):
        expected, (status, body) = 201, call("POST", "/api/games", {"level": "beginner"}, token)
    elif sent % 10 == 9:
        expected, (status, body) = 200, call("GET", "/api/leaderboards/beginner/times")
    else:
        board = game["board"] or ["#" * game["width"]] * game["height"]
        closed = [(x, y) for y, row in enumerate(board) for x, v in enumerate(row) if v == "#"]
        x, y = rng.choice(closed)
        expected, (status, body) = 200, call("POST", "/api/games/%s/reveal" % game["id"], {"x": x, "y": y}, token)
    sent += 1
    if status != expected:
        failures.append("%s %s" % (status, str(body)[:200]))
    elif expected == 201:
        game = body
    elif isinstance(body, dict) and "game" in body:
        game = body["game"]
    time.sleep(0.02)
print("SUMMARY " + json.dumps({"sent": sent, "failed": len(failures), "failures": failures[:10]}), flush=True)
"""


@dataclass
class Swarm:
    engine: Engine
    src: Path
    made_swarm: bool = False
    files: list[str] = field(default_factory=list)

    def d(self, *args: str, timeout: float = 120, check: bool = True) -> str:
        return self.engine.d(*args, timeout=timeout, check=check).stdout

    def tasks(self, service: str) -> list[dict[str, str]]:
        out = self.d("service", "ps", f"{STACK}_{service}", "--no-trunc", "--format", "{{json .}}")
        return [json.loads(line) for line in out.splitlines() if line.strip()]

    def containers(self, service: str) -> list[str]:
        out = self.d(
            "ps", "-q", "--filter", f"label=com.docker.swarm.service.name={STACK}_{service}"
        )
        return out.split()

    def healthy(self, service: str) -> list[str]:
        return [
            c
            for c in self.containers(service)
            if self.d("inspect", "-f", "{{.State.Health.Status}}", c, check=False).strip()
            == "healthy"
        ]

    def wait(self, what: str, predicate: Any, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while not predicate():
            if time.monotonic() > deadline:
                services = self.d("service", "ls", check=False)
                raise AssertionError(f"{what}: not within {timeout:.0f} s\n{services}")
            time.sleep(1)
        progress(what)


def remove_stack(engine: Engine) -> None:
    engine.d("stack", "rm", STACK, timeout=120, check=False)
    deadline = time.monotonic() + 120
    label = f"label=com.docker.stack.namespace={STACK}"
    while engine.d("ps", "-aq", "--filter", label, timeout=30).stdout.split():
        if time.monotonic() > deadline:
            break
        time.sleep(1)
    for network in engine.d("network", "ls", "-q", "--filter", label, timeout=30).stdout.split():
        engine.d("network", "rm", network, timeout=60, check=False)
    for volume in engine.d("volume", "ls", "-q", "--filter", label, timeout=30).stdout.split():
        engine.d("volume", "rm", volume, timeout=60, check=False)
    for name in SECRETS:
        engine.d("secret", "rm", name, timeout=30, check=False)


@pytest.fixture(scope="module")
def swarm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Swarm]:
    engine = docker_engine()
    started = time.monotonic()
    src = source_tree(tmp_path_factory.mktemp("swarm") / "src")
    bases = base_images(engine, FIGURES)
    build_project_image(engine, src, bases, FIGURES)
    state = engine.d("info", "--format", "{{.Swarm.LocalNodeState}}", timeout=30).stdout.strip()
    made = state != "active"
    if made:
        progress("docker swarm init --advertise-addr 127.0.0.1")
        engine.d("swarm", "init", "--advertise-addr", "127.0.0.1", timeout=120)
    remove_stack(engine)
    # The env file the services read: the example's settings without the two secrets.
    example = (src / ".env.example").read_text()
    kept = [
        line
        for line in example.splitlines()
        if not line.startswith(("SECRET_KEY=", "POSTGRES_PASSWORD="))
    ]
    kept += [
        "ALLOWED_HOSTS=localhost,127.0.0.1",
        "THROTTLE_AUTH=600/min",
        "THROTTLE_AUTH_USERNAME=600/min",
        "ACCOUNT_SIGNUPS_PER_ADDRESS_DAY=1000",
    ]
    (src / ".env").write_text("\n".join(kept) + "\n")
    secret_values = {
        "demineur_secret_key": secrets.token_urlsafe(48),
        "demineur_db_password": secrets.token_urlsafe(18),
    }
    for name, value in secret_values.items():
        run([engine.docker, "secret", "create", name, "-"], timeout=30, input=value)
    # The base images under their real names, stand-ins or not (deploy/images.py).
    files = ["-f", "docker-compose.yml", "-f", "docker-compose.swarm.yml"]
    swarm = Swarm(engine, src, made, files)
    swarm.secret_values = secret_values  # type: ignore[attr-defined]
    try:
        # The base file's required ${...}: placeholders (the services read the secrets).
        placeholders = {"SECRET_KEY": "in-a-secret", "POSTGRES_PASSWORD": "in-a-secret"}
        merged = run([*engine.compose, *files, "config"], timeout=120, cwd=src, env=placeholders)
        stack_file = run(
            [sys.executable, str(ROOT / "deploy" / "swarm_file.py")],
            timeout=60,
            input=merged.stdout,
        )
        (src / "stack.yml").write_text(stack_file.stdout)
        progress(f"docker-compose {' '.join(files)} config | deploy/swarm_file.py > stack.yml")
        progress(f"docker stack deploy -c stack.yml {STACK}")
        deployed = time.monotonic()
        run([engine.docker, "stack", "deploy", "-c", "stack.yml", STACK], timeout=300, cwd=src)
        swarm.wait(
            "migrate completed",
            lambda: any(t["CurrentState"].startswith("Complete") for t in swarm.tasks("migrate")),
            300,
        )
        for service, count in (("db", 1), ("redis", 1), ("web", 2), ("live", 2), ("proxy", 1)):
            swarm.wait(
                f"{service}: {count} healthy",
                lambda s=service, n=count: len(swarm.healthy(s)) == n,  # type: ignore[misc]
                300,
            )
        FIGURES["swarm_time_to_healthy_s"] = round(time.monotonic() - deployed, 1)
        yield swarm
    finally:
        progress(f"docker stack rm {STACK}")
        remove_stack(engine)
        if made:
            engine.d("swarm", "leave", "--force", timeout=120, check=False)
        FIGURES["swarm_total_s"] = round(time.monotonic() - started, 1)
        write_figures(FIGURES, "SWARM_TEST_FIGURES", ".run/swarm-test.json")


def start_client(swarm: Swarm) -> str:
    name = f"{STACK}-client-{secrets.token_hex(3)}"
    swarm.d(
        "run", "-d", "--name", name, "--network", f"{STACK}_default", "--entrypoint", "python",
        PROJECT_IMAGE, "-c", CLIENT,
    )  # fmt: skip
    deadline = time.monotonic() + 150
    while "READY" not in swarm.d("logs", name, check=False):
        assert time.monotonic() < deadline, swarm.d("logs", name, check=False)
        time.sleep(1)
    return name


def stop_client(swarm: Swarm, name: str) -> dict[str, Any]:
    swarm.d("exec", name, "touch", "/tmp/stop")
    swarm.d("wait", name, timeout=60)
    logs = swarm.d("logs", name)
    swarm.d("rm", "-f", name, check=False)
    line = [line for line in logs.splitlines() if line.startswith("SUMMARY ")]
    assert line, logs[-2000:]
    summary: dict[str, Any] = json.loads(line[-1].removeprefix("SUMMARY "))
    return summary


def test_the_stack_runs_two_replicas_and_serves_a_game(swarm: Swarm):
    for service in ("web", "live"):
        running = [t for t in swarm.tasks(service) if t["CurrentState"].startswith("Running")]
        assert len(running) == 2, running
    client = start_client(swarm)
    time.sleep(3)
    summary = stop_client(swarm, client)
    assert summary["sent"] > 0 and summary["failed"] == 0, summary


def test_the_secrets_are_files_and_never_in_the_environment(swarm: Swarm):
    values: dict[str, str] = swarm.secret_values  # type: ignore[attr-defined]
    for service in ("web", "live", "scheduler", "db"):
        container = swarm.containers(service)[0]
        env = swarm.d("inspect", "-f", "{{json .Config.Env}}", container)
        for value in values.values():
            assert value not in env, f"a secret is in {service}'s environment"
    web = swarm.containers("web")[0]
    assert (
        swarm.d("exec", web, "cat", "/run/secrets/demineur_secret_key")
        == values["demineur_secret_key"]
    )
    # The running settings took both from the files (the site answered the client above with
    # the password from the secret); the key matches the file's.
    code = (
        "import django; django.setup(); from django.conf import settings as s; "
        "print(s.SECRET_KEY == open('/run/secrets/demineur_secret_key').read(), "
        "s.DATABASES['default']['PASSWORD'] == open('/run/secrets/demineur_db_password').read())"
    )
    out = swarm.d(
        "exec", "-e", "DJANGO_SETTINGS_MODULE=demineur_site.settings", web, "python", "-c", code
    )
    assert out.split() == ["True", "True"], out


def test_a_rolling_update_of_web_fails_no_request(swarm: Swarm):
    before = {t["ID"] for t in swarm.tasks("web") if t["CurrentState"].startswith("Running")}
    client = start_client(swarm)
    progress("docker service update --force (rolling update of web) while a client plays")
    started = time.monotonic()
    swarm.d(
        "service", "update", "--force", "--detach=false", "--quiet", f"{STACK}_web", timeout=600
    )
    update_s = time.monotonic() - started
    time.sleep(3)
    summary = stop_client(swarm, client)
    after = {t["ID"] for t in swarm.tasks("web") if t["CurrentState"].startswith("Running")}
    assert len(after) == 2 and not (after & before), (before, after)
    FIGURES["rolling_update"] = {"update_s": round(update_s, 1), **summary}
    progress(
        f"rolling update in {update_s:.1f} s: {summary['sent']} requests, {summary['failed']} failed"
    )
    assert summary["sent"] > 0
    assert summary["failed"] == 0, summary["failures"]
