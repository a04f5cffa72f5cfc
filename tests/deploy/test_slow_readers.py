"""Slow readers of long answers (docs/SECURITY.md, slow readers), through `make serve-prod` as it
runs (deploy/serve_prod.py: Caddy, gunicorn with two sync workers, two uvicorn processes) on a
database of its own, with a long public games history seeded into it.

A gunicorn sync worker that writes an answer waits for as long as its reader takes to read
it, so a few clients reading a games export slowly held every worker and the REST API was
down. The proxy now reads each whole gunicorn answer before it writes a byte of it to the
client, and the games export (the one answer with no bound on its size) is served by the
uvicorn processes, which cut it GAMES_EXPORT_TIME_LIMIT seconds after its first line:

* more slow readers of the export than there are sync workers, and as many of the largest
  static file, leave leaderboard reads answered, and gunicorn kills no worker;
* a reader that never reads an export is cut by the time limit (shortened here);
* the export through either proxy is served by uvicorn, line for line what gunicorn writes.

Every wait is on a condition with a generous bound; no latency is asserted (run with -s to
see the latencies measured with and without the slow readers).
"""

from __future__ import annotations

import json
import secrets
import socket
import statistics
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from deploy.processes import RAISED_THROTTLES, run_python
from deploy.serve_prod import caddy_version
from tests.deploy import compose_proxy
from tests.deploy.compose_proxy import compose_proxy_before, installed_caddy, proxy_port
from tests.support.serve_prod import needs_proxy_and_services, serve_prod_layout

pytestmark = [*needs_proxy_and_services, pytest.mark.stack]

GAMES = 20_000  # about 15 MiB of export: more than every socket buffer between app and reader
TIME_LIMIT = 20  # seconds, GAMES_EXPORT_TIME_LIMIT here (600 by default)
SLOW_READERS = 4  # twice the layout's two gunicorn workers
PACE = 64  # bytes a second: how fast a slow reader reads
RECEIVE_BUFFER = 4096  # bytes, a slow reader's socket receive buffer
PROBES = 10
PROBE_PATH = "/api/leaderboards/beginner/times"
# The largest file the sync workers serve (drf-spectacular-sidecar's Redoc source map, 3.7 MiB).
STATIC_PATH = "/static/drf_spectacular_sidecar/redoc/bundles/redoc.standalone.js.map"
GENEROUS = 60.0  # seconds: a bound on what must happen well before it
# Each probe must be answered while the slow readers' exports still run (they are cut at
# TIME_LIMIT); a read takes milliseconds.
PROBE_TIMEOUT = float(TIME_LIMIT)


@pytest.fixture(scope="module")
def layout(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """serve_prod.py with a short export time limit and JSON log lines, and one player whose
    history is GAMES ended games (manage.py seed_demo)."""
    tmp = tmp_path_factory.mktemp("slow-readers")
    with serve_prod_layout(
        tmp,
        "slowread",
        GAMES_EXPORT_TIME_LIMIT=str(TIME_LIMIT),
        LOG_FORMAT="json",
        THROTTLE_GAMES_EXPORT="10000/min",
        **RAISED_THROTTLES,
    ) as running:
        env = running["env"]
        seeded = run_python(
            "manage.py", "seed_demo", "--players", "1", "--games", str(GAMES), "-v", "0", env=env
        )
        assert seeded.returncode == 0, seeded.stdout + seeded.stderr
        named = run_python(
            "manage.py",
            "shell",
            "-c",
            "from accounts.models import User; "
            "print(User.objects.get(username__startswith='demo').username)",
            env=env,
        )
        assert named.returncode == 0, named.stdout + named.stderr
        player = named.stdout.split()[-1]
        yield {**running, "tmp": tmp, "export": f"/api/users/{quote(player)}/games/export"}


@pytest.fixture(scope="module")
def compose_port(layout: dict[str, Any]) -> Iterator[int]:
    """docs/Caddyfile in front of the layout's gunicorn and its first uvicorn process."""
    with compose_proxy_before(layout) as port:
        yield port


@pytest.fixture(params=["serve-prod", "compose"])
def proxy(request: pytest.FixtureRequest, layout: dict[str, Any]) -> int:
    """The port of one proxy configuration, both in front of the same app servers."""
    return proxy_port(request.param, layout, lambda: request.getfixturevalue("compose_port"))


def wait_for(what: str, condition: Callable[[], bool], timeout: float = GENEROUS) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"not within {timeout:.0f} s: {what}")
        time.sleep(0.1)


def log_text(layout: dict[str, Any], name: str) -> str:
    try:
        return Path(layout["run"], name).read_text(errors="replace")
    except OSError:
        return ""


def json_lines(layout: dict[str, Any], name: str) -> list[dict[str, Any]]:
    records = []
    for line in log_text(layout, name).splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue  # a line of the server itself (uvicorn's, gunicorn's)
        if isinstance(record, dict):
            records.append(record)
    return records


def export_cut(layout: dict[str, Any], request_id: str) -> bool:
    """Whether a uvicorn process logged that it cut the export of request `request_id`."""
    return any(
        "games export cut" in str(record.get("message")) and record.get("request_id") == request_id
        for name in ("live-1.log", "live-2.log")
        for record in json_lines(layout, name)
    )


def get(port: int, path: str, timeout: float = GENEROUS) -> tuple[int, bytes]:
    """One GET on a fresh connection, read at full speed: (status, body)."""
    status, _, body = compose_proxy.get(port, path, timeout)
    return status, body


def probe_latencies(port: int, count: int = PROBES) -> list[float]:
    """`count` leaderboard reads, each answered 200 within PROBE_TIMEOUT: their latencies in ms."""
    return compose_proxy.probe_latencies(port, PROBE_PATH, PROBE_TIMEOUT, count)


class Reader(threading.Thread):
    """GET `path` through the proxy on a socket with a small receive buffer: the answer's head
    is read, then PACE bytes a second (`pace`), or nothing more at all (`pace` 0)."""

    def __init__(self, port: int, path: str, *, pace: int) -> None:
        super().__init__(daemon=True)
        self.pace = pace
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, RECEIVE_BUFFER)
        self.sock.settimeout(GENEROUS)
        self.sock.connect(("127.0.0.1", port))
        self.sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
        self.data = b""
        self.head: dict[str, str] = {}
        self.status = 0
        self.headed = threading.Event()
        self.ended = threading.Event()
        self.stop = threading.Event()

    def run(self) -> None:
        try:
            while b"\r\n\r\n" not in self.data:
                chunk = self.sock.recv(256)
                if not chunk:
                    self.ended.set()
                    return
                self.data += chunk
            head = self.data.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")
            self.status = int(head[0].split()[1])
            self.head = {k.lower(): v.strip() for k, _, v in (h.partition(":") for h in head[1:])}
            self.headed.set()
            while self.pace and not self.stop.wait(1.0):
                chunk = self.sock.recv(self.pace)
                if not chunk:
                    self.ended.set()
                    return
                self.data += chunk
        except OSError:
            self.ended.set()

    def connected(self) -> bool:
        """Neither end closed: the connection is established, by the kernel's account."""
        info = self.sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 1)
        return info[0] == 1  # TCP_ESTABLISHED

    def read_to_end(self) -> bytes:
        """Whatever the proxy still sends, until it closes the connection or ends the chunked
        body (after which it keeps the connection for the next request)."""
        self.stop.set()
        self.join(timeout=GENEROUS)
        try:
            while not self.data.endswith(b"\r\n0\r\n\r\n") and (chunk := self.sock.recv(65536)):
                self.data += chunk
        except ConnectionResetError:
            pass
        return self.data

    def close(self) -> None:
        self.stop.set()
        self.join(timeout=GENEROUS)
        self.sock.close()


@pytest.mark.parametrize("what", ["games export", "static file"])
def test_slow_readers_leave_the_rest_api_answering(layout: dict[str, Any], what: str) -> None:
    port = int(layout["port"])
    nonce = secrets.token_hex(8)
    path = f"{layout['export'] if what == 'games export' else STATIC_PATH}?slow={nonce}"
    probe_latencies(port, 3)  # warm-up: connections, caches
    before = probe_latencies(port)
    web_log_from = len(log_text(layout, "web.log"))
    readers = [Reader(port, path, pace=PACE) for _ in range(SLOW_READERS)]
    try:
        for reader in readers:
            reader.start()
        for reader in readers:
            wait_for(f"the head of {path}", reader.headed.is_set)
            assert reader.status == 200, reader.data[:300]
        during = probe_latencies(port)
        # The probes ran beside readers still reading, each a few hundred bytes in.
        for reader in readers:
            assert reader.connected() and not reader.ended.is_set()
        if what == "static file":
            size = int(readers[0].head["content-length"])
            # gunicorn has written every one of them while their readers still read: the
            # proxy holds the answers, no worker does.
            wait_for(
                "gunicorn's access lines of the slow reads",
                lambda: log_text(layout, "web-access.log").count(f"slow={nonce}") == SLOW_READERS,
            )
            assert all(len(reader.data) < size for reader in readers)
        else:
            # Served by the uvicorn processes: gunicorn never saw the export.
            assert f"slow={nonce}" not in log_text(layout, "web-access.log")
    finally:
        for reader in readers:
            reader.close()
    # No gunicorn worker was held until the arbiter killed it.
    assert "WORKER TIMEOUT" not in log_text(layout, "web.log")[web_log_from:]
    print(
        f"\n{PROBES} reads of {PROBE_PATH}: median {statistics.median(before):.1f} ms"
        f" (max {max(before):.1f}) alone, median {statistics.median(during):.1f} ms"
        f" (max {max(during):.1f}) beside {SLOW_READERS} readers of the {what} at {PACE} B/s"
    )


def test_an_export_reader_that_never_reads_is_cut_at_the_time_limit(
    layout: dict[str, Any],
) -> None:
    port = int(layout["port"])
    reader = Reader(port, layout["export"], pace=0)
    reader.start()
    try:
        wait_for("the export's head", reader.headed.is_set)
        assert reader.status == 200, reader.data[:300]
        request_id = reader.head["x-request-id"]
        start = time.monotonic()
        wait_for(
            f"uvicorn's cut of export {request_id}",
            lambda: export_cut(layout, request_id),
            timeout=TIME_LIMIT + GENEROUS,
        )
        held = time.monotonic() - start
        answer = reader.read_to_end()
    finally:
        reader.close()
    # Cut: far fewer than the player's games arrived. Caddy 2.8 and later abort the client's
    # connection when an upstream fails mid-answer, so the reader sees an unfinished body;
    # 2.6 (Debian 12's) ends the chunked body as if it were whole (docs/deploy/SERVING.md).
    body = answer.split(b"\r\n\r\n", 1)[1]
    assert body.count(b'"moves":') < GAMES
    caddy = installed_caddy()
    assert caddy is not None
    if caddy_version(caddy) >= (2, 8, 0):
        assert not body.endswith(b"\r\n0\r\n\r\n")
    print(f"\nan export nobody read was cut {held:.1f} s after its head, {len(body):,} bytes sent")


def test_the_export_is_served_by_uvicorn_as_gunicorn_would_write_it(
    layout: dict[str, Any], proxy: int
) -> None:
    nonce = secrets.token_hex(8)
    since = quote((datetime.now(UTC) - timedelta(days=5)).isoformat())
    query = f"?since={since}&probe={nonce}"
    status, through_proxy = get(proxy, layout["export"] + query)
    assert status == 200, through_proxy[:300]
    status, slashed = get(proxy, layout["export"] + "/" + query)
    assert status == 200, slashed[:300]
    # Straight from gunicorn, by its own port: the sync path of the same view.
    status, from_gunicorn = get(layout["layout"]["web_port"], layout["export"] + query)
    assert status == 200, from_gunicorn[:300]
    lines = through_proxy.splitlines()
    assert lines and all(json.loads(line)["state"] in ("won", "lost") for line in lines)
    assert through_proxy == slashed == from_gunicorn
    # Only the direct read is in gunicorn's access log (written once the answer is out): the
    # proxy sent both of its reads, made before it, to uvicorn.
    wait_for(
        "gunicorn's access line", lambda: f"probe={nonce}" in log_text(layout, "web-access.log")
    )
    assert log_text(layout, "web-access.log").count(f"probe={nonce}") == 1
