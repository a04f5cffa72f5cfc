"""A move's CPU in process, over HTTP and over the socket, in one run (issue 27, goal 1): what a
busy machine cannot blur, since `time.process_time` counts this process only (all its
threads: the socket's database thread and the publisher's loop thread included).

    DATABASE_URL=postgres://... REDIS_URL=redis://... \\
        .venv/bin/python -m bench.socketmove.inprocess [--n 500] [--rounds 5]

One player with a token and a started Marathon game toggles a flag on a closed cell:

* HTTP: `POST /api/games/{id}/flag` through Django's WSGI handler (bench/http/inprocess.py's
  way: middleware, DRF, token auth, throttling, the move, the publish, the JSON answer), no
  HTTP server;
* socket: `{"action": "flag", ...}` frames on `/ws/games/{id}` through the ASGI application
  (the socket's sign-in middleware with the token, the caps, the consumer, its database
  thread with DB_POOL=1 as the live process runs it, the publish, and the `move` event coming
  back through Redis to the socket), driven by channels' test communicator, no uvicorn.

Each side runs in a child process of its own, configured as production runs that door (the
socket on the pool, HTTP on a persistent connection). Rounds alternate (HTTP, socket, HTTP,
...); the figure is the median per move of each, and the
ratio socket / HTTP of the medians. Neither side counts its server's own parsing (gunicorn's
HTTP, uvicorn's WebSocket framing) nor the race clock threads of a live process (not started
here): bench/socketmove/run.py measures whole games on the servers.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from typing import Any

from bench.http.inprocess import ROOT, _environ


def _setup(side: str) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "demineur_site.settings")
    os.environ.setdefault("SECRET_KEY", "bench-only-" + "x" * 40)
    os.environ["DEBUG"] = "0"
    # As production runs each door: the live process on the pool, the WSGI workers on
    # persistent connections.
    os.environ.pop("DB_POOL", None)
    if side == "socket":
        os.environ["DB_POOL"] = "1"
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    # The ASGI application starts the race clock (and the analysis worker) at its first
    # connection when no lifespan did: their ticks are not a move's cost.
    os.environ["RACE_CLOCK"] = "off"
    os.environ["WS_MESSAGES_PER_SECOND"] = os.environ["WS_MESSAGES_BURST"] = "100000000"
    os.environ["WS_MAX_SOCKETS_PER_ADDRESS"] = os.environ["WS_MAX_SOCKETS_PER_USER"] = "0"
    os.environ["CHANNELS_PREFIX"] = f"sminproc{os.getpid()}"
    for scope in ("ANON", "USER"):
        os.environ[f"THROTTLE_{scope}"] = "100000000/min"
    sys.path.insert(0, str(ROOT))
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)


def one_side(side: str, n: int) -> dict[str, Any]:
    """In this process: warm up, then `n` flag moves through `side`; CPU µs a move."""
    _setup(side)
    from channels.testing import WebsocketCommunicator
    from django.core.wsgi import get_wsgi_application

    from accounts.services import token_issue
    from bench.seeding import kept_player_with_a_game, middle_closed_cell

    user, game = kept_player_with_a_game(f"socketmove-{side}", "marathon", (40, 20))
    x, y = middle_closed_cell(game)
    _, token = token_issue(user=user, name="socketmove")
    answers: dict[str, int] = {}
    if side == "http":
        wsgi = get_wsgi_application()
        path = f"/api/games/{game.id}/flag"
        body = json.dumps({"x": x, "y": y}).encode()

        def start(status: str, headers: Any, exc_info: Any = None) -> Any:
            answers[status] = answers.get(status, 0) + 1
            return None

        def http_moves(count: int) -> float:
            c0 = time.process_time()
            for _ in range(count):
                response = wsgi(_environ(path, body, token), start)
                for _chunk in response:
                    pass
                response.close()
            return (time.process_time() - c0) / count * 1e6

        http_moves(100)
        return {"side": side, "cpu_us": http_moves(n), "answers": answers}

    from demineur_site.asgi import application

    frame = json.dumps({"action": "flag", "x": x, "y": y})

    async def socket_moves() -> float:
        comm = WebsocketCommunicator(
            application,
            f"/ws/games/{game.id}",
            headers=[(b"authorization", f"Token {token}".encode())],
        )
        ok, _ = await comm.connect(timeout=30)
        assert ok, "the socket was refused"
        state = json.loads(await comm.receive_from(timeout=30))
        assert state["type"] == "state", state

        async def moves(count: int) -> float:
            c0 = time.process_time()
            for _ in range(count):
                await comm.send_to(text_data=frame)
                answer = json.loads(await comm.receive_from(timeout=30))
                answers[answer["type"]] = answers.get(answer["type"], 0) + 1
            return (time.process_time() - c0) / count * 1e6

        await moves(100)
        spent = await moves(n)
        await comm.disconnect()
        return spent

    return {"side": side, "cpu_us": asyncio.run(socket_moves()), "answers": answers}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=500, help="moves per round (500)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds of each (5)")
    parser.add_argument("--side", choices=("http", "socket"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if not os.environ.get("DATABASE_URL", "").startswith("postgres") or not os.environ.get(
        "REDIS_URL"
    ):
        print("bench/socketmove/inprocess: skipped, it needs DATABASE_URL and REDIS_URL")
        return
    if args.side:  # one side in this (child) process: its result as the last line
        print(json.dumps(one_side(args.side, args.n)))
        return
    cpu: dict[str, list[float]] = {"http": [], "socket": []}
    for r in range(args.rounds):
        for side in ("http", "socket"):
            done = subprocess.run(
                [sys.executable, "-m", "bench.socketmove.inprocess", "--side", side,
                 "--n", str(args.n)],
                cwd=ROOT, capture_output=True, text=True, check=True,
            )  # fmt: skip
            result = json.loads(done.stdout.strip().splitlines()[-1])
            cpu[side].append(result["cpu_us"])
        print(
            f"  round {r + 1}/{args.rounds}: HTTP {cpu['http'][-1]:.0f} µs, socket "
            f"{cpu['socket'][-1]:.0f} µs of CPU a move ({result['answers']})",
            flush=True,
        )
    s, h = statistics.median(cpu["socket"]), statistics.median(cpu["http"])
    rounds = " / ".join(f"{a / b:.2f}" for a, b in zip(cpu["socket"], cpu["http"], strict=True))
    print(
        f"median of {args.rounds} rounds of {args.n} flag moves: socket {s:.0f} µs, HTTP "
        f"{h:.0f} µs of CPU a move; socket / HTTP {s / h:.2f} (per round {rounds}; "
        f"load {os.getloadavg()[0]:.2f})"
    )


if __name__ == "__main__":
    main()
