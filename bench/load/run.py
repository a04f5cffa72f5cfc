"""Load benchmark: N solver bots play whole games through the public API for a bounded time,
over HTTP and over the game socket, against the production layout.

    .venv/bin/python -m bench.load.run                     # `make bench-load`: both transports,
                                                           # 32 players, 2 workers, 20 s each
    .venv/bin/python -m bench.load.run --seconds 5 --players 8 --transport http
    .venv/bin/python -m bench.load.run --rounds 3 --idle 6 --seconds 15
                                                           # `make bench-socketmove`: server CPU
                                                           # per move, socket against HTTP
    .venv/bin/python -m bench.load.curve ...               # the scaling curve (its own --help)

Layout (bench/harness/servers.py's Stack, with W workers): gunicorn with W sync workers for the
REST API (persistent database connections, its access log to a file as `make serve-prod`
writes it), uvicorn with W workers for /ws/ (lifespan on, so the race clock thread runs in
each, DB_POOL=1), DEBUG off, PostgreSQL and Redis; live events published. Differences from a
deployment, all for a load generator on one address: the throttles are raised (DRF's and the
socket's messages per second) and the socket caps are off; no Caddy in front. Database
`demineur_load_bench` (created, migrated and emptied here; BENCH_LOAD_DATABASE_URL for another
one whose name ends in _bench), Redis db 11 (BENCH_LOAD_REDIS_URL), ports 18700-18749.

Accounts: --api-accounts of them sign up and sign in through the API before the timed part
(their latencies are reported; each costs two PBKDF2 hashes, about 0.3 s of CPU apiece), the
rest are made directly in the database (kind bot, an API token each), so that a 128-player
run does not spend a minute hashing passwords.

Each bot (bench/load/bots.py) loops: create a game (a level of --levels), play it to its end
with the solver, start the next. The first --warmup seconds are not counted; then for
--seconds: games and moves per second, p50 / p95 / p99 per action (create, the socket's
connect, the first reveal, reveal, flag, chord), errors by kind, and CPU per move (utime +
stime from /proc) of the REST server's and the socket server's process groups, of this
database's PostgreSQL backends and of every PostgreSQL process, of redis-server, of the load
generator itself and of the whole machine. PostgreSQL's background processes and Redis are
shared with whatever else runs on the machine.

Server CPU per move, socket against HTTP (--idle, --rounds): before each timed part, --idle
seconds with no player measure the CPU each server spends anyway (the race and daily clocks and
the analysis worker run in every uvicorn process, ten ticks a second), which is then taken off,
so that a slow run (other work on the machine, fewer moves a second) does not spread that fixed
cost over fewer moves; HTTP and the socket alternate --rounds times on the same servers, and the
ratio is taken in each round. "Server CPU per move" is the CPU of both server groups (a socket
game is still created over REST) per move, without their idle CPU; the serving server's alone
is shown beside it.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench import cli
from bench.harness.clients import Account, api_json
from bench.harness.database import create_database, name_of, on_database_server
from bench.harness.report import Run, load_average, say, show, table
from bench.harness.servers import AppServer, Stack
from bench.harness.timing import CpuMeter, figures, median, ratios, wait_for_quiet
from bench.seeding import bot_accounts

from .bots import ACTIONS, MOVE_ACTIONS, Load, Stats, bot

PORTS = range(18700, 18750)
DATABASE = "demineur_load_bench"
REDIS_URL = "redis://127.0.0.1:6379/11"
LEVELS = "beginner,intermediate,expert"
PASSWORD = "load-Bench-pass-7q4!"
CPU_LABELS = {
    "rest": "REST server (gunicorn)",
    "ws": "socket server (uvicorn)",
    "pg": "PostgreSQL, this database's backends",
    "pg_all": "PostgreSQL, all processes",
    "redis": "redis-server",
    "generator": "load generator (this process)",
    "machine": "whole machine",
}
# One bot plays far faster than a person: the socket's message throttle is raised too.
SOCKET_THROTTLE = {"WS_MESSAGES_PER_SECOND": "100000", "WS_MESSAGES_BURST": "100000"}


def prepare(args: argparse.Namespace) -> Stack | None:
    """The run's Stack (its database made, migrated and emptied, Django set up on it here);
    None when PostgreSQL or Redis cannot be reached (the bench is skipped)."""
    import psycopg
    import redis

    url = args.database_url or on_database_server(DATABASE, env="BENCH_LOAD_DATABASE_URL")
    redis_url = args.redis_url or os.environ.get("BENCH_LOAD_REDIS_URL", REDIS_URL)
    suffixes = ("_bench", "_test")  # _test: tests/bench's database
    try:
        create_database(url, suffixes=suffixes)
        redis.Redis.from_url(redis_url).ping()
    except (psycopg.OperationalError, redis.RedisError) as exc:
        say(f"bench/load: skipped, PostgreSQL or Redis unreachable ({exc}).")
        return None
    stack = Stack.prepare(
        "load",
        url,
        redis_url,
        ports=PORTS,
        prefix="lbench",
        extra=SOCKET_THROTTLE,
        suffixes=suffixes,
    )
    stack.metrics_dir = getattr(args, "metrics_dir", None)
    return stack


def ready(args: argparse.Namespace, name: str) -> tuple[Stack, str, Run] | None:
    """`prepare`, then the wait for a quiet machine that --load-wait asks for: the Stack, its
    database's name and the record of the bench `name`, or None (the bench is skipped)."""
    stack = prepare(args)
    if stack is None:
        return None
    if args.load_wait:
        wait_for_quiet(1.0, args.load_wait)
    return stack, name_of(stack.database_url), Run(name)


# --- accounts -------------------------------------------------------------------------------------


@dataclass
class Accounts:
    accounts: list[Account]
    signup_ms: list[float] = field(default_factory=list)
    signin_ms: list[float] = field(default_factory=list)


def make_accounts(http_port: int, count: int, through_api: int) -> Accounts:
    """`count` bot accounts: the first `through_api` signed up and in through the API (timed),
    the others made in the database with a token each."""
    from django.db import connections

    out = Accounts([])
    through_api = min(through_api, count)
    for i in range(through_api):
        name = f"lapi{i}"
        t = time.perf_counter()
        status, body = api_json(
            http_port,
            "POST",
            "/api/auth/register",
            {"username": name, "password": PASSWORD, "kind": "bot"},
        )
        out.signup_ms.append((time.perf_counter() - t) * 1000)
        if status != 201:
            raise SystemExit(f"sign-up of {name}: {status} {body}")
        t = time.perf_counter()
        status, body = api_json(
            http_port, "POST", "/api/auth/token", {"username": name, "password": PASSWORD}
        )
        out.signin_ms.append((time.perf_counter() - t) * 1000)
        if status != 200:
            raise SystemExit(f"sign-in of {name}: {status} {body}")
        out.accounts.append(Account(name, body["token"]))
    out.accounts += bot_accounts(count - through_api, "lbot")
    connections.close_all()
    signup, signin = figures(out.signup_ms)["p50_ms"], figures(out.signin_ms)["p50_ms"]
    say(
        f"  {count} bot accounts: {through_api} through the API (sign-up p50 {signup:.0f} ms, "
        f"sign-in p50 {signin:.0f} ms), {count - through_api} made in the database"
    )
    return out


# --- one measurement ------------------------------------------------------------------------------


def move_figures(values: list[float]) -> dict[str, Any]:
    return figures(values, (50, 95, 99))


async def measure(
    rest: AppServer,
    ws: AppServer,
    accounts: list[Account],
    options: argparse.Namespace,
    *,
    transport: str,
    players: int,
    seed: int = 0,
    database: str = DATABASE,
) -> dict[str, Any]:
    """`players` bots for warmup + seconds; the figures of the counted `seconds`. The warm-up,
    the seconds, the levels and the think time are `options`' (add_common_arguments': a run
    and every cell of the curve take them alike)."""
    seconds, warmup, think_ms = options.seconds, options.warmup, options.think_ms
    levels = tuple(options.levels.split(","))
    if players > len(accounts):
        raise SystemExit(f"{players} players but only {len(accounts)} accounts")
    before = load_average()
    stats = Stats()
    t0 = time.perf_counter()
    stats.start = t0 + warmup
    stats.end = stats.start + seconds
    load = Load(
        transport=transport,
        http_port=rest.port,
        ws_port=ws.port,
        levels=levels,
        stop_at=stats.end,
        stats=stats,
        think_s=think_ms / 1000,
    )
    tasks = [
        asyncio.create_task(bot(account, load, random.Random(seed * 1000 + i)))
        for i, account in enumerate(accounts[:players])
    ]
    meter = CpuMeter({"rest": rest.pid, "ws": ws.pid}, database)
    await asyncio.sleep(max(0.0, stats.start - time.perf_counter()))
    meter.start()
    last_print = time.perf_counter()
    done_at_print = stats.done
    while time.perf_counter() < stats.end:
        await asyncio.sleep(min(1.0, max(0.0, stats.end - time.perf_counter())))
        meter.sample()
        now = time.perf_counter()
        if now - last_print >= 3 or now >= stats.end:
            rate = (stats.done - done_at_print) / (now - last_print)
            say(
                f"    {now - stats.start:4.0f}/{seconds:.0f} s: {rate:6.0f} moves/s, "
                f"{stats.won + stats.lost} games ended, errors {sum(stats.errors.values())}"
            )
            last_print, done_at_print = now, stats.done
    cpu = meter.stop()
    elapsed = seconds
    try:
        await asyncio.wait_for(asyncio.gather(*tasks), 15)
    except TimeoutError:
        stats.error("bots still running 15 s after the end")
    moves = stats.moves
    every_move = [v for a in MOVE_ACTIONS for v in stats.latencies[a]]
    games = stats.won + stats.lost
    return {
        "transport": transport,
        "workers": rest.workers,
        "players": players,
        "seconds": elapsed,
        "warmup_s": warmup,
        "levels": list(levels),
        "think_ms": think_ms,
        "moves": moves,
        "moves_per_s": round(moves / elapsed, 1),
        "games": games,
        "games_per_s": round(games / elapsed, 2),
        "won": stats.won,
        "lost": stats.lost,
        "guesses": stats.guesses,
        "actions": {a: move_figures(stats.latencies[a]) for a in ACTIONS if stats.latencies[a]},
        "moves_all": move_figures(every_move),
        "errors": dict(stats.errors.most_common()),
        "cpu_s": {k: round(v, 3) for k, v in cpu.items()},
        "cpu_cores": {k: round(v / elapsed, 3) for k, v in cpu.items()},
        "cpu_us_per_move": {k: round(v / moves * 1e6) if moves else None for k, v in cpu.items()},
        "load_before": before,
        "load_after": load_average(),
    }


def idle_cores(rest: AppServer, ws: AppServer, database: str, seconds: float) -> dict[str, float]:
    """Cores each server spends with no player at all, over `seconds`."""
    meter = CpuMeter({"rest": rest.pid, "ws": ws.pid}, database)
    meter.start()

    async def wait() -> None:
        for _ in range(int(seconds)):
            await asyncio.sleep(1)
            meter.sample()

    asyncio.run(wait())
    cpu = meter.stop()
    return {k: cpu[k] / seconds for k in ("rest", "ws")}


def per_move(result: dict[str, Any], idle: dict[str, float]) -> dict[str, float]:
    """Server CPU µs a move, without the servers' idle CPU over the counted seconds."""
    moves, seconds, cpu = result["moves"], result["seconds"], result["cpu_s"]
    serving = "rest" if result["transport"] == "http" else "ws"
    both_raw = cpu["rest"] + cpu["ws"]
    both = both_raw - (idle["rest"] + idle["ws"]) * seconds
    alone = cpu[serving] - idle[serving] * seconds
    return {
        "servers_us": round(both / moves * 1e6),
        "servers_raw_us": round(both_raw / moves * 1e6),
        "serving_us": round(alone / moves * 1e6),
        "idle_rest_cores": round(idle["rest"], 3),
        "idle_ws_cores": round(idle["ws"], 3),
    }


def one_line(r: dict[str, Any]) -> str:
    m, cpu = r["moves_all"], r["cpu_us_per_move"]
    errors = sum(r["errors"].values())
    return (
        f"  {r['transport']} {r['workers']}w {r['players']}p: {r['moves_per_s']:.0f} moves/s, "
        f"{r['games_per_s']:.2f} games/s, moves p50 {m['p50_ms']:.1f} / p99 {m['p99_ms']:.1f} ms, "
        f"errors {errors}; CPU µs/move: REST {cpu['rest']}, sockets {cpu['ws']}, "
        f"PG {cpu['pg']}, redis {cpu['redis']}, generator {cpu['generator']} "
        f"({r['cpu_cores']['generator']:.2f} core), machine {cpu['machine']}"
    )


def run_in_loop(coro: Any) -> Any:
    """asyncio.run on uvloop when installed (the generator's own CPU per move is lower)."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(coro)
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(coro)


# --- report ---------------------------------------------------------------------------------------


def label(r: dict[str, Any], results: list[dict[str, Any]]) -> str:
    """A result's transport, and its round when there are several."""
    several = len({x["round"] for x in results}) > 1
    return f"{r['transport']} (round {r['round']})" if several else str(r["transport"])


def report(results: list[dict[str, Any]], accounts: Accounts) -> list[str]:
    head = ["transport", "workers", "players", "moves/s", "games/s (won / lost)", "guesses",
            "errors", "load average before; after"]  # fmt: skip
    rows: list[list[object]] = []
    for r in results:
        rows.append([label(r, results), r["workers"], r["players"], f"**{r['moves_per_s']:.0f}**",
                     f"{r['games_per_s']:.2f} ({r['won']} / {r['lost']})", r["guesses"],
                     sum(r["errors"].values()), f"{r['load_before']}; {r['load_after']}"])  # fmt: skip
    out = table(head, rows, "lrrrrrrl")
    rows = []
    for r in results:
        for action, f in [*r["actions"].items(), ("every move", r["moves_all"])]:
            rows.append([label(r, results), action, f"{f['n']:,}", f"{f['p50_ms']:.1f}",
                         f"{f['p95_ms']:.1f}", f"**{f['p99_ms']:.1f}**", f"{f['max_ms']:.1f}"])  # fmt: skip
    for what, values in (("sign-up", accounts.signup_ms), ("sign-in", accounts.signin_ms)):
        if values:
            f = move_figures(values)
            rows.append(["(setup, one at a time)", what, f["n"], f"{f['p50_ms']:.1f}",
                         f"{f['p95_ms']:.1f}", f"{f['p99_ms']:.1f}", f"{f['max_ms']:.1f}"])  # fmt: skip
    head = ["transport", "action", "n", "p50 ms", "p95 ms", "p99 ms", "max ms"]
    out += ["", *table(head, rows, "llrrrrr")]
    cpu_rows = [
        [name]
        + [
            f"{r['cpu_us_per_move'][key]:,} ({r['cpu_cores'][key]:.2f})"
            if r["cpu_us_per_move"][key] is not None
            else "-"
            for r in results
        ]
        for key, name in CPU_LABELS.items()
    ]
    head = ["CPU µs per move (cores busy)", *(label(r, results) for r in results)]
    out += ["", *table(head, cpu_rows)]
    for r in results:
        errors = ", ".join(f"{k}: {v}" for k, v in r["errors"].items()) or "none"
        out.append(f"\nErrors ({label(r, results)}): {errors}.")
    return out


def report_per_move(rows: list[dict[str, Any]]) -> list[str]:
    """The server CPU per move without the idle CPU, and the socket / HTTP ratio by round."""
    head = ["round", "transport", "moves/s", "moves p50 / p99 ms",
            "server CPU µs/move (both servers, idle off)", "the serving server's",
            "both, idle kept", "idle cores REST / sockets", "errors", "load before; after"]  # fmt: skip
    lines: list[list[object]] = []
    for r in rows:
        m, p = r["moves_all"], r["per_move"]
        lines.append([r["round"], r["transport"], f"{r['moves_per_s']:.0f}",
                      f"{m['p50_ms']:.1f} / {m['p99_ms']:.1f}", f"**{p['servers_us']:,}**",
                      f"{p['serving_us']:,}", f"{p['servers_raw_us']:,}",
                      f"{p['idle_rest_cores']} / {p['idle_ws_cores']}",
                      sum(r["errors"].values()), f"{r['load_before']}; {r['load_after']}"])  # fmt: skip
    out = table(head, lines, "rlrlrrrlrl")
    http, ws = by_round(rows, "http"), by_round(rows, "ws")
    if http and ws:
        both = ratios([p["servers_us"] for p in ws], [p["servers_us"] for p in http])
        serving = ratios([p["serving_us"] for p in ws], [p["serving_us"] for p in http])
        verdict = "met" if median(both) <= 0.5 else "NOT met"
        out.append(
            f"\nGoal server CPU per socket move <= 0.5 x the HTTP move's: {verdict}, "
            f"{median(both):.2f} x (median of the rounds: {' / '.join(f'{x:.2f}' for x in both)};"
            f" the serving server alone {' / '.join(f'{x:.2f}' for x in serving)})."
        )
    return out


def by_round(rows: list[dict[str, Any]], transport: str) -> list[dict[str, Any]]:
    """The per-move figures of `transport`, one a round, of the rounds that ran both."""
    rounds = sorted({r["round"] for r in rows})
    pairs = [{r["transport"]: r for r in rows if r["round"] == n} for n in rounds]
    return [p[transport]["per_move"] for p in pairs if "http" in p and "ws" in p]


def add_common_arguments(parser: argparse.ArgumentParser, *, seconds: float) -> None:
    """The options a run and the curve share."""
    parser.add_argument(
        "--seconds", type=float, default=seconds, help=f"counted seconds ({seconds:g})"
    )
    parser.add_argument("--warmup", type=float, default=2, help="uncounted seconds first (2)")
    parser.add_argument(
        "--levels", default=LEVELS, help=f"levels played, drawn per game ({LEVELS})"
    )
    parser.add_argument("--think-ms", type=float, default=0, help="pause before each move (0)")
    parser.add_argument(
        "--api-accounts", type=int, default=4, help="accounts signed up through the API (4)"
    )
    parser.add_argument("--no-access-log", action="store_true", help="gunicorn without one")
    parser.add_argument(
        "--load-wait",
        type=float,
        default=0,
        help="first wait up to this many seconds for a 1-minute load average below 1.0 (0)",
    )
    parser.add_argument("--json", type=Path, help="also write the results there")
    parser.add_argument("--database-url", help=f"default: DATABASE_URL's server, {DATABASE}")
    parser.add_argument("--redis-url", help=f"default: {REDIS_URL}")


def main(argv: list[str] | None = None) -> None:
    parser = cli.parser(__doc__)
    parser.add_argument("--players", type=int, default=32, help="concurrent bots (32)")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn and uvicorn workers (2)")
    parser.add_argument("--transport", choices=("http", "ws", "both"), default="both")
    parser.add_argument(
        "--rounds", type=int, default=1, help="the transports in turn, this often (1)"
    )
    parser.add_argument(
        "--idle", type=float, default=0, help="idle seconds measured before each part (0: none)"
    )
    parser.add_argument(
        "--metrics-dir", type=Path, help="Prometheus counts and targets.json there (none)"
    )
    add_common_arguments(parser, seconds=20)
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    stack = prepare(args)
    if stack is None:
        return
    if args.load_wait:
        wait_for_quiet(1.0, args.load_wait)
    transports = ("http", "ws") if args.transport == "both" else (args.transport,)
    database = name_of(stack.database_url)
    record = Run("load")
    results = []
    with stack.pair(args.workers, lifespan=True, access_log=not args.no_access_log) as (rest, ws):
        accounts = make_accounts(rest.port, args.players, args.api_accounts)
        for round_ in range(args.rounds):
            for i, transport in enumerate(transports):
                say(
                    f"\n  round {round_ + 1}/{args.rounds}, {transport}: {args.players} players, "
                    f"{args.workers} workers, {args.warmup:.0f} s warm-up + {args.seconds:.0f} s, "
                    f"levels {args.levels}"
                )
                idle = None
                if args.idle:
                    idle = idle_cores(rest, ws, database, args.idle)
                    say(f"    idle: REST {idle['rest']:.3f} cores, sockets {idle['ws']:.3f} cores")
                result = run_in_loop(
                    measure(
                        rest,
                        ws,
                        accounts.accounts,
                        args,
                        transport=transport,
                        players=args.players,
                        seed=round_ * len(transports) + i,
                        database=database,
                    )
                )
                row = {"round": round_ + 1, **result}
                if idle is not None:
                    row["per_move"] = per_move(result, idle)
                results.append(row)
                say(one_line(result))
                if idle is not None:
                    say(f"    per move without the idle CPU: {row['per_move']}")
    say("\n## Results (docs/perf/LOAD.md)\n")
    show(report(results, accounts))
    rates = {t: [r["moves_per_s"] for r in results if r["transport"] == t] for t in transports}
    if len(transports) == 2:
        each = ratios(rates["ws"], [max(v, 1e-9) for v in rates["http"]])
        verdict = "met" if median(each) >= 1 else "NOT met"
        say(
            f"\nGoal: moves/s over the socket >= over HTTP: {verdict} (socket / HTTP = "
            f"{' / '.join(f'{x:.2f}' for x in each)})."
        )
    if args.idle:
        say("\n### Server CPU per move, the servers' idle CPU taken off\n")
        show(report_per_move(results))
    record.write(
        {
            "results": results,
            "signup_ms": move_figures(accounts.signup_ms),
            "signin_ms": move_figures(accounts.signin_ms),
        },
        stack.logs / "results.json",
        args.json,
    )


if __name__ == "__main__":
    main()
