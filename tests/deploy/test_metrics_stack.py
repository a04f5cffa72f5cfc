"""Metrics and logs on the production layout (`make serve-prod`: Caddy in front of gunicorn
with two workers and two uvicorn processes; docs/DEPLOYMENT.md, "Metrics and logs").

* each app server answers GET /metrics on its own port, summing its workers' counts
  (PROMETHEUS_MULTIPROC_DIR); a game played over REST and over a socket moves the moves, the
  requests per route name, the latency histogram, the events published and the sockets open;
  a race waiting for racers is counted in progress;
* through the proxy /metrics is a 404 in the API's shape, however it is spelled, and an app
  server refuses a scrape that came through a proxy (X-Forwarded-For);
* with LOG_FORMAT=json every line the servers write while they answer is one JSON object, and
  the lines of a request carry the id the proxy gave it (X-Request-Id in the answer).
"""

from __future__ import annotations

import asyncio
import http.client
import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
import websockets
from prometheus_client.parser import text_string_to_metric_families

from tests.support.personas import PASSWORD
from tests.support.serve_prod import needs_proxy_and_services, serve_prod_layout

pytestmark = needs_proxy_and_services


@pytest.fixture(scope="module")
def layout(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    tmp = tmp_path_factory.mktemp("metrics")
    with serve_prod_layout(tmp, "metrics", LOG_FORMAT="json", LOG_LEVEL="INFO") as running:
        # Where each log stood once the servers were up: gunicorn's master and each worker's
        # boot line come before Django is loaded, in the server's own format; every line after
        # that must be JSON.
        running["log_starts"] = {
            log.name: log.stat().st_size for log in running["run"].glob("*.log")
        }
        yield running


def call(
    port: int,
    method: str,
    path: str,
    body: Any = None,
    token: str = "",
    headers: dict[str, str] | None = None,
) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=15)
    sent = {"Content-Type": "application/json", "Host": "127.0.0.1", **(headers or {})}
    if token:
        sent["Authorization"] = f"Token {token}"
    conn.request(method, path, body=None if body is None else json.dumps(body), headers=sent)
    response = conn.getresponse()
    answer = (response.status, {k.lower(): v for k, v in response.getheaders()}, response.read())
    conn.close()
    return answer


def api(port: int, method: str, path: str, body: Any = None, token: str = "") -> Any:
    status, _, data = call(port, method, path, body, token)
    assert status in (200, 201), (method, path, status, data[:300])
    return json.loads(data)


def scrape(port: int) -> str:
    status, headers, data = call(port, "GET", "/metrics")
    assert status == 200, data[:300]
    assert headers["content-type"].startswith("text/plain")
    return data.decode()


def value(text: str, name: str, **labels: str) -> float:
    """The sum of the samples called `name` whose labels include `labels` (0 when none)."""
    total = 0.0
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name and all(sample.labels.get(k) == v for k, v in labels.items()):
                total += sample.value
    return total


def live_total(layout: dict[str, Any], name: str, **labels: str) -> float:
    return sum(value(scrape(p), name, **labels) for p in layout["layout"]["live_ports"])


def signed_up(port: int, name: str) -> str:
    api(port, "POST", "/api/auth/register", {"username": name, "password": PASSWORD})
    return str(
        api(port, "POST", "/api/auth/token", {"username": name, "password": PASSWORD})["token"]
    )


def test_playing_over_rest_and_a_socket_moves_the_counters(layout):
    port, web = layout["port"], layout["layout"]["web_port"]
    token = signed_up(port, "counted")
    game = api(port, "POST", "/api/games", {"level": "beginner"}, token)
    before = scrape(web)
    assert value(before, "demineur_moves_total") == 0  # a fresh layout, fresh counts

    result = api(port, "POST", f"/api/games/{game['id']}/reveal", {"x": 4, "y": 4}, token)
    opened = {(c["x"], c["y"]) for c in result["changes"]}
    hidden = [(x, y) for y in range(9) for x in range(9) if (x, y) not in opened]
    assert len(hidden) >= 5, "the first reveal opened nearly the whole board"
    for x, y in hidden[:2]:
        api(port, "POST", f"/api/games/{game['id']}/flag", {"x": x, "y": y, "flagged": True}, token)

    # Every request went to one of gunicorn's two workers; any worker's scrape sums both.
    after = scrape(web)
    assert value(after, "demineur_moves_total", action="reveal") == 1
    assert value(after, "demineur_moves_total", action="flag") == 2
    assert value(after, "demineur_events_published_total") >= 3
    flags = {"route": "api-flag", "method": "POST"}
    assert value(after, "demineur_http_requests_total", status="200", **flags) == 2
    assert value(after, "demineur_http_request_duration_seconds_count", **flags) == 2
    assert value(after, "demineur_http_request_duration_seconds_bucket", le="+Inf", **flags) == 2
    assert value(after, "demineur_http_request_duration_seconds_sum", **flags) > 0
    assert value(after, "demineur_http_requests_total", route="api-reveal", status="200") == 1
    # Bounded labels: the route is the URL's name, never the path with the game's id in it.
    assert game["id"] not in after

    async def over_a_socket() -> None:
        ws = await websockets.connect(
            f"ws://127.0.0.1:{port}/ws/games/{game['id']}",
            additional_headers={"Authorization": f"Token {token}"},
        )
        try:
            assert json.loads(await asyncio.wait_for(ws.recv(), 10))["type"] == "state"
            assert await asyncio.to_thread(live_total, layout, "demineur_sockets_open") == 1
            assert (
                await asyncio.to_thread(
                    live_total, layout, "demineur_sockets_open", consumer="GameConsumer"
                )
                == 1
            )
            for n, (x, y) in enumerate(hidden[2:5]):
                await ws.send(
                    json.dumps(
                        {
                            "action": "flag",
                            "x": x,
                            "y": y,
                            "flagged": True,
                            "client_move_id": f"m{n}",
                        }
                    )
                )
                while True:
                    frame = json.loads(await asyncio.wait_for(ws.recv(), 10))
                    assert frame["type"] != "error", frame
                    if frame.get("client_move_id") == f"m{n}":
                        break
        finally:
            await ws.close()

    asyncio.run(over_a_socket())
    assert live_total(layout, "demineur_moves_total", action="flag") == 3
    assert live_total(layout, "demineur_events_published_total") >= 3
    # The socket's consumer has returned: the live gauge is back to 0.
    for _ in range(50):
        if live_total(layout, "demineur_sockets_open") == 0:
            break
        time.sleep(0.1)
    assert live_total(layout, "demineur_sockets_open") == 0


def test_a_race_waiting_for_racers_is_in_progress(layout):
    port, web = layout["port"], layout["layout"]["web_port"]
    before = value(scrape(web), "demineur_in_progress", kind="races", state="open")
    token = signed_up(port, "racehost")
    api(port, "POST", "/api/races", {"level": "beginner"}, token)
    text = scrape(web)
    assert value(text, "demineur_in_progress", kind="races", state="open") == before + 1
    # Read from the database once per scrape: every live process sees the same count.
    for live in layout["layout"]["live_ports"]:
        assert value(scrape(live), "demineur_in_progress", kind="races", state="open") == before + 1


@pytest.mark.parametrize(
    "path", ["/metrics", "/metrics?format=text", "/metrics/", "/METRICS", "/%6Detrics"]
)
def test_metrics_are_a_404_through_the_proxy(layout, path):
    status, headers, data = call(layout["port"], "GET", path)
    assert status == 404
    assert headers["content-type"].startswith("application/json")
    assert json.loads(data)["error"]["code"] == "not_found"
    assert b"demineur_" not in data


def test_an_app_server_refuses_a_scrape_that_came_through_a_proxy(layout):
    for port in [layout["layout"]["web_port"], *layout["layout"]["live_ports"]]:
        status, _, data = call(port, "GET", "/metrics", headers={"X-Forwarded-For": "203.0.113.9"})
        assert status == 404 and b"demineur_" not in data
        assert "# TYPE demineur_in_progress gauge" in scrape(port)  # without the header


def json_lines(layout: dict[str, Any], name: str) -> list[dict[str, Any]]:
    """Every line `name` got since the servers were up, each parsed as one JSON object."""
    with (layout["run"] / name).open("rb") as log:
        log.seek(layout["log_starts"].get(name, 0))
        lines = [line for line in log.read().decode().splitlines() if line.strip()]
    return [json.loads(line) for line in lines]


def test_json_log_lines_parse_and_carry_the_request_id(layout):
    port = layout["port"]
    missing = "00000000-0000-4000-8000-000000000000"
    # A client's own id is replaced by the proxy's.
    status, headers, _ = call(
        port, "GET", f"/api/games/{missing}", headers={"X-Request-Id": "chosen-by-the-client"}
    )
    assert status == 404
    request_id = headers["x-request-id"]
    assert request_id and request_id != "chosen-by-the-client"

    deadline = time.monotonic() + 10
    while True:
        access = [
            r for r in json_lines(layout, "web-access.log") if r.get("request_id") == request_id
        ]
        errors = [r for r in json_lines(layout, "web.log") if r.get("request_id") == request_id]
        if (access and errors) or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    # Django's `Not Found` line (logged after the middleware chain has returned) and
    # gunicorn's access line (after the answer went out) both carry the request's id.
    assert [r["logger"] for r in errors] == ["django.request"]
    assert errors[0]["level"] == "WARNING" and missing in errors[0]["message"]
    assert len(access) == 1 and access[0]["logger"] == "gunicorn.access"
    assert missing in access[0]["message"]
    for record in access + errors:
        assert {"time", "level", "logger", "message", "request_id"} <= set(record)
    # Everything the servers wrote meanwhile parses (json_lines fails on any other line).
    for name in ("web.log", "web-access.log", "live-1.log", "live-2.log"):
        for record in json_lines(layout, name):
            assert record["level"] in {"DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"}, record
