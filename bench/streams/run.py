"""NDJSON streams against sockets (docs/LIVE.md, NDJSON streams; docs/PERFORMANCE.md):

* delivery: one player flags and unflags a cell over HTTP at a steady pace while one game
  stream (GET /api/stream/game/{id}) and one socket (/ws/games/{id}) follow the game; for each
  move, the time from the player sending it to the `move` line (or frame) reaching its
  reader. p50 and p99 of both, and their ratio, from the same moves.
* throughput: the player moves over its own socket as fast as the game takes moves (16 in
  flight); the stream's lines per second, and whether every seq arrived once and in order.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/demineur REDIS_URL=redis://127.0.0.1:6379/0 \\
        .venv/bin/python -m bench.streams.run [--moves 400] [--seconds 10]

One uvicorn process (the ASGI `live` of the production layout: bench/harness/servers.py's
AppServer, on ports 18950-18999) serves REST, the socket and the stream, on its own database
(DATABASE_URL's name + "_streams", made afresh and migrated here) and its own channel prefix;
without PostgreSQL and Redis it runs on SQLite and the in-memory layer, which it says.
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from bench import cli
from bench.harness.clients import api_json, register
from bench.harness.database import beside_database_url, create_database
from bench.harness.report import say
from bench.harness.servers import AppServer, Ports, app_env
from bench.harness.timing import median, percentile
from deploy.processes import run_python

PORTS = range(18950, 19000)
PASSWORD = "a bench passphrase"


def environment(tmp: Path) -> tuple[dict[str, str], str]:
    prefix = f"streams{os.getpid()}"
    extra = {"ALLOWED_HOSTS": "127.0.0.1", "WS_MESSAGES_PER_SECOND": "100000",
             "WS_MESSAGES_BURST": "100000"}  # fmt: skip
    url = beside_database_url("_streams")
    redis_url = os.environ.get("REDIS_URL")
    if url is not None and redis_url:
        create_database(url, fresh=True, suffixes=("_streams",))
        return app_env(url, redis_url, prefix, extra=extra), "PostgreSQL and Redis"
    env = app_env(
        None, None, prefix, debug=True, extra={"SQLITE_PATH": str(tmp / "streams.sqlite3"), **extra}
    )
    return env, "SQLite and the in-memory channel layer (no DATABASE_URL/REDIS_URL)"


def player(port: int) -> tuple[httpx.Client, str, dict[str, Any], tuple[int, int]]:
    """A bot with an Expert game opened at (0, 0), a closed cell of it, and a client that
    keeps its connection (the timed moves)."""
    account = register(port, f"b{uuid.uuid4().hex[:10]}", PASSWORD)
    _, game = api_json(port, "POST", "/api/games", {"level": "expert"}, account.token)
    _, moved = api_json(
        port, "POST", f"/api/games/{game['id']}/reveal", {"x": 0, "y": 0}, account.token
    )
    board = moved["game"]["board"]
    cell = next((x, y) for y, row in enumerate(board) for x, c in enumerate(row) if c == "#")
    api = httpx.Client(
        base_url=f"http://127.0.0.1:{port}",
        timeout=10,
        headers={"Authorization": f"Token {account.token}"},
    )
    return api, account.token, game, cell


class Readers:
    """The stream and the socket, each noting when each move's seq reached it."""

    def __init__(self, base: str, game_id: str) -> None:
        self.stream: dict[int, float] = {}
        self.socket: dict[int, float] = {}
        self.stream_order: list[int] = []
        self.ready = threading.Barrier(3)
        self.stop = threading.Event()
        ws_url = base.replace("http://", "ws://") + f"/ws/games/{game_id}"
        self.threads = [
            threading.Thread(target=self._read_stream, args=(base, game_id), daemon=True),
            threading.Thread(target=self._read_socket, args=(ws_url,), daemon=True),
        ]
        for thread in self.threads:
            thread.start()
        self.ready.wait(timeout=30)

    def _read_stream(self, base: str, game_id: str) -> None:
        with httpx.stream("GET", f"{base}/api/stream/game/{game_id}", timeout=None) as response:
            lines = response.iter_lines()
            next(lines)  # the state
            self.ready.wait(timeout=30)
            for line in lines:
                if self.stop.is_set():
                    return
                if line:
                    frame = json.loads(line)
                    if frame.get("type") == "move":
                        self.stream[frame["seq"]] = time.perf_counter()
                        self.stream_order.append(frame["seq"])

    def _read_socket(self, url: str) -> None:
        with connect(url, open_timeout=10, max_size=2**22) as ws:
            ws.recv()  # the state
            self.ready.wait(timeout=30)
            while not self.stop.is_set():
                try:
                    frame = json.loads(ws.recv(timeout=1))
                except TimeoutError:
                    continue
                except ConnectionClosed:
                    return
                if frame.get("type") == "move":
                    self.socket[frame["seq"]] = time.perf_counter()


def delivery(port: int, moves: int) -> dict[str, Any]:
    base = f"http://127.0.0.1:{port}"
    api, _, game, (x, y) = player(port)
    readers = Readers(base, game["id"])
    answered: dict[int, float] = {}
    for n in range(moves):
        sent = time.perf_counter()
        result = api.post(f"/api/games/{game['id']}/flag", json={"x": x, "y": y}).json()
        answered[result["seq"]] = sent
        if (n + 1) % 100 == 0:
            say(f"  delivery: {n + 1}/{moves} moves")
        time.sleep(0.02)
    time.sleep(1.0)
    readers.stop.set()
    stream = [(readers.stream[s] - t) * 1000 for s, t in answered.items() if s in readers.stream]
    socket = [(readers.socket[s] - t) * 1000 for s, t in answered.items() if s in readers.socket]
    return {
        "moves": moves,
        "stream_received": len(stream),
        "socket_received": len(socket),
        "stream_p50_ms": round(median(stream), 2),
        "stream_p99_ms": round(percentile(stream, 99), 2),
        "socket_p50_ms": round(median(socket), 2),
        "socket_p99_ms": round(percentile(socket, 99), 2),
        "p99_ratio_stream_over_socket": round(percentile(stream, 99) / percentile(socket, 99), 2),
    }


def throughput(port: int, seconds: float, window: int = 16) -> dict[str, Any]:
    base = f"http://127.0.0.1:{port}"
    _, token, game, (x, y) = player(port)
    readers = Readers(base, game["id"])
    url = base.replace("http://", "ws://") + f"/ws/games/{game['id']}"
    sent = answered = 0
    started = time.perf_counter()
    with connect(
        url, additional_headers={"Authorization": f"Token {token}"}, open_timeout=10
    ) as ws:
        ws.recv()  # the state
        deadline = started + seconds
        while time.perf_counter() < deadline or answered < sent:
            while sent - answered < window and time.perf_counter() < deadline:
                ws.send(json.dumps({"action": "flag", "x": x, "y": y}))
                sent += 1
            if json.loads(ws.recv(timeout=10)).get("type") in ("move", "error"):
                answered += 1
    elapsed = time.perf_counter() - started
    time.sleep(1.0)
    readers.stop.set()
    order = readers.stream_order
    return {
        "seconds": round(elapsed, 1),
        "moves_sent": sent,
        "stream_lines": len(order),
        "stream_lines_per_s": round(len(order) / elapsed, 1),
        "every_seq_once_in_order": order == sorted(set(order)) and len(order) == sent,
    }


def main() -> None:
    parser = cli.parser(__doc__)
    parser.add_argument("--moves", type=int, default=400)
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as raw:
        tmp = Path(raw)
        env, layout = environment(tmp)
        say(f"streams bench on {layout}")
        done = run_python("manage.py", "migrate", "--noinput", "-v0", env=env)
        if done.returncode != 0:
            raise SystemExit(f"migrate failed:\n{done.stderr[-2000:]}")
        server = AppServer("uvicorn", Ports(PORTS).take(), env, tmp, None, lifespan=True)
        server.start()
        try:
            server.wait_ready()
            say(f"delivery: {args.moves} moves over HTTP, one stream and one socket following")
            first = delivery(server.port, args.moves)
            say(json.dumps(first, indent=2))
            say(f"throughput: the player's socket for {args.seconds:.0f} s, one stream following")
            second = throughput(server.port, args.seconds)
            say(json.dumps(second, indent=2))
        finally:
            server.stop()


if __name__ == "__main__":
    main()
