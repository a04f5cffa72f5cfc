"""`make run`'s server: the candidates that keep one command, one port and one process (HTTP and
sockets together, as the in-memory channel layer needs), measured against each other.

    .venv/bin/python -m bench.server.run                     # every candidate, DEBUG=1 and 0
    .venv/bin/python -m bench.server.run --quick             # 1 round of 2 s, to try it
    .venv/bin/python -m bench.server.run --candidates uvicorn-asgi,uvicorn-bridge --debug 1

Configuration as `make run`: SQLite (a copy of one seeded file per server, under
/tmp/server_bench_*/), no REDIS_URL (in-memory channel layer), DB_POOL=1, no access log,
`--no-proxy-headers`, the race clock on; DEBUG=1 as `make run` sets it, and DEBUG=0. The
throttles are raised (deploy.processes.server_env), as for every benchmark.

Every server is first checked for what the product needs (bench/server/checks.py: page,
static file, session + CSRF, a socket receiving a move made over HTTP, 413, race clock); a
candidate that fails one is reported and not timed. Then, round-robin over every server so that
the shared machine's noise falls on all alike: GET /healthz, GET / (the home page) and
POST /api/games/{id}/flag with the game's token (bench/harness/move.lua, on mine cells: the flag
toggles forever), at -c1 (wrk -t1) and -c32 (wrk -t2), --seconds each, --rounds rounds;
medians. CPU per request is the server process tree's utime + stime (/proc) over the run.
"""

from __future__ import annotations

import importlib.util
import random
import shutil
import sqlite3
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from bench import cli
from bench.harness import clients
from bench.harness.clients import MOVE_LUA
from bench.harness.database import setup_django
from bench.harness.report import Run as Record
from bench.harness.report import load_average, say, table
from bench.harness.servers import HOST, ROOT, NotReady, Ports, Server
from bench.harness.timing import cpu_of, median
from bench.seeding import layout_cells, player_with_a_started_game
from bench.server.checks import run_checks
from deploy.processes import WS_OPTIONS, server_env

PORTS = range(18560, 18620)
SECRET = "bench-server-only-secret-key-not-for-production-0123456789"
VENV_BIN = Path(sys.executable).parent

# make run's uvicorn options (Makefile, `run:`), TRUSTED_PROXIES unset.
UVICORN = ["--no-access-log", "--no-proxy-headers", *WS_OPTIONS]


def uvicorn(app: str) -> list[str]:
    return [str(VENV_BIN / "uvicorn"), app, "--host", HOST, "--port", "{port}", *UVICORN]


def granian(app: str) -> list[str]:
    return [
        str(VENV_BIN / "granian"),
        "--interface",
        "asgi",
        "--host",
        HOST,
        "--port",
        "{port}",
        "--log-level",
        "warning",
        app,
    ]


ASGI = "demineur_site.asgi:application"
BRIDGE = "demineur_site.dev_server:application"
CANDIDATES: dict[str, tuple[list[str], dict[str, str]]] = {
    # a. today
    "uvicorn-asgi": (uvicorn(ASGI), {}),
    # b. HTTP through Django's WSGI handler in a thread pool, sockets through Channels
    #    (demineur_site.dev_server: 2 threads; the same bridge with 4 and 8 threads)
    "uvicorn-bridge": (uvicorn(BRIDGE), {}),
    "uvicorn-bridge4": (uvicorn("bench.server.apps:bridge_app"), {"BENCH_BRIDGE_THREADS": "4"}),
    "uvicorn-bridge8": (uvicorn("bench.server.apps:bridge_app"), {"BENCH_BRIDGE_THREADS": "8"}),
    "uvicorn-a2wsgi": (uvicorn("bench.server.apps:a2wsgi_app"), {}),
    "uvicorn-wsgitoasgi": (uvicorn("bench.server.apps:wsgitoasgi_app"), {}),
    # c. other ASGI servers serving today's application
    "granian-asgi": (granian(ASGI), {}),
    "hypercorn-asgi": (
        [str(VENV_BIN / "hypercorn"), ASGI, "--bind", f"{HOST}:{{port}}"],
        {},
    ),
    "daphne-asgi": ([str(VENV_BIN / "daphne"), "-b", HOST, "-p", "{port}", "-v", "0", ASGI], {}),
    # d. the bridge on granian
    "granian-bridge": (granian(BRIDGE), {}),
}
# GET /healthz (a bare Django view: the server's and the handler's own cost), GET / (the home
# page: template, session, CSRF cookie), POST /api/games/{id}/flag (a real move).
WORKLOADS = ("health", "page", "flag")
PATHS = {"health": "/healthz", "page": "/"}


def installed(candidate: str) -> bool:
    """The server's executable and, for a2wsgi, the package are in this venv."""
    argv, _ = CANDIDATES[candidate]
    if not Path(argv[0]).exists():
        return False
    return "a2wsgi" not in argv[1] or importlib.util.find_spec("a2wsgi") is not None


# --- seeding ----------------------------------------------------------------------------------


def seed(workdir: Path, games: int) -> tuple[Path, Path]:
    """A migrated SQLite file with `games` players, each with a started marathon game, and the
    file of mine cells to flag ("<game> <token> <x> <y>" a line, bench/harness/move.lua)."""
    db = workdir / "seed.sqlite3"
    # make run's configuration: this process seeds the SQLite file, whatever the caller's
    # environment says (a DATABASE_URL there would seed another database than the servers').
    setup_django(
        server_env(debug=True, SQLITE_PATH=str(db)),
        drop=("DATABASE_URL", "DATABASE_REPLICA_URL", "REDIS_URL", "REDIS_URLS"),
    )
    from django.db import connections

    lines: list[str] = []
    for n in range(games):
        _, key, result = player_with_a_started_game(f"srv{n}", "marathon", 40, 20)
        assert result.board is not None
        lines += [f"{result.game.id} {key} {x} {y}" for x, y in layout_cells(result.board, "mine")]
        if (n + 1) % 25 == 0:
            say(f"  seeded {n + 1}/{games} games")
    connections.close_all()
    with sqlite3.connect(db) as conn:  # everything in the main file before it is copied
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    random.Random(7).shuffle(lines)
    flags = workdir / "flags.txt"
    flags.write_text("\n".join(lines) + "\n")
    return db, flags


# --- servers ----------------------------------------------------------------------------------


def candidate_server(
    candidate: str, debug: bool, workdir: Path, seed_db: Path, ports: Ports
) -> Server:
    """`candidate` on a copy of the seeded database, DEBUG on or off, started."""
    port = ports.take()
    key = f"{candidate} DEBUG={int(debug)}"
    own = workdir / f"{candidate}-d{int(debug)}"
    own.mkdir()
    db = own / "db.sqlite3"
    shutil.copy(seed_db, db)
    argv_template, extra = CANDIDATES[candidate]
    env = server_env(
        debug=debug,
        SQLITE_PATH=str(db),
        DB_POOL="1",
        LOG_LEVEL="WARNING",
        RACE_CLOCK="thread",
        **extra,
    )
    env["PYTHONPATH"] = str(ROOT)
    if not debug:
        env["SECRET_KEY"] = SECRET
    argv = [a.replace("{port}", str(port)) for a in argv_template]
    server = Server(key, argv, port=port, env=env, logs=own, ready_path="/healthz")
    server.start()
    return server


@dataclass
class Run:
    rps: float
    p50: float
    p99: float
    cpu_us: float  # server process tree CPU per request
    busy: float  # whole machine, cores
    bad: int  # non-2xx + socket errors


@dataclass
class Results:
    runs: dict[tuple[str, str, int], list[Run]] = field(default_factory=dict)


def wrk(
    server: Server, workload: str, conns: int, seconds: float, flags: Path, log: IO[str]
) -> Run:
    threads = 1 if conns == 1 else 2
    if workload == "flag":
        url, script, script_args = f"{server.url}/", MOVE_LUA, ["flag", str(flags), str(threads)]
    else:
        url, script, script_args = f"{server.url}{PATHS[workload]}", None, []
    with cpu_of(server.pid) as spent:
        f = clients.wrk(
            url,
            threads=threads,
            conns=conns,
            seconds=seconds,
            script=script,
            script_args=script_args,
            timeout="10s",
        )
    log.write(f"### {server.name} {f.log}\n")
    log.flush()
    return Run(
        rps=f.rps,
        p50=f.p50,
        p99=f.p99,
        cpu_us=spent.per_request_us(f.requests),
        busy=spent.busy_cores,
        bad=f.non2xx + f.sock_errors,
    )


# --- report -----------------------------------------------------------------------------------


def results_table(res: Results, keys: list[str], conns: list[int]) -> str:
    head = ["server", "workload", "c", "req/s", "p50 ms", "p99 ms", "server CPU µs/req",
            "runs (req/s)", "errors"]  # fmt: skip
    rows: list[list[object]] = []
    for workload in WORKLOADS:
        for c in conns:
            for key in keys:
                runs = res.runs.get((key, workload, c), [])
                if not runs:
                    continue
                rows.append([key, workload, c, f"{median([r.rps for r in runs]):.0f}",
                             f"{median([r.p50 for r in runs]):.2f}",
                             f"{median([r.p99 for r in runs]):.1f}",
                             f"{median([r.cpu_us for r in runs]):.0f}",
                             "/".join(f"{r.rps:.0f}" for r in runs), sum(r.bad for r in runs)])  # fmt: skip
    return "\n".join(table(head, rows, "llrrrrrlr"))


def main() -> None:
    parser = cli.parser(__doc__)
    parser.add_argument("--candidates", default=",".join(CANDIDATES))
    parser.add_argument("--debug", default="1,0", help="DEBUG values to run, e.g. 1 or 1,0")
    parser.add_argument("--conns", default="1,32")
    parser.add_argument("--workloads", default=",".join(WORKLOADS))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--quick", action="store_true", help="1 round of 2 s")
    parser.add_argument("--check-only", action="store_true", help="the product checks, no timing")
    parser.add_argument("--out", type=Path, help="also write the report here")
    args = parser.parse_args()
    if args.quick:
        args.rounds, args.seconds = 1, 2
    candidates = [c for c in args.candidates.split(",") if c]
    unknown = set(candidates) - set(CANDIDATES)
    if unknown:
        raise SystemExit(f"unknown candidates {sorted(unknown)}; known: {', '.join(CANDIDATES)}")
    missing = [c for c in candidates if not installed(c)]
    if missing:
        say(f"not installed, skipped: {', '.join(missing)} (pip install granian hypercorn a2wsgi)")
        candidates = [c for c in candidates if c not in missing]
    debugs = [d == "1" for d in args.debug.split(",")]
    conns = [int(c) for c in args.conns.split(",")]
    workloads = [w for w in args.workloads.split(",") if w]
    if shutil.which("wrk") is None and not args.check_only:
        raise SystemExit("needs wrk")

    workdir = Path(f"/tmp/server_bench_{time.strftime('%Y%m%d-%H%M%S')}")
    workdir.mkdir()
    say(f"bench/server: logs and wrk output in {workdir}; load {load_average()}")
    say(f"1. Seeding {args.games} marathon games on SQLite")
    seed_db, flags = seed(workdir, args.games)
    record = Record("server")
    ports = Ports(PORTS)
    servers: list[Server] = []
    res = Results()
    checks: dict[str, list[tuple[str, bool, str]]] = {}
    log = (workdir / "wrk.log").open("w")
    try:
        for candidate in candidates:
            for debug in debugs:
                servers.append(candidate_server(candidate, debug, workdir, seed_db, ports))
        say(f"2. Checking {len(servers)} servers for what the product needs")
        timed: list[Server] = []
        for n, server in enumerate(servers):
            try:
                server.wait_ready()
            except NotReady as exc:
                say(f"  {server.name}: did not start: {exc}")
                checks[server.name] = [("start", False, str(exc)[-300:])]
                continue
            checks[server.name] = run_checks(server.port, f"{n}x{random.randrange(10**6)}")
            failed = [f"{name} ({detail})" for name, ok, detail in checks[server.name] if not ok]
            say(
                f"  {server.name}: "
                + ("all checks pass" if not failed else "FAILED " + "; ".join(failed))
            )
            if not failed:
                timed.append(server)
        if not args.check_only:
            say("3. Warm-up, 1 s each")
            for server in timed:
                for workload in workloads:
                    wrk(server, workload, 8, 1, flags, log)
            total = args.rounds * len(workloads) * len(conns) * len(timed)
            say(
                f"4. {args.rounds} rounds x {workloads} x c{conns} x {len(timed)} servers, "
                f"{args.seconds:g} s each ({total * args.seconds / 60:.0f} min); load "
                f"{load_average()}"
            )
            for r in range(args.rounds):
                for workload in workloads:
                    for c in conns:
                        for server in timed:
                            run = wrk(server, workload, c, args.seconds, flags, log)
                            res.runs.setdefault((server.name, workload, c), []).append(run)
                            say(
                                f"  round {r + 1} {workload:>4} c{c:<2} {server.name:<28} "
                                f"{run.rps:6.0f} req/s  p50 {run.p50:6.2f}  p99 {run.p99:6.1f} ms  "
                                f"server {run.cpu_us:5.0f} µs/req  busy {run.busy:.2f}  "
                                f"errors {run.bad}  load {load_average()}"
                            )
    finally:
        for server in servers:
            server.stop()
        log.close()
    lines = [
        f"bench/server, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}: "
        f"{args.rounds} x {args.seconds:g} s, {args.games} games; load after {load_average()}",
        "",
        "Checks: " + "; ".join(
            f"{key}: {'ok' if all(ok for _, ok, _ in c) else 'FAILED'}" for key, c in checks.items()
        ),
        "",
        results_table(res, [s.name for s in servers], conns),
    ]  # fmt: skip
    text = "\n".join(lines)
    (workdir / "report.md").write_text(text + "\n")
    record.write(
        {
            "checks": checks,
            "runs": {" | ".join(map(str, k)): [vars(r) for r in v] for k, v in res.runs.items()},
        },
        workdir / "runs.json",
    )
    if args.out:
        args.out.write_text(text + "\n")
    say("\n" + text)


if __name__ == "__main__":
    main()
