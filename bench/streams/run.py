"""NDJSON streams against sockets (docs/LIVE.md, NDJSON streams; docs/PERFORMANCE.md):

* delivery: one player flags and unflags a cell over HTTP at a steady pace while one game
  stream (GET /api/stream/game/{id}) and one socket (/ws/games/{id}) follow the game; for each
  move, the time from the player sending it to the `move` line (or frame) reaching its
  reader. p50 and p99 of both, and their ratio, from the same moves.
* throughput: the player moves over its own socket as fast as the game takes moves (16 in
  flight); the stream's lines per second, and whether every seq arrived once and in order.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/demineur REDIS_URL=redis://127.0.0.1:6379/0 \\
        .venv/bin/python -m bench.streams.run [--moves 400] [--seconds 10]

One uvicorn process (the ASGI `live` of the production layout) serves REST, the socket and
the stream, on its own database (DATABASE_URL's name + "_streams", made and migrated here)
and its own channel prefix; without PostgreSQL and Redis it runs on SQLite and the in-memory
layer, which it says.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import httpx
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from deploy.processes import RAISED_THROTTLES, ServerProcess, free_port, server_argv

ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "a bench passphrase"


def say(text: str) -> None:
    print(text, flush=True)


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def environment(tmp: Path) -> tuple[dict[str, str], str]:
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    env.update(RAISED_THROTTLES)
    env.update(DEBUG="0", SECRET_KEY="bench-" + uuid.uuid4().hex * 2, ALLOWED_HOSTS="127.0.0.1")
    env.update(LOG_LEVEL="WARNING", CHANNELS_PREFIX=f"streams{os.getpid()}")
    env.update(WS_MESSAGES_PER_SECOND="100000", WS_MESSAGES_BURST="100000")
    database = os.environ.get("DATABASE_URL", "")
    if database.startswith("postgres") and os.environ.get("REDIS_URL"):
        import psycopg

        url = urlparse(database)
        name = f"{url.path.lstrip('/') or 'demineur'}_streams"
        with psycopg.connect(url._replace(path="/postgres").geturl(), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{name}"')
        env["DATABASE_URL"] = url._replace(path=f"/{name}").geturl()
        layout = "PostgreSQL and Redis"
    else:
        env.pop("DATABASE_URL", None)
        env.pop("REDIS_URL", None)
        env["SQLITE_PATH"] = str(tmp / "streams.sqlite3")
        env["DEBUG"] = "1"
        layout = "SQLite and the in-memory channel layer (no DATABASE_URL/REDIS_URL)"
    return env, layout


def player(base: str) -> tuple[httpx.Client, str, dict[str, Any], tuple[int, int]]:
    api = httpx.Client(base_url=base, timeout=10)
    name = f"b{uuid.uuid4().hex[:10]}"
    api.post("/api/auth/register", json={"username": name, "password": PASSWORD, "kind": "bot"})
    token = api.post("/api/auth/token", json={"username": name, "password": PASSWORD}).json()[
        "token"
    ]
    api.headers["Authorization"] = f"Token {token}"
    game = api.post("/api/games", json={"level": "expert"}).json()
    board = api.post(f"/api/games/{game['id']}/reveal", json={"x": 0, "y": 0}).json()["game"][
        "board"
    ]
    cell = next((x, y) for y, row in enumerate(board) for x, c in enumerate(row) if c == "#")
    return api, token, game, cell


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


def delivery(base: str, moves: int) -> dict[str, Any]:
    api, _, game, (x, y) = player(base)
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
        "stream_p50_ms": round(statistics.median(stream), 2),
        "stream_p99_ms": round(pct(stream, 0.99), 2),
        "socket_p50_ms": round(statistics.median(socket), 2),
        "socket_p99_ms": round(pct(socket, 0.99), 2),
        "p99_ratio_stream_over_socket": round(pct(stream, 0.99) / pct(socket, 0.99), 2),
    }


def throughput(base: str, seconds: float, window: int = 16) -> dict[str, Any]:
    _, token, game, (x, y) = player(base)
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
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=400)
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as raw:
        tmp = Path(raw)
        env, layout = environment(tmp)
        say(f"streams bench on {layout}")
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--noinput", "-v0"],
            cwd=ROOT,
            env=env,
            check=True,
        )
        port = free_port()
        server = ServerProcess(
            "uvicorn",
            server_argv("uvicorn", port),
            port=port,
            env=env,
            log_path=tmp / "uvicorn.log",
        )
        server.start()
        try:
            server.wait_answering("/healthz")
            say(f"delivery: {args.moves} moves over HTTP, one stream and one socket following")
            first = delivery(server.url, args.moves)
            say(json.dumps(first, indent=2))
            say(f"throughput: the player's socket for {args.seconds:.0f} s, one stream following")
            second = throughput(server.url, args.seconds)
            say(json.dumps(second, indent=2))
        finally:
            server.stop()


if __name__ == "__main__":
    main()
