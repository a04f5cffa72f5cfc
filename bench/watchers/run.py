"""Many watchers on one `live` process: how many sockets one uvicorn process
holds, what each costs in memory, and how long a move's push takes to reach them all.

    .venv/bin/python -m bench.watchers.run            # `make bench-watchers`: up to 10,000
    .venv/bin/python -m bench.watchers.run --quick    # up to 2,000, fewer rounds

Layout: gunicorn with 2 sync workers for the REST moves, and ONE uvicorn process (no
supervisor, so its pid is the process that holds the sockets) for /ws/, production settings
(DEBUG off, DB_POOL=1, the Redis Pub/Sub layer, the lifespan on: the race clock and the
analysis worker run in it as in a deployment). The watchers are anonymous sockets of the
benchmarks' small client (bench/harness/clients.py: no permessage-deflate, timestamps at
`data_received`), spread round-robin over --games started Expert games, and added in steps
(--steps). The bench raises its own open-files limit to the hard limit first (the server
inherits it) and says both.

At each step:

* memory: the uvicorn process's resident set (VmRSS) once every watcher of the step has its
  `state`, minus the same before the first socket; per socket = that difference / sockets;
* pushes: --rounds rounds, each one flag toggle in every game (POST /api/games/{id}/flag, 16
  at a time), so that every socket held gets one `move` frame a round; the bench waits until
  each has it (at most --wait seconds; later ones count as missing). Delivery = arrival of
  the frame at a watcher - arrival of the HTTP answer at the mover, over every (move, watcher)
  pair; "to all" = from the round's first move sent to the last frame of the round received;
  server CPU per frame = the uvicorn process's CPU over the rounds / frames delivered.

Database: DATABASE_URL's name + "_watchers_bench" (created, migrated and emptied); Redis:
REDIS_URL; ports 18800-18849. Results as a markdown table on stdout, JSON and the plots
(docs/perf/watchers_memory.png, docs/perf/watchers_push.png with --plots).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import resource
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench import cli
from bench.harness import clients
from bench.harness.clients import HOST, Delivered, RawSocket, open_socket, open_watchers
from bench.harness.report import Run, say, show, table
from bench.harness.servers import ROOT, Stack, sample
from bench.harness.timing import percentile, proc_cpu
from bench.seeding import Player, players_with_started_games

PORTS = range(18800, 18850)
DOCS = ROOT / "docs" / "perf"
Held = list[tuple[RawSocket, str]]  # each watcher's socket and the game it watches


def raise_open_files() -> tuple[int, int, int]:
    """The soft limit of open files raised to the hard one (inherited by the servers)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = hard if hard != resource.RLIM_INFINITY else 1_048_576
    resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return soft, target, hard


def rss_kb(pid: int) -> int:
    got = sample(pid)
    if got is None:
        raise RuntimeError(f"no VmRSS for {pid}")
    return got.rss_kb


@dataclass
class Step:
    sockets: int
    rss_kb: int
    kb_per_socket: float
    connect_s: float
    deliveries: int = 0
    missing: int = 0
    p50_ms: float = float("nan")
    p99_ms: float = float("nan")
    max_ms: float = float("nan")
    p99_sent_ms: float = float("nan")
    to_all_ms: list[float] = field(default_factory=list)
    round_p99s: list[float] = field(default_factory=list)
    server_cpu_us_per_frame: float = float("nan")


async def connect(port: int, players: list[Player], start: int, stop: int, held: Held) -> float:
    """Watchers start..stop-1, watcher i on game i % len(players)."""
    games = [players[i % len(players)].game_id for i in range(start, stop)]
    sockets, seconds = await open_watchers(
        port, [f"/ws/games/{g}" for g in games], at_once=64, every=1000
    )
    held += zip(sockets, games, strict=True)
    return seconds


async def push_round(
    http_port: int, players: list[Player], flagged: dict[str, bool]
) -> tuple[dict[tuple[str, int], tuple[float, float]], float]:
    """One flag toggle in every game; (game, seq) -> (sent, answered), and the first send."""
    gate = asyncio.Semaphore(16)
    sent: dict[tuple[str, int], tuple[float, float]] = {}
    first = time.perf_counter()

    async def one(p: Player) -> None:
        async with gate:
            flagged[p.game_id] = not flagged.get(p.game_id, False)
            seq, t_sent, t_answer = await clients.flag_move(
                http_port, p.game_id, p.token, x=p.x, y=p.y, flagged=flagged[p.game_id]
            )
            sent[(p.game_id, seq)] = (t_sent, t_answer)

    await asyncio.gather(*(one(p) for p in players))
    return sent, first


async def measure_pushes(
    step: Step,
    http_port: int,
    ws_pid: int,
    players: list[Player],
    held: Held,
    rounds: int,
    flagged: dict[str, bool],
    wait_s: float,
) -> None:
    delivered = Delivered()
    cpu_before = proc_cpu(ws_pid)
    frames = 0
    for r in range(rounds):
        for sock, _ in held:
            del sock.frames[1:]  # keep the state; drop the frames of the previous round
        gc.collect()
        gc.disable()
        sent, first = await push_round(http_port, players, flagged)
        # Until every socket has its frame of the round (or --wait seconds: then it is
        # counted missing), so that a late frame is timed, not lost.
        deadline = time.perf_counter() + wait_s
        while time.perf_counter() < deadline and any(len(sock.frames) < 2 for sock, _ in held):
            await asyncio.sleep(0.1)
        await asyncio.sleep(0.2)
        gc.enable()
        last = first
        round_values: list[float] = []
        by_game: dict[str, dict[int, tuple[float, float]]] = {}
        for (g, seq), times in sent.items():
            by_game.setdefault(g, {})[seq] = times
        for sock, game in held:
            moves = by_game.get(game, {})
            round_values += delivered.add(sock.frames[1:], moves)
            for t, kind, seq in sock.frames[1:]:
                if kind == "move" and seq in moves:
                    last = max(last, t)
        frames += len(round_values)
        step.round_p99s.append(round(percentile(round_values, 99), 1))
        step.to_all_ms.append(round((last - first) * 1000, 1))
        say(
            f"    round {r + 1}/{rounds}: {len(round_values):,} deliveries, p99 "
            f"{percentile(round_values, 99):.1f} ms, all {len(held):,} reached in "
            f"{(last - first) * 1000:.0f} ms"
        )
    cpu = proc_cpu(ws_pid) - cpu_before
    from_answer = delivered.from_answer
    step.deliveries = len(from_answer)
    step.missing = delivered.missing
    step.p50_ms = round(percentile(from_answer, 50), 1)
    step.p99_ms = round(percentile(from_answer, 99), 1)
    step.max_ms = round(max(from_answer), 1) if from_answer else float("nan")
    step.p99_sent_ms = round(percentile(delivered.from_sent, 99), 1)
    step.server_cpu_us_per_frame = round(cpu / frames * 1e6, 1) if frames else float("nan")


def plots(steps: list[Step], baseline_kb: int) -> list[Path]:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        say("  (matplotlib is not installed: no plots)")
        return []
    DOCS.mkdir(parents=True, exist_ok=True)
    xs = [0] + [s.sockets for s in steps]
    fig, ax = plt.subplots(figsize=(6, 3.6))
    ax.plot(xs, [baseline_kb / 1024] + [s.rss_kb / 1024 for s in steps], marker="o")
    ax.set_xlabel("sockets held by one uvicorn process")
    ax.set_ylabel("resident memory (MiB)")
    ax.set_title("Sockets held vs memory (bench/watchers)")
    for s in steps:
        ax.annotate(f"{s.kb_per_socket:.1f} KB/socket", (s.sockets, s.rss_kb / 1024), fontsize=7)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    memory = DOCS / "watchers_memory.png"
    fig.savefig(memory, dpi=110)
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(6, 3.6))
    sockets = [s.sockets for s in steps]
    ax.plot(sockets, [s.p99_ms for s in steps], marker="o", label="delivery p99")
    ax.plot(sockets, [s.p50_ms for s in steps], marker="o", label="delivery p50")
    ax.plot(
        sockets,
        [sorted(s.to_all_ms)[len(s.to_all_ms) // 2] for s in steps],
        marker="s",
        label="a round reaches every socket (median)",
    )
    ax.axhline(150, color="grey", linestyle="--", linewidth=0.8, label="goal p99 150 ms")
    ax.set_xlabel("watchers held (one move in each of the games a round)")
    ax.set_ylabel("ms")
    ax.set_title("Watchers vs push latency (bench/watchers)")
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    push = DOCS / "watchers_push.png"
    fig.savefig(push, dpi=110)
    plt.close(fig)
    return [memory, push]


async def run(args: argparse.Namespace, stack: Stack, players: list[Player]) -> dict[str, Any]:
    rest = stack.server("gunicorn")
    ws_args = ["--backlog", "4096", *(["--ws", args.ws] if args.ws else [])]
    ws = stack.server("uvicorn", workers=None, lifespan=True, args=ws_args)
    held: Held = []
    steps: list[Step] = []
    try:
        rest.wait_ready()
        ws.wait_ready()
        # One socket opened and closed first, so that the baseline has the socket code loaded.
        warm = await open_socket(HOST, ws.port, f"/ws/games/{players[0].game_id}")
        await asyncio.sleep(0.3)
        warm.close()
        await asyncio.sleep(1.0)
        baseline = rss_kb(ws.pid)
        say(f"  uvicorn pid {ws.pid}: {baseline / 1024:.1f} MiB before any watcher")
        flagged: dict[str, bool] = {}
        opened = 0
        for target in args.steps:
            say(f"  step: {target:,} sockets")
            connect_s = await connect(ws.port, players, opened, target, held)
            opened = target
            await asyncio.sleep(1.0)
            rss = rss_kb(ws.pid)
            step = Step(
                sockets=len(held),
                rss_kb=rss,
                kb_per_socket=round((rss - baseline) / len(held), 2),
                connect_s=round(connect_s, 1),
            )
            say(
                f"    {len(held):,} sockets: RSS {rss / 1024:.1f} MiB, "
                f"{step.kb_per_socket:.1f} KB a socket (connected in {connect_s:.1f} s)"
            )
            await measure_pushes(
                step, rest.port, ws.pid, players, held, args.rounds, flagged, args.wait
            )
            steps.append(step)
    finally:
        for sock, _ in held:
            sock.close()
        rest.stop()
        ws.stop()
    return {"baseline_kb": baseline, "steps": [s.__dict__ for s in steps]}


def report(result: dict[str, Any], args: argparse.Namespace) -> None:
    head = ["sockets", "RSS MiB", "KB / socket", "connect s", "deliveries", "missing", "p50 ms",
            "**p99 ms**", "max ms", "p99 of each round", "a round reaches all, ms (each round)",
            "server CPU µs / frame"]  # fmt: skip
    rows: list[list[object]] = []
    for s in result["steps"]:
        rows.append([f"{s['sockets']:,}", f"{s['rss_kb'] / 1024:.1f}", f"{s['kb_per_socket']:.1f}",
                     s["connect_s"], f"{s['deliveries']:,}", s["missing"], s["p50_ms"],
                     f"**{s['p99_ms']}**", s["max_ms"], " / ".join(map(str, s["round_p99s"])),
                     " / ".join(map(str, s["to_all_ms"])), s["server_cpu_us_per_frame"]])  # fmt: skip
    nofile, run = result["nofile"], result["run"]
    say("\n## Results (docs/PERFORMANCE.md)\n")
    say(
        f"{args.games} games, {args.rounds} rounds a step; uvicorn RSS before any watcher "
        f"{result['baseline_kb'] / 1024:.1f} MiB; open files: soft limit {nofile[0]} "
        f"raised to {nofile[1]} (hard {nofile[2]}); load average before "
        f"{run['load_before']}, after {run['load_after']}.\n"
    )
    show(table(head, rows, "rrrrrrrrrllr"))
    last = result["steps"][-1] if result["steps"] else None
    if last is not None:
        memory = "met" if last["kb_per_socket"] < 30 else "NOT met"
        push = "met" if last["p99_ms"] < 150 else "NOT met"
        say(
            f"\nGoal memory per socket < 30 KB at {last['sockets']:,}: {memory} "
            f"({last['kb_per_socket']:.1f} KB). Goal push p99 < 150 ms to all: {push} "
            f"({last['p99_ms']} ms)."
        )


def main() -> None:
    parser = cli.parser(__doc__)
    parser.add_argument("--games", type=int, default=100, help="games watched (100)")
    parser.add_argument(
        "--steps", default="1000,2500,5000,7500,10000", help="sockets held at each step"
    )
    parser.add_argument("--rounds", type=int, default=5, help="push rounds a step (5)")
    parser.add_argument(
        "--wait", type=float, default=30, help="longest wait for a round's frames (30 s)"
    )
    parser.add_argument("--quick", action="store_true", help="steps 500,2000, 2 rounds")
    parser.add_argument(
        "--ws", help="uvicorn's --ws (WebSocket implementation); default: the production one"
    )
    parser.add_argument("--plots", action="store_true", help="write docs/perf/watchers_*.png")
    parser.add_argument("--json", type=Path, help="also write the results there")
    args = parser.parse_args()
    if args.quick:
        args.steps, args.rounds = "500,2000", 2
    args.steps = [int(s) for s in str(args.steps).split(",")]
    nofile = raise_open_files()
    if nofile[1] < max(args.steps) + 1000:
        say(f"bench/watchers: the open-files limit ({nofile[1]}) is below the sockets asked for")
        args.steps = [s for s in args.steps if s + 1000 <= nofile[1]]
    stack = Stack.shared(
        "watchers", ports=PORTS, prefix="wbench", suffix="_watchers_bench", env=None
    )
    if stack is None:
        return
    say(f"  open files: soft limit {nofile[0]} -> {nofile[1]} (hard {nofile[2]})")
    players = players_with_started_games(args.games)
    from django.db import connections

    connections.close_all()
    record = Run("watchers")
    # Plain asyncio: the small client wants asyncio's own transports (not uvloop's).
    result = asyncio.run(run(args, stack, players))
    payload = record.write({"nofile": nofile, **result}, stack.logs / "results.json", args.json)
    report(payload, args)
    if args.plots and result["steps"]:
        for path in plots([Step(**s) for s in result["steps"]], result["baseline_kb"]):
            say(f"plot: {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
