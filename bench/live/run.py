"""Live updates benchmark: delivery latency to 1, 100 and 1,000 watchers, and moves per second
over HTTP (with and without publishing, gunicorn and uvicorn) and over the socket.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/demineur REDIS_URL=redis://127.0.0.1:6379/0 \\
        .venv/bin/python -m bench.live.run            # `make bench` runs exactly this
    ... -m bench.live.run --quick                     # fewer moves, shorter runs

It runs the production layout of docs/LIVE.md on this machine: gunicorn sync workers serve the
REST API, uvicorn workers serve /ws/, both on PostgreSQL and Redis. It works in its own
database (DATABASE_URL's name + "_bench", created and emptied here; BENCH_DATABASE_URL to
choose another) and its own channel prefix, on ports 18150-18199, and stops every server it
started. Without PostgreSQL and Redis there is nothing to measure across processes: it says
so and exits.

Delivery latency: one player flags and unflags a cell through HTTP at a steady pace while N
anonymous watchers follow the game; for every (move, watcher) pair, the time from the HTTP
answer reaching the player to the `move` frame reaching the watcher. Moves/s: wrk -t2 -c32
(bench/harness/move.lua; a Python client if wrk is missing) on POST /flag over 200 games, then
32 players in a closed loop over their sockets (send a move, wait for its `move` event, repeat).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import random
import resource
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

from bench import cli
from bench.harness import clients
from bench.harness.clients import HOST, Delivered, Frame, open_socket, open_watchers
from bench.harness.report import say, show, table
from bench.harness.servers import Stack
from bench.harness.timing import median, percentile
from bench.seeding import Player, players_with_started_games

PORTS = range(18150, 18200)
PLAYERS = 232
SOCKET_PLAYERS = 32  # 32 players in a closed loop over their sockets, like wrk's 32 connections
GOAL_P99_MS = 50.0
WORKERS = 2


# --- 1. delivery latency ----------------------------------------------------------------------


@dataclass
class Delivery:
    watchers: int
    moves: int
    samples: int
    missing: int
    out_of_order: int
    p50_answer: float
    p99_answer: float
    max_answer: float
    p50_sent: float
    p99_sent: float
    connect_s: float
    round_p99s: list[float] = field(default_factory=list)


async def delivery(
    ws_port: int, http_port: int, player: Player, n: int, moves: int, gap: float
) -> Delivery:
    say(f"  {n} watcher(s): connecting")
    watchers, connect_s = await open_watchers(ws_port, [f"/ws/games/{player.game_id}"] * n)
    sent: dict[int, tuple[float, float]] = {}
    gc.collect()
    gc.disable()  # a collection of the client's frames list would delay its timestamps
    say(f"  {n} watcher(s): {moves} moves, one every {gap * 1000:.0f} ms")
    for i in range(moves):
        seq, t_sent, t_answer = await clients.flag_move(
            http_port, player.game_id, player.token, x=player.x, y=player.y
        )
        sent[seq] = (t_sent, t_answer)
        if (i + 1) % 25 == 0:
            say(f"    {i + 1}/{moves} moves")
        await asyncio.sleep(gap)
    await asyncio.sleep(1.0)  # the last frames on their way
    gc.enable()
    delivered = Delivered()
    for sock in watchers:
        delivered.add(sock.frames, sent)
        sock.close()
    await asyncio.sleep(0.5)
    return Delivery(
        watchers=n,
        moves=moves,
        samples=len(delivered.from_answer),
        missing=delivered.missing,
        out_of_order=delivered.out_of_order,
        p50_answer=percentile(delivered.from_answer, 50),
        p99_answer=percentile(delivered.from_answer, 99),
        max_answer=max(delivered.from_answer),
        p50_sent=percentile(delivered.from_sent, 50),
        p99_sent=percentile(delivered.from_sent, 99),
        connect_s=connect_s,
    )


# --- 2. moves per second over HTTP --------------------------------------------------------------


@dataclass
class Throughput:
    label: str
    runs: list[float]
    p50_ms: float
    p99_ms: float
    errors: int

    @property
    def median(self) -> float:
        return median(self.runs)


Measured = tuple[float, float, float, int]  # moves/s, p50 ms, p99 ms, failed


async def python_run(port: int, players: list[Player], seconds: int) -> Measured:
    """Without wrk: 32 closed-loop connections (costs more client CPU)."""
    latencies: list[float] = []
    errors = 0
    end = time.perf_counter() + seconds

    async def loop() -> None:
        nonlocal errors
        while time.perf_counter() < end:
            p = random.choice(players)
            t = time.perf_counter()
            status, _ = await clients.http_post(
                HOST, port, f"/api/games/{p.game_id}/flag", p.token, {"x": p.x, "y": p.y}
            )
            latencies.append((time.perf_counter() - t) * 1000)
            errors += status != 200

    await asyncio.gather(*(loop() for _ in range(32)))
    return len(latencies) / seconds, percentile(latencies, 50), percentile(latencies, 99), errors


async def http_run(port: int, moves: Path, players: list[Player], seconds: int) -> Measured:
    """One measurement: wrk when installed (in a thread: the watchers' sockets keep reading
    meanwhile), else the Python client."""
    if not shutil.which("wrk"):
        return await python_run(port, players, seconds)
    run = await asyncio.to_thread(
        clients.wrk,
        f"http://{HOST}:{port}/",
        threads=2,
        conns=32,
        seconds=seconds,
        script=clients.MOVE_LUA,
        script_args=["flag", str(moves), "2"],
    )
    return run.rps, run.p50, run.p99, run.non2xx


# --- 3. moves per second over the socket --------------------------------------------------------


@dataclass
class _Round:
    start: asyncio.Event
    end: float = 0.0
    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    stalls: int = 0


async def _play_over_socket(ws_port: int, p: Player, round_: _Round) -> None:
    """One player in a closed loop: send a flag toggle, wait for its `move` event, repeat."""
    waiting: list[asyncio.Future[Frame]] = []

    def on_frame(frame: Frame) -> None:
        # The answer is the `move` event, an `error`, or a fresh `state` when the consumer had
        # to re-read the game (an event was lost on the way).
        if waiting and not waiting[0].done() and frame[1] in ("move", "error", "state"):
            waiting[0].set_result(frame)

    sock = await open_socket(HOST, ws_port, f"/ws/games/{p.game_id}?token={p.token}", on_frame)
    await sock.snapshot()
    await round_.start.wait()
    loop = asyncio.get_running_loop()
    while time.perf_counter() < round_.end:
        waiting[:] = [loop.create_future()]
        t = time.perf_counter()
        sock.send_json({"action": "flag", "x": p.x, "y": p.y})
        try:
            frame = await asyncio.wait_for(waiting[0], 10)
        except TimeoutError:
            round_.stalls += 1
            continue
        round_.latencies.append((time.perf_counter() - t) * 1000)
        round_.errors += frame[1] != "move"
    sock.close()


async def socket_run(ws_port: int, players: list[Player], seconds: int) -> Measured:
    """One measurement: 32 players in a closed loop over their sockets for `seconds`, after a
    second of warm-up."""
    round_ = _Round(start=asyncio.Event())
    tasks = [asyncio.create_task(_play_over_socket(ws_port, p, round_)) for p in players]
    await asyncio.sleep(1.0)  # the sockets open
    round_.end = time.perf_counter() + 1.0 + seconds
    round_.start.set()
    await asyncio.sleep(1.0)  # warm-up, not counted
    counted_from = len(round_.latencies)
    t0 = time.perf_counter()
    await asyncio.gather(*tasks)
    elapsed = time.perf_counter() - t0
    latencies = round_.latencies[counted_from:]
    failed = round_.errors + round_.stalls
    return len(latencies) / elapsed, percentile(latencies, 50), percentile(latencies, 99), failed


# --- the parts ----------------------------------------------------------------------------------


async def latency_part(
    args: argparse.Namespace, stack: Stack, players: list[Player]
) -> list[Delivery]:
    """Rounds of each watcher count in turn (1, 100, 1000, 1, 100, 1000, ...): the machine is
    shared and noisy, so the rounds of one count are spread over the whole part."""
    counts = [int(n) for n in args.watchers.split(",")]
    rounds: dict[int, list[Delivery]] = {n: [] for n in counts}
    http = stack.server("gunicorn", workers=WORKERS)
    ws = stack.server("uvicorn", workers=WORKERS)
    try:
        http.wait_ready()
        ws.wait_ready()
        for r in range(args.runs):
            for n in counts:
                gap = 0.1 if n >= 500 else 0.03
                say(f"  round {r + 1}/{args.runs}, {n} watcher(s)")
                d = await delivery(ws.port, http.port, players[0], n, args.moves, gap)
                rounds[n].append(d)
                say(f"  -> p50 {d.p50_answer:.1f} ms, p99 {d.p99_answer:.1f} ms")
    finally:
        http.stop()
        ws.stop()
    medians = []
    for n in counts:
        ordered = sorted(rounds[n], key=lambda d: d.p99_answer)
        middle = ordered[len(ordered) // 2]
        middle.round_p99s = [d.p99_answer for d in rounds[n]]
        medians.append(middle)
    return medians


async def throughput_part(
    args: argparse.Namespace, stack: Stack, players: list[Player]
) -> list[Throughput]:
    """Every configuration runs at once on its own port; runs go round-robin so that noise
    from the shared machine falls on all of them alike."""
    # Separate games for the socket players and for HTTP: a request still running when wrk
    # stops (it is not waited for) would otherwise move a socket player's game behind its back.
    on_socket, players = players[:SOCKET_PLAYERS], players[SOCKET_PLAYERS:]
    moves = stack.logs / "flags.txt"
    moves.write_text("".join(f"{p.game_id} {p.token} {p.x} {p.y}\n" for p in players))
    servers = {
        "gunicorn 2w, publish": stack.server("gunicorn", workers=WORKERS),
        "gunicorn 2w, no publish": stack.server("gunicorn", workers=WORKERS, publish=False),
        "uvicorn 2w, publish": stack.server("uvicorn", workers=WORKERS),
        "uvicorn 2w, no publish": stack.server("uvicorn", workers=WORKERS, publish=False),
    }
    watch = stack.server("uvicorn", workers=WORKERS)
    socket_label = "uvicorn 2w, moves over the socket (32 players)"
    watched_label = f"gunicorn 2w, publish, {len(players)} watchers on uvicorn 2w"
    labels = [*servers, socket_label, watched_label]
    results: dict[str, list[Measured]] = {label: [] for label in labels}
    try:
        for server in [*servers.values(), watch]:
            server.wait_ready()
        for server in servers.values():
            await http_run(server.port, moves, players, 2)  # warm-up: pools, caches
        await socket_run(servers["uvicorn 2w, publish"].port, on_socket, 2)
        for r in range(args.runs):
            for label in labels:
                if label == socket_label:
                    result = await socket_run(
                        servers["uvicorn 2w, publish"].port, on_socket, args.seconds
                    )
                elif label == watched_label:
                    watchers = [
                        await open_socket(HOST, watch.port, f"/ws/games/{p.game_id}")
                        for p in players
                    ]
                    port = servers["gunicorn 2w, publish"].port
                    result = await http_run(port, moves, players, args.seconds)
                    for sock in watchers:
                        sock.close()
                else:
                    result = await http_run(servers[label].port, moves, players, args.seconds)
                results[label].append(result)
                say(f"  run {r + 1}/{args.runs}: {label}: {result[0]:.0f} moves/s")
    finally:
        for server in [*servers.values(), watch]:
            server.stop()
    out = []
    for label in labels:
        runs = results[label]
        middle = sorted(runs)[len(runs) // 2]
        out.append(
            Throughput(label, [r[0] for r in runs], middle[1], middle[2], sum(r[3] for r in runs))
        )
    return out


async def run(args: argparse.Namespace, stack: Stack, players: list[Player]) -> None:
    parts = set(args.parts.split(","))
    deliveries: list[Delivery] = []
    throughputs: list[Throughput] = []
    if "latency" in parts:
        say("\n1. Delivery latency (gunicorn 2w for HTTP + uvicorn 2w for /ws)")
        deliveries = await latency_part(args, stack, players)
    if "throughput" in parts:
        client = "wrk -t2 -c32" if shutil.which("wrk") else "a Python client, 32 connections"
        say(f"\n2. Moves per second: HTTP ({client}) and the socket (32 players)")
        throughputs = await throughput_part(args, stack, players)
    report(deliveries, throughputs, args)


def delivery_row(d: Delivery) -> list[str]:
    return [
        f"{d.watchers:,}",
        f"{d.samples:,}",
        str(d.missing),
        str(d.out_of_order),
        f"{d.p50_answer:.1f}",
        f"**{d.p99_answer:.1f}**",
        f"{d.max_answer:.1f}",
        " / ".join(f"{p:.1f}" for p in d.round_p99s),
        f"{d.p50_sent:.1f} / {d.p99_sent:.1f}",
        f"{d.connect_s:.1f} s",
    ]


def throughput_row(t: Throughput) -> list[str]:
    runs = " / ".join(f"{r:.0f}" for r in t.runs)
    return [
        f"{t.label}: **{t.median:.0f}**",
        runs,
        f"{t.p50_ms:.1f}",
        f"{t.p99_ms:.1f}",
        str(t.errors),
    ]


def report(
    deliveries: list[Delivery], throughputs: list[Throughput], args: argparse.Namespace
) -> None:
    say("\n## Results (paste into docs/PERFORMANCE.md, section Live)\n")
    if deliveries:
        head = ["watchers", "deliveries (median round)", "missing", "out of order", "p50 ms",
                "**p99 ms**", "max ms", "p99 of each round", "p50 / p99 from the request",
                "connect all"]  # fmt: skip
        show(table(head, [delivery_row(d) for d in deliveries], "rrrrrrrlrr"))
        big = [d for d in deliveries if d.watchers >= 1000]
        if big:
            verdict = "met" if big[0].p99_answer < GOAL_P99_MS else "NOT met"
            say(
                f"\nGoal p99 < {GOAL_P99_MS:.0f} ms at 1,000 watchers: {verdict} "
                f"({big[0].p99_answer:.1f} ms, median round of {args.runs})."
            )
    if throughputs:
        head = [f"moves/s ({args.runs} x {args.seconds} s, median)", "runs", "p50 ms", "p99 ms",
                "failed (non-2xx; socket: errors, re-reads, 10 s stalls)"]  # fmt: skip
        say("")
        show(table(head, [throughput_row(t) for t in throughputs]))


def main() -> None:
    parser = cli.parser(__doc__)
    parser.add_argument(
        "--watchers", default="1,100,1000", help="watcher counts (default 1,100,1000)"
    )
    parser.add_argument(
        "--moves", type=int, default=100, help="moves per watcher count (default 100)"
    )
    parser.add_argument(
        "--seconds", type=int, default=10, help="seconds per throughput run (default 10)"
    )
    parser.add_argument(
        "--runs", type=int, default=3, help="rounds per watcher count and per config (default 3)"
    )
    parser.add_argument(
        "--parts", default="latency,throughput", help="what to run (default latency,throughput)"
    )
    parser.add_argument("--quick", action="store_true", help="40 moves, 1 run of 4 s")
    args = parser.parse_args()
    if args.quick:
        args.moves, args.seconds, args.runs = 40, 4, 1

    stack = Stack.shared("live", ports=PORTS, prefix="bench")
    if stack is None:
        return
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 65536), hard))
    players = players_with_started_games(PLAYERS)
    asyncio.run(run(args, stack, players))


if __name__ == "__main__":
    main()
