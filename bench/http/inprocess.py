"""A move's CPU in process, over HTTP and over the socket: what a busy machine cannot blur,
since `time.process_time` counts this process only (all its threads: the socket's database
thread and the publisher's loop thread included), and what to profile.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/demineur_prof REDIS_URL=redis://127.0.0.1:6379/9 \\
        .venv/bin/python -m bench.http.inprocess [--n 2000] [--profile 30]
    ... -m bench.http.inprocess --create ended             # time POST /api/games instead
    ... -m bench.http.inprocess --doors http,socket --n 500  # `make bench-socketmove`

It migrates the database, makes one player with a token and a started Marathon game, then
toggles a flag on a closed cell, through one door or both:

* http: `POST /api/games/{id}/flag` through Django's WSGI handler, no HTTP server: middleware,
  DRF, token auth, throttling, validation, the rules, the row lock, the update and the insert,
  the publish on the channel layer, the JSON answer. `--create ended|untapped` times
  `POST /api/games` instead: a new Beginner game when the player's last one has ended (the
  common case), or when it is still untapped (the server discards it);
* socket: `{"action": "flag", ...}` frames on `/ws/games/{id}` through the ASGI application
  (the socket's sign-in middleware with the token, the caps, the consumer, its database thread
  with DB_POOL=1 as the live process runs it, the publish, and the `move` event coming back
  through Redis to the socket), driven by channels' test communicator, no uvicorn. It needs
  DATABASE_URL (PostgreSQL) and REDIS_URL.

One door: in this process, 200 moves of warm-up, then --rounds rounds of --n moves; the median
per move of CPU and wall time; `--profile K` then adds the K functions with the most cumulative
time under cProfile (its overhead inflates every figure: read it as shares, not times). Both
doors: each round runs each door in a child process of its own, configured as production runs
that door (the socket on the pool, HTTP on a persistent connection), HTTP then socket; the
median per move of each, and the ratio socket / HTTP of the medians and of each round. Neither
door counts its server's own parsing (gunicorn's HTTP, uvicorn's WebSocket framing) nor the
race clock threads of a live process (not started here): `python -m bench.load.run --idle 6`
measures whole games on the servers.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import json
import os
import pstats
import subprocess
import sys
import time

from bench import cli
from bench.harness.clients import WsgiClient
from bench.harness.database import ROOT, setup_django
from bench.harness.report import load_average, say
from bench.harness.timing import CPU_AND_WALL, interleaved, median, ratios
from bench.seeding import kept_player_with_a_game, middle_closed_cell

WARMUP = 200


def setup(door: str) -> None:
    """Django as production runs `door`: the live process on the pool, the WSGI workers on
    persistent connections; the throttles out of the way."""
    env = {
        "LOG_LEVEL": os.environ.get("LOG_LEVEL", "WARNING"),
        # The ASGI application starts the race clock (and the analysis worker) at its first
        # connection when no lifespan did: their ticks are not a move's cost.
        "RACE_CLOCK": "off",
        "WS_MESSAGES_PER_SECOND": "100000000",
        "WS_MESSAGES_BURST": "100000000",
        "WS_MAX_SOCKETS_PER_ADDRESS": "0",
        "WS_MAX_SOCKETS_PER_USER": "0",
        "CHANNELS_PREFIX": f"inproc{os.getpid()}",
        "THROTTLE_ANON": "100000000/min",
        "THROTTLE_USER": "100000000/min",
    }
    if door == "socket":
        env["DB_POOL"] = "1"
    setup_django(env, drop=("DB_POOL",))


def http_door(args: argparse.Namespace) -> dict[str, list[float]]:
    """CPU and wall µs a request, one value a round."""
    from django.db import connection

    from accounts.services import token_issue

    user, game = kept_player_with_a_game("inprocess-bench", "marathon", (40, 20))
    x, y = middle_closed_cell(game)
    _, token = token_issue(user=user, name="inprocess")
    client = WsgiClient()
    path, body = f"/api/games/{game.id}/flag", json.dumps({"x": x, "y": y}).encode()
    if args.create:
        path, body = "/api/games", json.dumps({"level": "beginner"}).encode()

    def between() -> None:
        """Untimed, before each creation: with `--create ended`, the last game ends."""
        if args.create == "ended":
            with connection.cursor() as cursor:
                cursor.execute(
                    "UPDATE games_game SET state = 'lost' WHERE player_id = %s AND state = 'new'",
                    [user.pk],
                )

    def move(_: object = None) -> None:
        client.post(path, body, token)

    def said(done: int, so_far: dict[str, dict[str, list[float]]]) -> None:
        cpu, wall = so_far["cpu"]["http"][-1], so_far["wall"]["http"][-1]
        say(f"  round {done}/{args.rounds}: cpu {cpu * 1e6:.0f} µs, wall {wall * 1e6:.0f} µs each")

    case = (between, move) if args.create else move
    timed = interleaved(
        {"http": case},
        args.rounds,
        calls=args.n,
        warmup=WARMUP,
        clocks=CPU_AND_WALL,
        on_round=said,
    )
    say(f"answers: {dict(client.statuses)}")
    if args.profile:
        profiler = cProfile.Profile()
        profiler.enable()
        for _ in range(args.n):
            move()
        profiler.disable()
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(args.profile)
        say(out.getvalue())
    return {clock: [v * 1e6 for v in timed[clock]["http"]] for clock in timed}


def socket_door(args: argparse.Namespace) -> dict[str, list[float]]:
    """CPU and wall µs a move over the socket, one value a round."""
    from channels.testing import WebsocketCommunicator

    from accounts.services import token_issue
    from demineur_site.asgi import application

    user, game = kept_player_with_a_game("socketmove-socket", "marathon", (40, 20))
    x, y = middle_closed_cell(game)
    _, token = token_issue(user=user, name="socketmove")
    frame = json.dumps({"action": "flag", "x": x, "y": y})
    answers: dict[str, int] = {}
    out: dict[str, list[float]] = {"cpu": [], "wall": []}

    async def moves() -> None:
        comm = WebsocketCommunicator(
            application,
            f"/ws/games/{game.id}",
            headers=[(b"authorization", f"Token {token}".encode())],
        )
        ok, _ = await comm.connect(timeout=30)
        assert ok, "the socket was refused"
        state = json.loads(await comm.receive_from(timeout=30))
        assert state["type"] == "state", state

        async def batch(count: int) -> tuple[float, float]:
            c0, w0 = time.process_time(), time.perf_counter()
            for _ in range(count):
                await comm.send_to(text_data=frame)
                answer = json.loads(await comm.receive_from(timeout=30))
                answers[answer["type"]] = answers.get(answer["type"], 0) + 1
            return (time.process_time() - c0) / count, (time.perf_counter() - w0) / count

        await batch(WARMUP)
        for done in range(1, args.rounds + 1):
            cpu, wall = await batch(args.n)
            out["cpu"].append(cpu * 1e6)
            out["wall"].append(wall * 1e6)
            say(
                f"  round {done}/{args.rounds}: cpu {cpu * 1e6:.0f} µs, wall {wall * 1e6:.0f} µs each"
            )
        await comm.disconnect()

    asyncio.run(moves())
    say(f"answers: {answers}")
    return out


def one_door(args: argparse.Namespace, door: str) -> dict[str, list[float]]:
    setup(door)
    return socket_door(args) if door == "socket" else http_door(args)


def both_doors(args: argparse.Namespace) -> None:
    """Each round: HTTP, then the socket, each in a fresh child process."""
    cpu: dict[str, list[float]] = {"http": [], "socket": []}
    for r in range(args.rounds):
        for door in ("http", "socket"):
            done = subprocess.run(
                [sys.executable, "-m", "bench.http.inprocess", "--doors", door, "--rounds", "1",
                 "--n", str(args.n), "--child"],
                cwd=ROOT, capture_output=True, text=True, check=True,
            )  # fmt: skip
            cpu[door] += json.loads(done.stdout.strip().splitlines()[-1])["cpu"]
        say(
            f"  round {r + 1}/{args.rounds}: HTTP {cpu['http'][-1]:.0f} µs, socket "
            f"{cpu['socket'][-1]:.0f} µs of CPU a move"
        )
    s, h = median(cpu["socket"]), median(cpu["http"])
    each = " / ".join(f"{x:.2f}" for x in ratios(cpu["socket"], cpu["http"]))
    say(
        f"median of {args.rounds} rounds of {args.n} flag moves: socket {s:.0f} µs, HTTP "
        f"{h:.0f} µs of CPU a move; socket / HTTP {s / h:.2f} (per round {each}; "
        f"load {load_average()})"
    )


def main() -> None:
    parser = cli.parser(__doc__)
    parser.add_argument("--doors", default="http", help="http, socket or http,socket (http)")
    parser.add_argument("--n", type=int, default=2000, help="moves per round (2000)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds (5)")
    parser.add_argument("--profile", type=int, default=0, help="print the top K of a profile")
    parser.add_argument("--create", choices=["ended", "untapped"], help="time POST /api/games")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    doors = [d for d in args.doors.split(",") if d]
    if "socket" in doors and not (
        os.environ.get("DATABASE_URL", "").startswith("postgres") and os.environ.get("REDIS_URL")
    ):
        say("bench/http/inprocess: the socket door needs DATABASE_URL (PostgreSQL) and REDIS_URL")
        return
    if len(doors) > 1:
        both_doors(args)
        return
    result = one_door(args, doors[0])
    if args.child:  # its figures as the last line, for the parent
        say(json.dumps(result))
        return
    what = f"creations (the last game {args.create})" if args.create else f"{doors[0]} flag moves"
    say(
        f"median of {args.rounds} rounds of {args.n} {what}: cpu {median(result['cpu']):.0f} µs "
        f"each, wall {median(result['wall']):.0f} µs each (load {load_average()})"
    )


if __name__ == "__main__":
    main()
