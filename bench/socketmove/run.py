"""Server CPU per move over the socket against over HTTP, in one run (issue 27, goal 1).

    .venv/bin/python -m bench.socketmove.run              # `make bench-socketmove`
    .venv/bin/python -m bench.socketmove.run --rounds 1 --seconds 10

bench/load's whole games (its bots, layout, accounts and CPU meter: gunicorn 2 sync workers for
REST, uvicorn 2 workers for /ws/, DB_POOL=1, PostgreSQL, Redis, DEBUG off), with what a shared
machine needs to read a per-move cost:

* before each timed part, --idle seconds with no player: the CPU each server spends anyway
  (the race and daily clocks and the analysis worker run in every uvicorn process, ten ticks
  a second) is measured and taken off, so that a slow run (other work on the machine, fewer
  moves a second) does not spread that fixed cost over fewer moves;
* HTTP and the socket alternate, --rounds times, on the same servers; the figures are the
  medians of the rounds and the ratio is taken in each round.

"Server CPU per move" is the CPU of both server groups (REST and sockets: a socket game is
still created over REST) per move, without their idle CPU; the serving server's alone is
shown beside it. Database and Redis are bench/load's (BENCH_LOAD_DATABASE_URL,
BENCH_LOAD_REDIS_URL).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
from typing import Any
from urllib.parse import urlparse

from bench import cli
from bench.load import run as load

say = load.say


def idle_cores(servers: load.Servers, database: str, seconds: float) -> dict[str, float]:
    meter = load.CpuMeter({"rest": servers.rest.pid, "ws": servers.ws.pid}, database)
    meter.start()

    async def wait() -> None:
        for _ in range(int(seconds)):
            await asyncio.sleep(1)
            meter.sample()

    asyncio.run(wait())
    cpu = meter.stop()
    return {k: cpu[k] / seconds for k in ("rest", "ws")}


def per_move(result: dict[str, Any], idle: dict[str, float]) -> dict[str, float]:
    moves, seconds = result["moves"], result["seconds"]
    cpu = result["cpu_s"]
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


def main(argv: list[str] | None = None) -> None:
    parser = cli.parser(__doc__)
    parser.add_argument("--players", type=int, default=32, help="concurrent bots (32)")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn and uvicorn workers (2)")
    parser.add_argument("--rounds", type=int, default=3, help="HTTP then socket, this often (3)")
    parser.add_argument("--idle", type=float, default=6, help="idle seconds measured first (6)")
    load.add_common_arguments(parser, seconds=15)
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    env = load.prepare(args)
    if env is None:
        return
    database = urlparse(env.database_url).path.lstrip("/")
    servers = load.Servers.start(env, args.workers, access_log=not args.no_access_log)
    rows: list[dict[str, Any]] = []
    try:
        accounts = load.make_accounts(servers.rest.port, args.players, args.api_accounts)
        for round_ in range(args.rounds):
            for i, transport in enumerate(("http", "ws")):
                say(f"\n  round {round_ + 1}/{args.rounds}, {transport}: {args.idle:.0f} s idle")
                idle = idle_cores(servers, database, args.idle)
                say(f"    idle: REST {idle['rest']:.3f} cores, sockets {idle['ws']:.3f} cores")
                result = load.run_in_loop(
                    load.measure(
                        servers,
                        accounts.accounts,
                        args,
                        transport=transport,
                        players=args.players,
                        seed=round_ * 2 + i,
                        database=database,
                    )
                )
                row = {"round": round_ + 1, **result, "per_move": per_move(result, idle)}
                rows.append(row)
                say(load.one_line(result))
                say(f"    per move without the idle CPU: {row['per_move']}")
    finally:
        servers.stop()
    report(rows, args)
    payload = {"bench": "socketmove", "rows": rows}
    (env.logs / "results.json").write_text(json.dumps(payload, indent=1))
    if args.json:
        args.json.write_text(json.dumps(payload, indent=1))
    say(f"\nJSON: {env.logs / 'results.json'}")


def report(rows: list[dict[str, Any]], args: argparse.Namespace) -> None:
    say("\n## Results (docs/PERFORMANCE.md, Issue 27)\n")
    say(
        "| round | transport | moves/s | moves p50 / p99 ms | server CPU µs/move (both "
        "servers, idle off) | the serving server's | both, idle kept | idle cores REST / "
        "sockets | errors | load before; after |"
    )
    say("| ---: | --- | ---: | --- | ---: | ---: | ---: | --- | ---: | --- |")
    for r in rows:
        p, m = r["per_move"], r["moves_all"]
        say(
            f"| {r['round']} | {r['transport']} | {r['moves_per_s']:.0f} | {m['p50_ms']:.1f} / "
            f"{m['p99_ms']:.1f} | **{p['servers_us']:,}** | {p['serving_us']:,} | "
            f"{p['servers_raw_us']:,} | {p['idle_rest_cores']} / {p['idle_ws_cores']} | "
            f"{sum(r['errors'].values())} | {r['load_before']}; {r['load_after']} |"
        )
    ratios = []
    serving = []
    for round_ in sorted({r["round"] for r in rows}):
        pair = {r["transport"]: r["per_move"] for r in rows if r["round"] == round_}
        if "http" in pair and "ws" in pair:
            ratios.append(pair["ws"]["servers_us"] / pair["http"]["servers_us"])
            serving.append(pair["ws"]["serving_us"] / pair["http"]["serving_us"])
    if ratios:
        median = statistics.median(ratios)
        verdict = "met" if median <= 0.5 else "NOT met"
        say(
            f"\nGoal server CPU per socket move <= 0.5 x the HTTP move's: {verdict}, "
            f"{median:.2f} x (median of the rounds: "
            f"{' / '.join(f'{x:.2f}' for x in ratios)}; the serving server alone "
            f"{' / '.join(f'{x:.2f}' for x in serving)})."
        )


if __name__ == "__main__":
    main()
