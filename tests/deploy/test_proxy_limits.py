"""What the proxy does with slow, oversized or curious clients (docs/SECURITY.md),
through both proxy configurations in front of real app servers:

* `serve-prod`: `make serve-prod` as it runs (deploy/serve_prod.py: Caddy from
  deploy/Caddyfile.template, gunicorn with two sync workers, two uvicorn processes);
* `compose`: docs/Caddyfile, the proxy of docker-compose.yml, run by the same caddy in front
  of that layout's gunicorn and one of its uvicorn processes.

Finding 1: a sync worker waits on a request body for as long as it dribbles in, so a few slow
bodies held every worker. The proxy now reads a whole body (bounded by the 64 KiB limit)
before it forwards it, and drops a client whose header or body does not arrive in time.
Finding 8: a URL over 4 KiB got gunicorn's HTML page; answers named their servers.

The proxy timeouts are shortened here (PROXY_READ_HEADER_TIMEOUT, PROXY_READ_BODY_TIMEOUT) so
that the test of each runs in seconds; every bound asserted is generous (no timing figure is
asserted). Run with -s to see the latencies measured with and without slow clients.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import secrets
import socket
import statistics
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import websockets.sync.client

from deploy.processes import RAISED_THROTTLES
from deploy.serve_prod import caddy_version
from tests.deploy import compose_proxy
from tests.deploy.compose_proxy import compose_proxy_before, get, installed_caddy, proxy_port
from tests.support.personas import PASSWORD
from tests.support.serve_prod import needs_proxy_and_services, serve_prod_layout

pytestmark = needs_proxy_and_services

READ_HEADER_TIMEOUT = 2  # seconds, the proxy's here (10 s by default)
READ_BODY_TIMEOUT = 8  # seconds, the proxy's here (30 s by default)
SLOW_CLIENTS = 8  # four times the layout's two gunicorn workers
SLOW_BODY_BYTES = 2000
DRIBBLE_EVERY = 1.0  # seconds between two bytes of a slow body
PROBES = 20
# Each probe must be answered while the slow clients are still dribbling: within their
# lifetime (READ_BODY_TIMEOUT, after which the proxy drops them).
PROBE_TIMEOUT = float(READ_BODY_TIMEOUT)
GENEROUS = 30.0  # seconds: a bound on what the proxy's timeouts must cut off well before
PROBE_PATH = "/api/leaderboards/beginner/times"
MAX_URI_BYTES = 4096


@pytest.fixture(scope="module")
def layout(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """`serve_prod.py` in the foreground on a database of its own, with short proxy timeouts;
    stopped by `serve_prod.py stop` (tests/support/serve_prod.py)."""
    tmp = tmp_path_factory.mktemp("proxy-limits")
    with serve_prod_layout(
        tmp,
        "proxylimits",
        PROXY_READ_HEADER_TIMEOUT=f"{READ_HEADER_TIMEOUT}s",
        PROXY_READ_BODY_TIMEOUT=f"{READ_BODY_TIMEOUT}s",
        # The sign-ups here must not meet a throttle or a cap on new accounts.
        **RAISED_THROTTLES,
    ) as running:
        yield {
            "port": running["port"],
            "run": running["run"],
            "tmp": tmp,
            "layout": running["layout"],
        }


@pytest.fixture(scope="module")
def compose_port(layout: dict[str, Any]) -> Iterator[int]:
    """docs/Caddyfile in front of the layout's gunicorn and its first uvicorn process."""
    with compose_proxy_before(
        layout,
        PROXY_READ_HEADER_TIMEOUT=f"{READ_HEADER_TIMEOUT}s",
        PROXY_READ_BODY_TIMEOUT=f"{READ_BODY_TIMEOUT}s",
    ) as port:
        yield port


@pytest.fixture(params=["serve-prod", "compose"])
def proxy(request: pytest.FixtureRequest, layout: dict[str, Any]) -> int:
    """The port of one proxy configuration, both in front of the same app servers."""
    return proxy_port(request.param, layout, lambda: request.getfixturevalue("compose_port"))


@pytest.fixture
def proxy_name(request: pytest.FixtureRequest) -> str:
    """Which configuration `proxy` is, for what the tests print."""
    return str(request.node.callspec.params["proxy"])


def probe_latencies(port: int, count: int = PROBES) -> list[float]:
    """`count` leaderboard reads, each answered 200 within PROBE_TIMEOUT: their latencies in ms."""
    return compose_proxy.probe_latencies(port, PROBE_PATH, PROBE_TIMEOUT, count)


class SlowClient(threading.Thread):
    """A POST that declares a SLOW_BODY_BYTES body and sends one byte every DRIBBLE_EVERY
    seconds until stopped, or until the proxy closes the connection."""

    def __init__(self, port: int, nonce: str) -> None:
        super().__init__(daemon=True)
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=GENEROUS)
        self.sock.sendall(
            (
                f"POST /api/auth/register?slow={nonce} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                f"Content-Type: application/json\r\nContent-Length: {SLOW_BODY_BYTES}\r\n\r\n{{"
            ).encode()
        )
        self.sent = 1
        self.stop = threading.Event()
        self.dropped = threading.Event()

    def run(self) -> None:
        while not self.stop.wait(DRIBBLE_EVERY) and self.sent < SLOW_BODY_BYTES - 1:
            try:
                self.sock.sendall(b" ")
                self.sent += 1
            except OSError:
                self.dropped.set()
                return

    def still_open(self) -> bool:
        """The proxy has neither answered nor closed the connection."""
        self.sock.setblocking(False)
        try:
            self.sock.recv(1, socket.MSG_PEEK)
            return False  # an answer, or the end of the connection
        except BlockingIOError:
            return True
        except OSError:
            return False
        finally:
            self.sock.setblocking(True)

    def close(self) -> None:
        self.stop.set()
        self.join(timeout=GENEROUS)
        self.sock.close()


def test_slow_request_bodies_leave_other_requests_unaffected(proxy, proxy_name, layout):
    nonce = secrets.token_hex(8)
    probe_latencies(proxy, 3)  # warm-up: connections, caches
    before = probe_latencies(proxy)
    slow = [SlowClient(proxy, nonce) for _ in range(SLOW_CLIENTS)]
    try:
        for client in slow:
            client.start()
        time.sleep(2 * DRIBBLE_EVERY)  # every slow body is under way (and, before, upstream)
        during = probe_latencies(proxy)
        # The slow clients were still dribbling all along: their bodies, not a timeout, were
        # what the probes ran beside. And none of them reached an app server.
        assert all(client.still_open() for client in slow)
        assert f"slow={nonce}" not in (layout["run"] / "web-access.log").read_text()
    finally:
        for client in slow:
            client.close()
    print(
        f"\n[{proxy_name}] {PROBES} reads of {PROBE_PATH}: median {statistics.median(before):.1f} ms"
        f" (max {max(before):.1f}) alone, median {statistics.median(during):.1f} ms"
        f" (max {max(during):.1f}) beside {SLOW_CLIENTS} slow bodies of {SLOW_BODY_BYTES} bytes"
        f" at one byte per {DRIBBLE_EVERY:g} s"
    )


def wait_closed(sock: socket.socket) -> bytes:
    """Everything the proxy sends until it closes the connection; socket.timeout (the test
    fails) if it still holds it after GENEROUS seconds."""
    sock.settimeout(GENEROUS)
    received = b""
    while chunk := sock.recv(4096):
        received += chunk
    return received


def test_a_half_sent_request_header_is_dropped(proxy, proxy_name):
    with socket.create_connection(("127.0.0.1", proxy), timeout=GENEROUS) as sock:
        sock.sendall(f"GET {PROBE_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\n".encode())
        start = time.monotonic()
        answer = wait_closed(sock)
        held = time.monotonic() - start
    # Nothing but, at most, a refusal: never the page asked for.
    assert b"200 OK" not in answer
    first_line = answer.split(b"\r\n", 1)[0].decode(errors="replace") or "nothing"
    print(
        f"\n[{proxy_name}] a half-sent header was dropped after {held:.1f} s;"
        f" the proxy answered {first_line!r}"
    )


def test_a_body_slower_than_the_read_timeout_is_dropped_before_any_app_server(
    proxy, proxy_name, layout
):
    nonce = secrets.token_hex(8)
    client = SlowClient(proxy, nonce)
    client.start()
    try:
        start = time.monotonic()
        answer = wait_closed(client.sock)
        held = time.monotonic() - start
    finally:
        client.close()
    assert b"201 Created" not in answer
    assert client.sent < SLOW_BODY_BYTES - 1
    assert f"slow={nonce}" not in (layout["run"] / "web-access.log").read_text()
    first_line = answer.split(b"\r\n", 1)[0].decode(errors="replace") or "nothing"
    print(
        f"\n[{proxy_name}] a slow body was dropped after {held:.1f} s, {client.sent} bytes"
        f" sent; the proxy answered {first_line!r}"
    )


def error_of(body: bytes) -> dict[str, Any]:
    error = json.loads(body)["error"]
    assert set(error) == {"code", "message", "details"}
    return dict(error)


def test_a_uri_over_4_kib_is_refused_with_the_api_error_body(proxy):
    at_limit = PROBE_PATH + "?q=" + "a" * (MAX_URI_BYTES - len(PROBE_PATH) - 3)
    assert len(at_limit) == MAX_URI_BYTES
    status, headers, body = get(proxy, at_limit, timeout=GENEROUS)
    assert status == 200, body  # an unknown query parameter is ignored

    for too_long in (at_limit + "a", PROBE_PATH + "?q=" + "a" * 9000, "/" + "x" * 5000):
        status, headers, body = get(proxy, too_long, timeout=GENEROUS)
        assert status == 414, body[:200]
        assert headers["Content-Type"] == "application/json"
        assert error_of(body)["code"] == "uri_too_long"


def test_oversized_request_headers_are_refused_with_the_api_error_body(proxy):
    # Over gunicorn's limit of one header field (8190 bytes), well under Caddy's: gunicorn
    # refuses it with its own HTML page, which the proxy answers in the API's shape.
    status, headers, body = get(proxy, PROBE_PATH, GENEROUS, {"X-Padding": "p" * 9000})
    assert status == 431, body[:200]
    assert headers["Content-Type"] == "application/json"
    assert error_of(body)["code"] == "header_fields_too_large"


def test_no_answer_names_the_proxy_or_the_app_server(proxy, layout):
    answers = {
        "a read": get(proxy, PROBE_PATH, GENEROUS),
        "the app's 404": get(proxy, "/api/nope", GENEROUS),
        "a page": get(proxy, "/", GENEROUS),
        "the proxy's 414": get(proxy, "/" + "x" * 5000, GENEROUS),
        "gunicorn's 431": get(proxy, "/", GENEROUS, {"X-Padding": "p" * 9000}),
    }
    conn = http.client.HTTPConnection("127.0.0.1", proxy, timeout=GENEROUS)
    conn.request("POST", "/api/auth/register", body=b"x" * (1024 * 1024))
    response = conn.getresponse()
    answers["the proxy's 413"] = (response.status, response.headers, response.read())
    conn.close()
    assert answers["the proxy's 413"][0] == 413
    for what, (status, headers, _) in answers.items():
        assert headers.get_all("Server") is None, (what, status, headers.get_all("Server"))

    # A socket's upgrade answer names no app server either; nor Caddy since 2.6.3, which
    # writes it through the header rules (2.6.2, Debian 12's, writes it past them with its
    # own `Server: Caddy`, no version).
    caddy = installed_caddy()
    assert caddy is not None
    proxy_own = [] if caddy_version(caddy) >= (2, 6, 3) else ["Caddy"]
    with websockets.sync.client.connect(f"ws://127.0.0.1:{proxy}/ws/live") as ws:
        assert ws.response is not None
        assert ws.response.headers.get_all("Server") == proxy_own, ws.response.headers


def test_a_websocket_outlives_the_proxys_read_timeouts(layout, compose_port):
    # read_body bounds a request from its first byte; an upgraded connection must not inherit
    # that deadline, or every socket would be cut READ_BODY_TIMEOUT seconds after it opened.
    ports = {"serve-prod": layout["port"], "compose": compose_port}
    with contextlib.ExitStack() as stack:
        sockets = {
            name: stack.enter_context(
                websockets.sync.client.connect(f"ws://127.0.0.1:{port}/ws/live", open_timeout=10)
            )
            for name, port in ports.items()
        }
        time.sleep(READ_BODY_TIMEOUT + READ_HEADER_TIMEOUT)
        for name, ws in sockets.items():
            assert ws.ping().wait(timeout=GENEROUS), name


@pytest.mark.parametrize("framing", ["content-length", "chunked"])
def test_a_body_that_arrives_in_time_is_forwarded_whole(proxy, framing):
    # Buffered by the proxy, then forwarded: a sign-up sent in pieces over two seconds (well
    # inside read_body), with a declared length or chunked, is read by the app as sent.
    username = f"slow{framing[0]}{secrets.token_hex(4)}"
    body = json.dumps({"username": username, "password": PASSWORD}).encode()
    pieces = [body[i : i + 16] for i in range(0, len(body), 16)]
    conn = http.client.HTTPConnection("127.0.0.1", proxy, timeout=GENEROUS)

    def dribble() -> Iterator[bytes]:
        for piece in pieces:
            yield piece
            time.sleep(2 / len(pieces))

    headers = {"Content-Type": "application/json"}
    if framing == "content-length":
        headers["Content-Length"] = str(len(body))
    conn.request(
        "POST",
        "/api/auth/register",
        body=dribble(),
        headers=headers,
        encode_chunked=framing == "chunked",
    )
    response = conn.getresponse()
    status, answer = response.status, json.loads(response.read())
    conn.close()
    assert status == 201, answer
    assert answer["username"] == username
