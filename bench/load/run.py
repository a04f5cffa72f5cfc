"""Load benchmark: N solver bots play whole games through the public API for a bounded time,
over HTTP and over the game socket, against the production layout (issue 14, item 4).

    .venv/bin/python -m bench.load.run                     # `make bench-load`: both transports,
                                                           # 32 players, 2 workers, 20 s each
    .venv/bin/python -m bench.load.run --seconds 5 --players 8 --transport http
    .venv/bin/python -m bench.load.curve ...               # the scaling curve (its own --help)

Layout (bench/live's and bench/races', with W workers): gunicorn with W sync workers for the
REST API (persistent database connections, its access log to a file as `make serve-prod`
writes it), uvicorn with W workers for /ws/ (lifespan on, so the race clock thread runs in
each, DB_POOL=1), DEBUG off, PostgreSQL and Redis; live events published. Differences from a
deployment, all for a load generator on one address: the throttles are raised (DRF's and the
socket's messages per second) and the per-address socket cap is off; no Caddy in front.
Database `demineur_load_bench` (created, migrated and flushed here; BENCH_LOAD_DATABASE_URL
for another one whose name ends in _bench), Redis db 11 (BENCH_LOAD_REDIS_URL), ports
18700-18749.

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
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import resource
import shutil
import signal
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from bench import cli
from bench.http.run import TICK, busy_ticks, fmt_load, wait_for_quiet
from bench.live import run as live
from bench.races import run as races
from bench.races.bots import Account, api_json
from deploy.processes import ServerProcess, server_argv

from .bots import ACTIONS, MOVE_ACTIONS, Load, Stats, bot

HOST = "127.0.0.1"
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
say = live.say
pct = live.pct


# --- configuration ------------------------------------------------------------------------------


def database_url() -> str:
    explicit = os.environ.get("BENCH_LOAD_DATABASE_URL")
    if explicit:
        return explicit
    base = os.environ.get("DATABASE_URL", "")
    if not base.startswith("postgres"):
        base = "postgres://postgres@127.0.0.1:5432/postgres"
    return urlparse(base)._replace(path=f"/{DATABASE}").geturl()


class Env(races.Env):
    """bench/races' environment (bench/live's with the race clock on and the throttles raised)
    with the socket's message throttle raised too: one bot plays far faster than a person."""

    ports = PORTS
    # --metrics-dir: each server keeps its workers' Prometheus counts in a directory of its own
    # there, and targets.json names the servers for Prometheus (bench/monitoring/run.py).
    metrics_dir: Path | None = None

    def server_env(self, *, pool: bool, publish: bool = True) -> dict[str, str]:
        env = super().server_env(pool=pool, publish=publish)
        env["WS_MESSAGES_PER_SECOND"] = "100000"
        env["WS_MESSAGES_BURST"] = "100000"
        return env


class Server(ServerProcess):
    """gunicorn (REST) or uvicorn (/ws/) with `workers` workers, in its own process group."""

    def __init__(self, env: Env, kind: str, workers: int, *, access_log: bool = True) -> None:
        port = env.port()
        gunicorn = ["--log-level", "warning"]
        if access_log:
            gunicorn += ["--access-logfile", str(env.logs / f"gunicorn-access-{port}.log")]
        argv = server_argv(
            kind,
            port,
            workers=workers,
            gunicorn=gunicorn,
            uvicorn=["--no-access-log", "--ws-max-size", "4096", "--no-proxy-headers",
                     "--log-level", "warning"],
        )  # fmt: skip
        server_env = env.server_env(pool=kind == "uvicorn")
        if env.metrics_dir is not None:
            counts = env.metrics_dir / f"{kind}-{port}"
            shutil.rmtree(counts, ignore_errors=True)
            counts.mkdir(parents=True)
            server_env["PROMETHEUS_MULTIPROC_DIR"] = str(counts)
        super().__init__(
            f"{kind} {workers}w",
            argv,
            port=port,
            env=server_env,
            log_path=env.logs / f"{kind}-{port}.log",
        )
        self._env = env
        self.start()

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 15) -> None:
        super().stop(sig, timeout)
        self._env.taken_ports.discard(self.port)


@dataclass
class Servers:
    rest: Server
    ws: Server
    workers: int  # each of them has

    @classmethod
    def start(cls, env: Env, workers: int, *, access_log: bool = True) -> Servers:
        rest = Server(env, "gunicorn", workers, access_log=access_log)
        ws: Server | None = None
        try:
            ws = Server(env, "uvicorn", workers)
            rest.wait_answering("/readyz", 60, error=SystemExit)
            ws.wait_answering("/readyz", 60, error=SystemExit)
        except BaseException:
            rest.stop()
            if ws is not None:
                ws.stop()
            raise
        say(f"  gunicorn {workers} workers :{rest.port}, uvicorn {workers} workers :{ws.port}")
        if env.metrics_dir is not None:
            targets = [
                {"targets": [f"{HOST}:{rest.port}"], "labels": {"job": "web"}},
                {"targets": [f"{HOST}:{ws.port}"], "labels": {"job": "live"}},
            ]
            (env.metrics_dir / "targets.json").write_text(json.dumps(targets))
        return cls(rest, ws, workers)

    def stop(self) -> None:
        self.rest.stop()
        self.ws.stop()


def prepare(args: argparse.Namespace) -> Env | None:
    """The database (created, migrated, flushed) and Django set up in this process; None when
    PostgreSQL or Redis cannot be reached (the bench is skipped)."""
    import psycopg
    import redis

    url = args.database_url or database_url()
    redis_url = args.redis_url or os.environ.get("BENCH_LOAD_REDIS_URL", REDIS_URL)
    try:
        live.prepare_database(url, ("_bench", "_test"))  # _test: tests/bench's database
        redis.Redis.from_url(redis_url).ping()
    except (psycopg.OperationalError, redis.RedisError) as exc:
        say(f"bench/load: skipped, PostgreSQL or Redis unreachable ({exc}).")
        return None
    env = Env.for_run("load", url, redis_url, prefix="lbench")
    say(f"bench/load: database {urlparse(url).path.lstrip('/')}, Redis {redis_url}")
    say(f"  logs in {env.logs}")
    live.setup_django(env)
    return env


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

    from accounts.models import AccountKind, User
    from accounts.services import token_issue

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
    for i in range(count - through_api):
        user = User(username=f"lbot{i}", kind=AccountKind.BOT)
        user.set_unusable_password()
        user.save()
        _, key = token_issue(user=user)
        out.accounts.append(Account(user.username, key))
    connections.close_all()
    say(
        f"  {count} bot accounts: {through_api} through the API (sign-up p50 "
        f"{pct(out.signup_ms, 50):.0f} ms, sign-in p50 {pct(out.signin_ms, 50):.0f} ms), "
        f"{count - through_api} made in the database"
    )
    return out


# --- CPU ------------------------------------------------------------------------------------------


class CpuMeter:
    """utime + stime jiffies from /proc, by label: the servers' process groups, PostgreSQL (this
    database's backends; every `postgres:` process) and redis-server. Sampled every second,
    so a process that exits keeps the ticks it had at its last sample."""

    def __init__(self, groups: dict[str, int], database: str) -> None:
        self.groups = groups  # label -> process group id
        self.database = f" {database} "
        self.first: dict[int, tuple[tuple[str, ...], int]] = {}
        self.last: dict[int, tuple[tuple[str, ...], int]] = {}
        self.busy = 0
        self.rusage = 0.0

    def _read(self) -> dict[int, tuple[tuple[str, ...], int]]:
        out = {}
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            try:
                with open(f"/proc/{entry.name}/stat") as f:
                    stat = f.read()
                comm = stat[stat.index("(") + 1 : stat.rindex(")")]
                rest = stat[stat.rindex(")") + 2 :].split()
                labels = [label for label, group in self.groups.items() if int(rest[2]) == group]
                if comm == "redis-server":
                    labels.append("redis")
                elif comm == "postgres":
                    with open(f"/proc/{entry.name}/cmdline", "rb") as f:
                        cmdline = f.read().replace(b"\0", b" ").decode(errors="replace")
                    if cmdline.startswith("postgres:"):
                        labels.append("pg_all")
                        if self.database in cmdline:
                            labels.append("pg")
            except (OSError, ValueError, IndexError):
                continue
            if labels:
                out[int(entry.name)] = (tuple(labels), int(rest[11]) + int(rest[12]))
        return out

    @staticmethod
    def _own() -> float:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        return usage.ru_utime + usage.ru_stime

    def start(self) -> None:
        self.first = self._read()
        self.last = dict(self.first)
        self.busy = busy_ticks()
        self.rusage = self._own()

    def sample(self) -> None:
        self.last.update(self._read())

    def stop(self) -> dict[str, float]:
        """CPU seconds by label since start()."""
        self.sample()
        ticks_by: Counter[str] = Counter()
        for pid, (labels, ticks) in self.last.items():
            before = self.first.get(pid)
            base = before[1] if before is not None and before[0] == labels else 0
            for label in labels:
                ticks_by[label] += ticks - base
        out = {label: ticks_by[label] / TICK for label in ("rest", "ws", "pg", "pg_all", "redis")}
        out["generator"] = self._own() - self.rusage
        out["machine"] = (busy_ticks() - self.busy) / TICK
        return out


# --- one measurement ------------------------------------------------------------------------------


def figures(values: list[float]) -> dict[str, float | int]:
    """bench/races' figures with the p95 too, and the count as `n`."""
    return live.figures(values, (50, 95, 99), count="n")


async def measure(
    servers: Servers,
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
    before = fmt_load()
    stats = Stats()
    t0 = time.perf_counter()
    stats.start = t0 + warmup
    stats.end = stats.start + seconds
    load = Load(
        transport=transport,
        http_port=servers.rest.port,
        ws_port=servers.ws.port,
        levels=levels,
        stop_at=stats.end,
        stats=stats,
        think_s=think_ms / 1000,
    )
    tasks = [
        asyncio.create_task(bot(account, load, random.Random(seed * 1000 + i)))
        for i, account in enumerate(accounts[:players])
    ]
    meter = CpuMeter({"rest": servers.rest.pid, "ws": servers.ws.pid}, database)
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
    result: dict[str, Any] = {
        "transport": transport,
        "workers": servers.workers,
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
        "actions": {a: figures(stats.latencies[a]) for a in ACTIONS if stats.latencies[a]},
        "moves_all": figures(every_move),
        "errors": dict(stats.errors.most_common()),
        "cpu_s": {k: round(v, 3) for k, v in cpu.items()},
        "cpu_cores": {k: round(v / elapsed, 3) for k, v in cpu.items()},
        "cpu_us_per_move": {k: round(v / moves * 1e6) if moves else None for k, v in cpu.items()},
        "load_before": before,
        "load_after": fmt_load(),
    }
    return result


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


def report(results: list[dict[str, Any]], accounts: Accounts) -> list[str]:
    out = [
        "| transport | workers | players | moves/s | games/s (won / lost) | guesses "
        "| errors | load average before; after |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for r in results:
        out.append(
            f"| {r['transport']} | {r['workers']} | {r['players']} | **{r['moves_per_s']:.0f}** "
            f"| {r['games_per_s']:.2f} ({r['won']} / {r['lost']}) | {r['guesses']} "
            f"| {sum(r['errors'].values())} | {r['load_before']}; {r['load_after']} |"
        )
    out += ["", "| transport | action | n | p50 ms | p95 ms | p99 ms | max ms |"]
    out.append("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for r in results:
        for action, f in [*r["actions"].items(), ("every move", r["moves_all"])]:
            out.append(
                f"| {r['transport']} | {action} | {f['n']:,} | {f['p50_ms']:.1f} "
                f"| {f['p95_ms']:.1f} | **{f['p99_ms']:.1f}** | {f['max_ms']:.1f} |"
            )
    if accounts.signup_ms:
        for label, values in (("sign-up", accounts.signup_ms), ("sign-in", accounts.signin_ms)):
            f = figures(values)
            out.append(
                f"| (setup, one at a time) | {label} | {f['n']} | {f['p50_ms']:.1f} "
                f"| {f['p95_ms']:.1f} | {f['p99_ms']:.1f} | {f['max_ms']:.1f} |"
            )
    out += [
        "",
        "| CPU µs per move (cores busy) | " + " | ".join(r["transport"] for r in results) + " |",
    ]
    out.append("| --- |" + " ---: |" * len(results))
    for key, label in CPU_LABELS.items():
        cells = [
            f"{r['cpu_us_per_move'][key]:,} ({r['cpu_cores'][key]:.2f})"
            if r["cpu_us_per_move"][key] is not None
            else "-"
            for r in results
        ]
        out.append(f"| {label} | " + " | ".join(cells) + " |")
    for r in results:
        errors = ", ".join(f"{k}: {v}" for k, v in r["errors"].items()) or "none"
        out.append(f"\nErrors ({r['transport']}): {errors}.")
    return out


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
        "--metrics-dir", type=Path, help="Prometheus counts and targets.json there (none)"
    )
    add_common_arguments(parser, seconds=20)
    argv = sys.argv[1:] if argv is None else argv
    args = parser.parse_args(argv)
    env = prepare(args)
    if env is None:
        return
    env.metrics_dir = args.metrics_dir
    if args.load_wait:
        wait_for_quiet(1.0, args.load_wait)
    transports = ("http", "ws") if args.transport == "both" else (args.transport,)
    database = urlparse(env.database_url).path.lstrip("/")
    servers = Servers.start(env, args.workers, access_log=not args.no_access_log)
    results = []
    try:
        accounts = make_accounts(servers.rest.port, args.players, args.api_accounts)
        for i, transport in enumerate(transports):
            say(
                f"\n  {transport}: {args.players} players, {args.workers} workers, "
                f"{args.warmup:.0f} s warm-up + {args.seconds:.0f} s, levels {args.levels}"
            )
            r = run_in_loop(
                measure(
                    servers,
                    accounts.accounts,
                    args,
                    transport=transport,
                    players=args.players,
                    seed=i,
                    database=database,
                )
            )
            results.append(r)
            say(one_line(r))
    finally:
        servers.stop()
    say("\n## Results (docs/perf/LOAD.md)\n")
    for line in report(results, accounts):
        say(line)
    if len(results) == 2:
        ratio = results[1]["moves_per_s"] / max(results[0]["moves_per_s"], 1e-9)
        verdict = "met" if ratio >= 1 else "NOT met"
        say(
            f"\nGoal: moves/s over the socket >= over HTTP: {verdict} (socket / HTTP = {ratio:.2f})."
        )
    payload = {
        "bench": "load",
        "results": results,
        "signup_ms": figures(accounts.signup_ms),
        "signin_ms": figures(accounts.signin_ms),
    }
    if args.json:
        args.json.write_text(json.dumps(payload, indent=1))
    (env.logs / "results.json").write_text(json.dumps(payload, indent=1))
    say(f"\nJSON: {env.logs / 'results.json'}")


if __name__ == "__main__":
    main()
