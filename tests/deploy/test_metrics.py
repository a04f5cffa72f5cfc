"""Metrics and logs in one process (demineur_site.metrics, demineur_site.logs): the route label
is the URL's name, the endpoint refuses what came through a proxy, races in progress are read
from the database at scrape time, a Redis that refuses is counted, and the JSON lines carry the
request id and nothing the redaction has not seen. The same on the production layout, with
several workers and the proxy in front: tests/deploy/test_metrics_stack.py."""

from __future__ import annotations

import io
import json
import logging
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any
from wsgiref.util import setup_testing_defaults

import pytest
import yaml
from django.test import Client, override_settings
from prometheus_client.parser import text_string_to_metric_families

from demineur_site import logs, metrics
from demineur_site.log_redaction import RedactSecretsFilter
from tests.support.interpreter import run_fresh


def value(name: str, **labels: str) -> float:
    total = 0.0
    for family in text_string_to_metric_families(metrics.exposition().decode()):
        for sample in family.samples:
            if sample.name == name and all(sample.labels.get(k) == v for k, v in labels.items()):
                total += sample.value
    return total


def wsgi_get(path: str, **environ: str) -> tuple[str, dict[str, str], bytes]:
    from demineur_site.wsgi import application

    env: dict[str, Any] = {"PATH_INFO": path, "REQUEST_METHOD": "GET", **environ}
    setup_testing_defaults(env)
    answer: dict[str, Any] = {}

    def start_response(status: str, headers: list[tuple[str, str]]) -> None:
        answer["status"], answer["headers"] = status, dict(headers)

    body = b"".join(application(env, start_response))
    return answer["status"], answer["headers"], body


@pytest.mark.django_db
def test_the_latency_histogram_is_labelled_by_route_name_never_by_path(alice_api):
    labels = {"route": "api-game", "method": "GET"}
    before = value("demineur_http_request_duration_seconds_count", **labels)
    missing = "00000000-0000-4000-8000-00000000abcd"
    assert alice_api.get(f"/api/games/{missing}").status_code == 404
    assert value("demineur_http_request_duration_seconds_count", **labels) == before + 1
    assert value("demineur_http_requests_total", status="404", **labels) >= 1
    unmatched = value("demineur_http_requests_total", route="unmatched")
    Client().get("/no-such-page-4e1f")
    assert value("demineur_http_requests_total", route="unmatched") == unmatched + 1
    text = metrics.exposition().decode()
    assert missing not in text and "no-such-page-4e1f" not in text


@pytest.mark.django_db
def test_the_endpoint_answers_a_scraper_and_refuses_a_proxied_request():
    status, headers, body = wsgi_get("/metrics", HTTP_HOST="10.0.0.7:8001")
    # A scraper names no ALLOWED_HOSTS host: answered in front of Django.
    assert status == "200 OK" and headers["Content-Type"].startswith("text/plain")
    assert b"# TYPE demineur_moves_total counter" in body
    status, _, body = wsgi_get("/metrics", HTTP_X_FORWARDED_FOR="203.0.113.9")
    assert status.startswith("404") and json.loads(body)["error"]["code"] == "not_found"
    with override_settings(METRICS=False):
        status, _, body = wsgi_get("/metrics")
    assert status.startswith("404") and b"demineur_" not in body


@pytest.mark.django_db
def test_a_race_waiting_for_racers_is_counted_at_scrape_time(alice_api):
    before = value("demineur_in_progress", kind="races", state="open")
    assert value("demineur_in_progress", kind="races", state="running") >= 0
    assert alice_api.post("/api/races", {"level": "beginner"}, format="json").status_code == 201
    assert value("demineur_in_progress", kind="races", state="open") == before + 1


@pytest.mark.django_db
def test_a_redis_that_refuses_is_counted_and_the_cache_falls_back():
    from demineur_site.cache import RedisCacheWithFallback

    cache = RedisCacheWithFallback("redis://127.0.0.1:1/0", {})  # nothing listens on port 1
    before = value("demineur_redis_errors_total", where="cache")
    cache.set("metrics-test", 1)
    assert cache.get("metrics-test") == 1  # this process's fallback
    assert value("demineur_redis_errors_total", where="cache") == before + 1


def json_logger(stream: io.StringIO) -> logging.Logger:
    handler = logging.StreamHandler(stream)
    handler.addFilter(RedactSecretsFilter())
    handler.addFilter(logs.RequestIdFilter())
    handler.setFormatter(logs.JsonLines())
    logger = logging.getLogger("tests.metrics.json")
    logger.handlers[:] = [handler]
    logger.propagate = False
    logger.setLevel(logging.INFO)
    return logger


def test_json_lines_carry_the_request_id_and_only_redacted_text():
    stream = io.StringIO()
    logger = json_logger(stream)
    token = logs.REQUEST_ID.set("req-0123456789")
    try:
        try:
            raise ValueError("password=hunter2")
        except ValueError:
            logger.exception("failed with ?token=abcdefgh1234", extra={"request": "?token=leak"})
    finally:
        logs.REQUEST_ID.reset(token)
    logger.warning("outside a request")
    first, second = (json.loads(line) for line in stream.getvalue().splitlines())
    assert first["request_id"] == "req-0123456789" and first["level"] == "ERROR"
    assert first["message"] == "failed with ?token=[REDACTED]"
    assert "hunter2" not in first["exc_info"] and "ValueError" in first["exc_info"]
    assert "request" not in first and "leak" not in stream.getvalue()
    assert second["request_id"] is None and second["logger"] == "tests.metrics.json"


def test_gunicorns_access_line_takes_the_id_from_the_answer():
    stream = io.StringIO()
    logger = json_logger(stream)
    logger.info(
        '%(h)s "%(r)s" %(s)s',
        {
            "h": "127.0.0.1",
            "r": "GET / HTTP/1.1",
            "s": "200",
            "{x-request-id}o": "abcdef0123456789",
        },
    )
    record = json.loads(stream.getvalue())
    assert record["request_id"] == "abcdef0123456789"
    assert record["message"] == '127.0.0.1 "GET / HTTP/1.1" 200'


@pytest.mark.django_db
def test_every_answer_names_its_request_id_and_a_client_cannot_choose_it():
    first = Client().get("/healthz", HTTP_X_REQUEST_ID="chosen-by-me-0001")
    second = Client().get("/healthz")
    assert first["X-Request-Id"] != "chosen-by-me-0001"  # no trusted proxy in front
    assert len({first["X-Request-Id"], second["X-Request-Id"]}) == 2
    with override_settings(TRUSTED_PROXIES=1):
        assert logs.request_id_from("proxy-given-0001") == "proxy-given-0001"
        assert logs.request_id_from("bad id\n{json}") != "bad id\n{json}"
        assert logs.request_id_from("x" * 65) != "x" * 65


def test_log_format_is_checked_at_start_up():
    result = subprocess.run(
        [sys.executable, "-c", "import demineur_site.settings"],
        env={"LOG_FORMAT": "yaml", "DEBUG": "1", "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode != 0 and "LOG_FORMAT" in result.stderr


ROOT = Path(__file__).resolve().parents[2]


def test_the_monitoring_profile_scrapes_every_replica_on_its_own_port():
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services = compose["services"]
    for name in ("prometheus", "grafana"):
        assert services[name]["profiles"] == ["monitoring"], name
        assert services[name]["healthcheck"]["test"], name
    assert "ports" not in services["prometheus"]  # reached by Grafana on the stack's network
    for name in ("web", "live"):
        assert services[name]["environment"]["PROMETHEUS_MULTIPROC_DIR"]
    config = yaml.safe_load((ROOT / "deploy" / "monitoring" / "prometheus.yml").read_text())
    jobs = {job["job_name"]: job for job in config["scrape_configs"]}
    assert jobs["web"]["dns_sd_configs"] == [
        {"names": ["web"], "type": "A", "port": 8001, "refresh_interval": "15s"}
    ]
    assert jobs["live"]["dns_sd_configs"][0]["port"] == 8002
    assert all(job["metrics_path"] == metrics.PATH for job in jobs.values())
    mounts = " ".join(services["prometheus"]["volumes"] + services["grafana"]["volumes"])
    assert "./deploy/monitoring/prometheus.yml:" in mounts
    assert "./deploy/monitoring/grafana/dashboards:" in mounts


def test_the_dashboard_asks_only_for_metrics_the_servers_export():
    import re

    dashboard = json.loads(
        (ROOT / "deploy" / "monitoring" / "grafana" / "dashboards" / "demineur.json").read_text()
    )
    exported = {
        "demineur_http_requests_total",
        "demineur_http_request_duration_seconds_bucket",
        "demineur_moves_total",
        "demineur_sockets_open",
        "demineur_events_published_total",
        "demineur_events_dropped_total",
        "demineur_in_progress",
        "demineur_database_unavailable_total",
        "demineur_redis_errors_total",
    }
    asked = set()
    for panel in dashboard["panels"]:
        assert panel["datasource"]["uid"] == "prometheus"
        for target in panel["targets"]:
            asked |= set(re.findall(r"demineur_[a-z_]+", target["expr"]))
    assert asked == exported
    names = {m.name for m in metrics.REGISTRY.collect()}
    for name in exported - {"demineur_in_progress"}:
        base = re.sub(r"_(total|bucket)$", "", name)
        assert base in names, name


@pytest.mark.skipif(shutil.which("docker-compose") is None, reason="docker-compose not installed")
def test_docker_compose_accepts_the_monitoring_profile(tmp_path: Path):
    for name in ("docker-compose.yml", "Dockerfile"):
        shutil.copy(ROOT / name, tmp_path / name)
    shutil.copy(ROOT / ".env.example", tmp_path / ".env")
    result = subprocess.run(
        ["docker-compose", "--profile", "monitoring", "config", "--services"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert {"prometheus", "grafana", "web", "live"} <= set(result.stdout.split())
    merged = yaml.safe_load(
        subprocess.run(
            ["docker-compose", "config"], cwd=tmp_path, capture_output=True, text=True, check=True
        ).stdout
    )
    # `up` without the profile leaves them out.
    assert merged["services"]["grafana"]["profiles"] == ["monitoring"]


def test_swarm_leaves_the_monitoring_pair_out_unless_asked():
    """Swarm has no compose profiles: deploy/swarm_file.py drops a profile's services."""
    from deploy.swarm_file import for_swarm

    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    plain = for_swarm(json.loads(json.dumps(compose)))["services"]
    assert "prometheus" not in plain and "grafana" not in plain and "web" in plain
    asked = for_swarm(json.loads(json.dumps(compose)), profiles=("monitoring",))["services"]
    assert {"prometheus", "grafana"} <= set(asked)
    assert "profiles" not in asked["grafana"]


def test_the_multiprocess_directory_is_made_when_missing(tmp_path: Path):
    """A container's /tmp/prometheus does not exist until the first worker makes it (the
    unlabelled counters open their files as the module is imported; compose-test saw it)."""
    counts = tmp_path / "not" / "yet"
    code = (
        "import django; django.setup(); import demineur_site.wsgi;"
        "from demineur_site import metrics; print(len(metrics.exposition()))"
    )
    result = run_fresh(code, tmp_path, PROMETHEUS_MULTIPROC_DIR=str(counts))
    assert result.returncode == 0, result.stderr[-2000:]
    assert any(name.startswith("counter_") for name in os.listdir(counts))
    assert int(result.stdout.split()[-1]) > 0
