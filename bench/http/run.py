"""Our move endpoint against the perf-limits anchors C1, D5, D10 and D12, measured in one run.

    .venv/bin/python -m bench.http.run                 # `make bench-http`; ~4 min + up to 10 min waiting
    .venv/bin/python -m bench.http.run --quick         # 1 round of 4 s, no profile

Configurations, each served by its own gunicorn (sync, 2 workers, no access log), all started
at once and measured round-robin so that the shared machine's noise falls on all of them alike:

  C1      the anchor app (../shared/perf/bench-limits/djbench, run in place): bare Django ORM move
  D12     the same + channels-redis PubSub publish from a persistent loop thread
  D10     a raw-SQL move + the same publish: the ceiling of a move that publishes
  D5      the plain DRF skeleton: DRF + TokenAuthentication + ORM move + async_to_sync publish
  flag    ours: POST /api/games/{id}/flag, token auth, validation, rules, Move row, PUBLISH
  reveal  ours: POST /api/games/{id}/reveal, each request opening one fresh numbered cell

Same data shape as the anchors: 1000 games on 80x40 boards (our `marathon` level, one player
and one token per game), a random game per request. Each round runs C1, flag, D10, D5, reveal, D12 with
`wrk -t2 -c32 -d10s --latency` (2 s warm-up of each first); then the unloaded latency
(`wrk -t1 -c1 -d5s`) the same way. Before the timed rounds it waits (up to --load-wait s) for the
1-minute load average to fall below --load-max, since the machine is shared. Afterwards it
samples one of our workers with py-spy (if installed and allowed) under load.

Own state: databases demineur_http_bench (ours) and demineur_http_anchor (the anchor's), both
created here and wiped on every run; Redis db 8 with channel prefix `benchhttp` (the anchor
uses its settings' Redis host/port and never subscribes: its PUBLISHes go nowhere); ports
18400-18449. Every server runs in its own session and is stopped by its PID's process group.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from bench import cli
from bench.ports import free_port
from bench.seeding import player_with_a_started_game
from deploy.processes import WSGI_APP, ServerProcess, gunicorn_argv, run_python

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
# The perf-limits anchors live in ../shared beside the repository (or BENCH_ANCHOR_DIR).
ANCHOR = Path(os.environ.get("BENCH_ANCHOR_DIR", ROOT.parent / "shared" / "perf" / "bench-limits"))
ANCHOR_APP = ANCHOR / "djbench"
ANCHOR_LUA = ANCHOR / "lua" / "post_move.lua"
ANCHOR_TOKEN = "0123456789abcdef0123456789abcdef01234567"  # the anchor's `manage.py seed` makes it
HOST = "127.0.0.1"
PORTS = range(18400, 18450)
PG = os.environ.get("BENCH_HTTP_PG", "postgres://postgres@127.0.0.1:5432")
# BENCH_HTTP_DB / BENCH_HTTP_ANCHOR_DB: other names, for a second bench run on the same server.
OUR_DB = os.environ.get("BENCH_HTTP_DB", "demineur_http_bench")
ANCHOR_DB = os.environ.get("BENCH_HTTP_ANCHOR_DB", "demineur_http_anchor")
REDIS_URL = os.environ.get("BENCH_HTTP_REDIS_URL", "redis://127.0.0.1:6379/8")
PREFIX = "benchhttp"
WORKERS = 2
# Upper bound of the request rate used to size each reveal run's file of fresh cells: a reveal
# must never be sent twice to one cell (the second one would be a cheaper no-op).
REVEAL_RATE_CAP = 1500


def say(text: str) -> None:
    print(text, flush=True)


# --- machine ----------------------------------------------------------------------------------


def busy_ticks() -> int:
    """Busy jiffies of the whole machine (everything but idle and iowait)."""
    fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return sum(fields) - fields[3] - fields[4]


def tree_ticks(root: int) -> int:
    """utime + stime jiffies of a process and its direct children (gunicorn master + workers)."""
    total = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        rest = stat.rsplit(")", 1)[1].split()
        pid, ppid = int(entry.name), int(rest[1])
        if pid == root or ppid == root:
            total += int(rest[11]) + int(rest[12])
    return total


def children(root: int) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                rest = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(rest[1]) == root:
                out.append(int(entry.name))
    return sorted(out)


TICK = os.sysconf("SC_CLK_TCK")


def wait_for_quiet(limit: float, max_wait: float) -> float:
    """Poll the 1-minute load average until it is below `limit` (other engineers run browser
    tests here); give up after `max_wait` seconds and measure anyway (the report says so)."""
    deadline = time.monotonic() + max_wait
    while True:
        load = os.getloadavg()[0]
        if load < limit:
            say(f"  load average {load:.2f} < {limit}: go")
            return load
        if time.monotonic() >= deadline:
            say(f"  load average still {load:.2f} after {max_wait:.0f} s: measuring anyway")
            return load
        say(
            f"  load average {load:.2f} >= {limit}, waiting ({deadline - time.monotonic():.0f} s left)"
        )
        time.sleep(15)


# --- databases --------------------------------------------------------------------------------


def db_url(name: str) -> str:
    return f"{PG}/{name}"


def recreate_database(name: str) -> None:
    import psycopg

    if not (name.startswith("demineur_http_") or name.endswith("_bench")):
        raise SystemExit(f"refusing to drop {name!r}")
    with psycopg.connect(db_url("postgres"), autocommit=True) as conn:
        conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", (name,)
        )
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')


def vacuum_and_checkpoint() -> None:
    """What the anchors' runner does before a DB config: empty the anchor's move table, fresh
    statistics, and a checkpoint so that no config pays for another's dirty pages."""
    import psycopg

    with psycopg.connect(db_url(ANCHOR_DB), autocommit=True) as conn:
        conn.execute("TRUNCATE moves_move")
        conn.execute("VACUUM ANALYZE moves_game")
    with psycopg.connect(db_url(OUR_DB), autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE games_game")
        conn.execute("VACUUM ANALYZE games_move")
        conn.execute("CHECKPOINT")


def anchor_env(pubsub: bool) -> dict[str, str]:
    parsed = urlparse(PG)
    env = {
        **os.environ,
        "PYTHONDONTWRITEBYTECODE": "1",  # shared/ is read-only
        "DJANGO_SETTINGS_MODULE": "djbench.settings",
        "BENCH_PGHOST": parsed.hostname or "127.0.0.1",
        "BENCH_PGPORT": str(parsed.port or 5432),
        "BENCH_PGUSER": parsed.username or "postgres",
        "BENCH_PGPASSWORD": parsed.password or "",
        "BENCH_PGDATABASE": ANCHOR_DB,
    }
    env.pop("PYTHONPATH", None)  # our tree must not shadow the anchor's modules
    redis = urlparse(REDIS_URL)
    env["BENCH_REDIS_HOST"] = redis.hostname or "127.0.0.1"
    env["BENCH_REDIS_PORT"] = str(redis.port or 6379)
    if pubsub:
        env["BENCH_CHANNEL_BACKEND"] = "channels_redis.pubsub.RedisPubSubChannelLayer"
    return env


def our_env() -> dict[str, str]:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "demineur_site.settings",
        "DATABASE_URL": db_url(OUR_DB),
        "REDIS_URL": REDIS_URL,
        "CHANNELS_PREFIX": PREFIX,
        "SECRET_KEY": "bench-http-only-secret-key-not-for-production",
        "DEBUG": "0",
        "LOG_LEVEL": "WARNING",
        "LIVE_EVENTS": "1",
        "PYTHONPATH": str(ROOT),
    }
    env.pop("DB_POOL", None)
    return env


def seed_anchor(games: int) -> None:
    recreate_database(ANCHOR_DB)
    env = anchor_env(pubsub=False)
    for argv in (["migrate", "-v0"], ["seed", "--games", str(games), "--no-groups"]):
        done = run_python("manage.py", *argv, env=env, cwd=ANCHOR_APP)
        if done.returncode != 0:
            raise SystemExit(f"anchor {argv[0]} failed:\n{done.stderr[-2000:]}")
        if done.stdout.strip():
            say(f"  anchor: {done.stdout.strip()}")


@dataclass
class Seeded:
    flags: list[str]  # "<game> <token> <x> <y>" on a mine: flag toggles forever
    reveals: list[str]  # the same on a closed numbered cell: one real single-cell opening each


def seed_ours(games: int, rng: random.Random) -> Seeded:
    """`games` players, each with one marathon game (80x40, 240 mines) started by a reveal in
    the middle, through the real services. Returns the cells the wrk script will play."""
    recreate_database(OUR_DB)
    os.environ.update(our_env())
    import django

    django.setup()
    from django.core.management import call_command

    from demineur_site import publish

    call_command("migrate", verbosity=0, interactive=False)
    flags: list[str] = []
    reveals: list[str] = []
    started = time.monotonic()
    for n in range(games):
        _, key, result = player_with_a_started_game(f"http{n}", "marathon", 40, 20)
        game = result.game
        assert result.board is not None
        rows = result.board.to_ascii()
        h, w = len(rows), len(rows[0])
        for y, row in enumerate(rows):
            for x, c in enumerate(row):
                if c == "*":
                    flags.append(f"{game.id} {key} {x} {y}")
                elif c == ".":
                    near = sum(
                        rows[yy][xx] == "*"
                        for yy in range(max(0, y - 1), min(h, y + 2))
                        for xx in range(max(0, x - 1), min(w, x + 2))
                    )
                    if near:  # a numbered cell: opening it cascades nowhere
                        reveals.append(f"{game.id} {key} {x} {y}")
        if (n + 1) % 100 == 0:
            say(
                f"  seeded {n + 1}/{games} players with a started marathon game ({time.monotonic() - started:.0f} s)"
            )
    publish.flush()
    from django.db import connections

    connections.close_all()
    rng.shuffle(flags)
    rng.shuffle(reveals)
    return Seeded(flags=flags, reveals=reveals)


# --- servers ----------------------------------------------------------------------------------


class Ports:
    def __init__(self) -> None:
        self.taken: set[int] = set()

    def take(self) -> int:
        return free_port(PORTS, self.taken)


class Server(ServerProcess):
    """gunicorn sync, 2 workers, no access log, in its own session; stopped by its PID's group."""

    def __init__(
        self, name: str, ports: Ports, logs: Path, *, anchor: bool, pubsub: bool = False
    ) -> None:
        port = ports.take()
        self.ready_path = "/hello/" if anchor else "/api/games?page_size=1"
        super().__init__(
            name,
            gunicorn_argv(
                port,
                workers=WORKERS,
                app="djbench.wsgi:application" if anchor else WSGI_APP,
                extra=["-k", "sync", "--log-level", "warning"],
            ),
            port=port,
            env=anchor_env(pubsub) if anchor else our_env(),
            log_path=logs / f"{name}-{port}.log",
            cwd=ANCHOR_APP if anchor else ROOT,
        )
        self.start()

    def wait_ready(self, timeout: float = 60) -> None:
        self.wait_answering(self.ready_path, timeout, error=SystemExit)

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 15) -> None:
        super().stop(sig, timeout)


# --- wrk --------------------------------------------------------------------------------------


@dataclass
class WrkFigures:
    """What wrk prints of a run."""

    rps: float
    p50: float
    p99: float
    requests: int
    non2xx: int
    sock_errors: int


@dataclass
class Run(WrkFigures):
    """A wrk run and the CPU it cost."""

    server_us: float  # server process tree CPU per request
    total_us: float  # whole machine busy CPU per request (includes the neighbours' work)
    busy_cores: float


def _ms(value: str, unit: str) -> float:
    return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]


def parse_wrk(out: str) -> WrkFigures:
    rps = re.search(r"Requests/sec:\s+([\d.]+)", out)
    if rps is None:
        raise SystemExit(f"wrk output not understood:\n{out}")
    p50 = re.search(r"50%\s+([\d.]+)(us|ms|s)\b", out)
    p99 = re.search(r"99%\s+([\d.]+)(us|ms|s)\b", out)
    total = re.search(r"(\d+) requests in", out)
    non2xx = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", out)
    errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    return WrkFigures(
        float(rps[1]),
        _ms(p50[1], p50[2]) if p50 else float("nan"),
        _ms(p99[1], p99[2]) if p99 else float("nan"),
        int(total[1]) if total else 0,
        int(non2xx[1]) if non2xx else 0,
        sum(int(v) for v in errors.groups()) if errors else 0,
    )


def wrk(
    server: Server, script: list[str], seconds: float, threads: int, conns: int, log: Any
) -> Run:
    argv = ["wrk", f"-t{threads}", f"-c{conns}", f"-d{seconds}s", "--latency", "-s", script[0]]
    argv += [f"http://{HOST}:{server.port}/", "--", *script[1:]]
    figures, measured = wrk_measured(server.pid, server.name, argv, seconds, log)
    return Run(
        **vars(figures),
        server_us=per_request_us(measured.server_s, figures.requests),
        total_us=per_request_us(measured.machine_s, figures.requests),
        busy_cores=measured.busy_cores,
    )


@dataclass
class Measured:
    server_s: float  # CPU seconds of the server's process tree
    machine_s: float  # busy CPU seconds of the whole machine
    elapsed_s: float

    @property
    def busy_cores(self) -> float:
        return self.machine_s / self.elapsed_s


def per_request_us(cpu_s: float, requests: int) -> float:
    """CPU seconds spent over a wrk run, in µs per request it counted."""
    return 1e6 * cpu_s / max(requests, 1)


def wrk_measured(
    pid: int, label: str, argv: list[str], seconds: float, log: Any
) -> tuple[WrkFigures, Measured]:
    """A wrk run (bench/http's and bench/server's): its figures and the CPU the server `pid`
    and the machine spent meanwhile, its output added to `log` under `label`."""
    out, measured = run_measured(pid, argv, seconds)
    log.write(f"### {label} {' '.join(argv)}\n{out}\n")
    log.flush()
    return parse_wrk(out), measured


def run_measured(pid: int, argv: list[str], seconds: float) -> tuple[str, Measured]:
    """Run a load generator (its stdout returned) and the CPU the server `pid` and the whole
    machine spent meanwhile."""
    s0, m0, t0 = tree_ticks(pid), busy_ticks(), time.monotonic()
    out = subprocess.run(argv, capture_output=True, text=True, timeout=seconds + 60).stdout
    s1, m1, t1 = tree_ticks(pid), busy_ticks(), time.monotonic()
    return out, Measured((s1 - s0) / TICK, (m1 - m0) / TICK, t1 - t0)


class Scripts:
    """wrk arguments per configuration; reveal runs get a fresh slice of never-played cells."""

    def __init__(self, seeded: Seeded, workdir: Path, games: int) -> None:
        self.workdir = workdir
        self.games = str(games)
        self.reveals = seeded.reveals
        self.next_reveal = 0
        self.wrapped = False
        flags = workdir / "flags.txt"
        flags.write_text("\n".join(seeded.flags[:50_000]) + "\n")
        self.flags = flags
        self.lua = str(HERE / "move.lua")

    def args(self, config: str, seconds: float, threads: int) -> list[str]:
        if config == "C1":
            return [str(ANCHOR_LUA), "/move/", self.games]
        if config == "D12":
            return [str(ANCHOR_LUA), "/move-pub-bg/", self.games]
        if config == "D10":
            return [str(ANCHOR_LUA), "/move-raw-pub-bg/", self.games]
        if config == "D5":
            return [str(ANCHOR_LUA), "/api/move/", self.games, ANCHOR_TOKEN]
        if config == "flag":
            return [self.lua, "flag", str(self.flags), str(threads)]
        size = int(REVEAL_RATE_CAP * seconds) + 100
        start, end = self.next_reveal, self.next_reveal + size
        if end > len(self.reveals):
            self.wrapped = True
            start, end = 0, min(size, len(self.reveals))
        self.next_reveal = end
        path = self.workdir / "reveals.txt"
        path.write_text("\n".join(self.reveals[start:end]) + "\n")
        return [self.lua, "reveal", str(path), str(threads)]


# --- profile ----------------------------------------------------------------------------------

# Frames that mark a stage of our request, outermost first; a sample counts for every stage on
# its stack, so the percentages are inclusive and do not add up to 100.
STAGES = [
    ("Django request (WSGIHandler.__call__)", "__call__ (django/core/handlers/wsgi.py"),
    ("  DRF dispatch (view + DRF plumbing)", "dispatch (rest_framework/views.py"),
    ("    token auth (1 statement, accounts.authentication)", "user_for_token_key (accounts/"),
    ("    throttling (one Redis call, demineur_site.throttling)", "check_throttles (rest_fram"),
    ("    body validation (the plain reading, else FlagIn/MoveIn)", "_plain_move_body (games/"),
    ("    services.game_move (transaction)", "game_move (games/play/services.py"),
    ("      row lock: move_store.lock_game", "lock_game (games/play/move_store.py"),
    ("      Board.decode", "decode (games/engine.py"),
    ("      the rule (Board.flag / reveal)", "Board.flag (games/engine.py"),
    ("      _store_move (game update + Move insert)", "_store_move (games/play/services.py"),
    ("        move_store.store (one statement)", "store (games/play/move_store.py"),
    ("        Board.encode", "encode (games/engine.py"),
    ("      COMMIT + on_commit publish", "__exit__ (django/db/transaction.py"),
    ("        publish: send_now (waits for the PUBLISH ack)", "send_now (demineur_site/publish.py"),
    ("    response body: game_dict (whole board)", "game_dict (games/play/presenters.py"),
    ("  JSON rendering of the response", "rendered_content (rest_framework/response.py"),
    ("any Django ORM SQL compilation", "(django/db/models/sql/compiler.py"),
    ("any psycopg (driver) time", "(psycopg/"),
    ("publisher thread: channels_redis / redis-py", "(channels_redis/"),
    ("gunicorn outside Django (accept, parse, write, close)", "(gunicorn/"),
]


def profile(
    server: Server, scripts: Scripts, seconds: float, workdir: Path, log: Any
) -> str | None:
    """Sample one of our workers with py-spy while wrk drives flag moves; return a markdown
    summary (inclusive % of the samples per stage, and the top self-time functions), or None
    when py-spy is missing or not allowed to attach. `--gil` keeps only samples of the thread
    holding the GIL: Python CPU time, not time spent waiting for PostgreSQL or Redis."""
    pyspy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    if not Path(pyspy).exists():
        say("  py-spy not installed: no profile (`.venv/bin/pip install py-spy`)")
        return None
    workers = children(server.pid)
    if not workers:
        return None
    raw = workdir / "pyspy.txt"
    spy = subprocess.Popen(
        [pyspy, "record", "--pid", str(workers[0]), "--duration", str(int(seconds)),
         "--rate", "200", "--gil", "--format", "raw", "--output", str(raw), "--nonblocking"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    time.sleep(0.5)
    wrk(server, scripts.args("flag", seconds, 2), seconds, 2, 32, log)
    try:
        _, err = spy.communicate(timeout=seconds + 30)
    except subprocess.TimeoutExpired:
        spy.kill()
        spy.wait()
        return None
    if spy.returncode != 0 or not raw.exists():
        say(f"  py-spy failed: {err.strip()[-300:]}")
        return None
    stacks: list[tuple[list[str], int]] = []
    for line in raw.read_text().splitlines():
        head, _, count = line.rpartition(" ")
        if head and count.isdigit():
            stacks.append((head.split(";"), int(count)))
    total = sum(c for _, c in stacks) or 1
    lines = [f"py-spy --gil, one worker, {seconds:.0f} s of flag moves at c32, {total} samples", ""]
    lines += ["| stage (inclusive) | % of samples |", "| --- | ---: |"]
    for label, marker in STAGES:
        hit = sum(c for frames, c in stacks if any(marker in f for f in frames))
        if marker == "(gunicorn/":  # on every request stack: count the samples outside Django
            hit = sum(
                c
                for frames, c in stacks
                if "runpy" in frames[0] and not any("(django/" in f for f in frames)
            )
        lines.append(f"| {label.replace('  ', '&nbsp;&nbsp;')} | {100 * hit / total:.1f} |")
    own: Counter[str] = Counter()
    for frames, c in stacks:
        leaf = re.sub(r":\d+\)$", ")", frames[-1])
        own[leaf] += c
    lines += ["", "| top self time | % |", "| --- | ---: |"]
    for name, c in own.most_common(15):
        lines.append(f"| `{name}` | {100 * c / total:.1f} |")
    say(f"  profile raw stacks: {raw}")
    return "\n".join(lines)


# --- main -------------------------------------------------------------------------------------


@dataclass
class Results:
    loaded: dict[str, list[Run]] = field(default_factory=dict)
    unloaded: dict[str, list[Run]] = field(default_factory=dict)


LABELS = {
    "C1": "C1 anchor: bare Django ORM move",
    "D12": "D12 anchor: ORM move + PubSub publish (loop thread)",
    "D10": "D10 anchor: raw-SQL move + PubSub publish (loop thread)",
    "D5": "D5 anchor: DRF + token auth + ORM move + async_to_sync publish",
    "flag": "ours: POST /api/games/{id}/flag",
    "reveal": "ours: POST /api/games/{id}/reveal",
}
ANCHORS = ("C1", "D5", "D10", "D12")
# Interleaved so that each of ours sits between anchors: the machine's drift falls on all.
ORDER = ["C1", "flag", "D10", "D5", "reveal", "D12"]


def med(runs: list[Run], attr: str) -> float:
    return float(statistics.median(getattr(r, attr) for r in runs))


def _table_head(out: list[str], columns: list[str], align: str) -> None:
    """A blank line, then a Markdown table's header; `align` has one letter per column, `l`
    left or `r` right."""
    out.append("")
    out.append("| " + " | ".join(columns) + " |")
    out.append("| " + " | ".join("---:" if a == "r" else "---" for a in align) + " |")


def report(res: Results, args: argparse.Namespace, meta: dict[str, Any], prof: str | None) -> str:
    out = []
    out.append(
        f"Loaded: `wrk -t2 -c32 -d{args.seconds}s --latency`, {args.runs} rounds of "
        f"{' / '.join(ORDER)} (interleaved), 2 s warm-up of each first. Medians of the runs."
    )
    out.append("")
    out.append(
        "| config | req/s (median) | runs | p50 ms | p99 ms | server CPU µs/req | "
        "machine CPU µs/req | non-2xx / socket errors |"
    )
    out.append("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: |")
    for key in ORDER:
        runs = res.loaded[key]
        all_runs = " / ".join(f"{r.rps:.0f}" for r in runs)
        out.append(
            f"| {LABELS[key]} | **{med(runs, 'rps'):.0f}** | {all_runs} | {med(runs, 'p50'):.1f} "
            f"| {med(runs, 'p99'):.1f} | {med(runs, 'server_us'):,.0f} | {med(runs, 'total_us'):,.0f} "
            f"| {sum(r.non2xx for r in runs)} / {sum(r.sock_errors for r in runs)} |"
        )
    _table_head(
        out, ["ratio (of medians)", "flag", "reveal", "per-round ratios flag; reveal"], "lrrl"
    )
    for anchor in ANCHORS:
        a = res.loaded[anchor]
        cells = []
        rounds = []
        for ours in ("flag", "reveal"):
            o = res.loaded[ours]
            cells.append(f"**{med(o, 'rps') / med(a, 'rps'):.2f}**")
            rounds.append(" / ".join(f"{x.rps / y.rps:.2f}" for x, y in zip(o, a, strict=True)))
        out.append(f"| ours / {anchor} | {cells[0]} | {cells[1]} | {rounds[0]}; {rounds[1]} |")
    if res.unloaded:
        out.append("")
        out.append(
            f"Unloaded: `wrk -t1 -c1 -d{args.c1_seconds}s --latency`, {args.runs} rounds, interleaved."
        )
        _table_head(
            out, ["config @ c1", "req/s (median)", "p50 ms (runs)", "p99 ms (runs)"], "lrll"
        )
        for key in ORDER:
            runs = res.unloaded[key]
            p50s = " / ".join(f"{r.p50:.2f}" for r in runs)
            p99s = " / ".join(f"{r.p99:.2f}" for r in runs)
            out.append(
                f"| {LABELS[key]} | {med(runs, 'rps'):.0f} | **{med(runs, 'p50'):.2f}** ({p50s}) "
                f"| **{med(runs, 'p99'):.2f}** ({p99s}) |"
            )
    out.append("")
    out.append(
        f"Load average (1/5/15 min): before the timed rounds {meta['load_before']}, after "
        f"{meta['load_after']}. Started {meta['started']}, timed part {meta['timed_s']:.0f} s."
    )
    if meta.get("reveal_wrapped"):
        out.append("WARNING: the reveal runs used up the seeded cells and wrapped (no-op reveals).")
    if prof:
        out += ["", prof]
    return "\n".join(out)


def fmt_load() -> str:
    return " / ".join(f"{v:.2f}" for v in os.getloadavg())


def main() -> None:
    parser = cli.parser(__doc__)
    parser.add_argument("--seconds", type=int, default=10, help="seconds per loaded run (10)")
    parser.add_argument("--c1-seconds", type=int, default=5, help="seconds per unloaded run (5)")
    parser.add_argument("--runs", type=int, default=3, help="rounds (3)")
    parser.add_argument("--games", type=int, default=1000, help="games per app (1000)")
    parser.add_argument("--load-max", type=float, default=1.0, help="start below this load (1.0)")
    parser.add_argument("--load-wait", type=float, default=600, help="wait at most this (600 s)")
    parser.add_argument(
        "--profile-seconds", type=int, default=None, help="py-spy sample (8 s; 0 = off)"
    )
    parser.add_argument("--no-unloaded", action="store_true", help="skip the wrk -c1 rounds")
    parser.add_argument("--quick", action="store_true", help="1 round of 4 s, 200 games, no wait")
    parser.add_argument("--out", type=Path, help="also write the markdown report here")
    args = parser.parse_args()
    if args.quick:
        args.seconds, args.c1_seconds, args.runs, args.games = 4, 2, 1, 200
        args.load_wait = 0
        if args.profile_seconds is None:
            args.profile_seconds = 0
    if args.profile_seconds is None:
        args.profile_seconds = 8
    if not shutil.which("wrk"):
        raise SystemExit("wrk is missing: apt-get install -y wrk")
    if not (ANCHOR_APP / "manage.py").exists():
        raise SystemExit(f"anchor app not found at {ANCHOR_APP} (BENCH_ANCHOR_DIR)")

    workdir = Path(tempfile.mkdtemp(prefix="bench-http-"))
    log = (workdir / "wrk.log").open("w")
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    say(f"bench/http: logs and wrk output in {workdir}")
    say(f"1. Seeding {args.games} games per app (databases {ANCHOR_DB}, {OUR_DB})")
    t = time.monotonic()
    seed_anchor(args.games)
    seeded = seed_ours(args.games, random.Random(42))
    say(
        f"  ours: {len(seeded.flags)} mine cells to flag, {len(seeded.reveals)} fresh numbered "
        f"cells to reveal ({time.monotonic() - t:.0f} s)"
    )
    vacuum_and_checkpoint()
    scripts = Scripts(seeded, workdir, args.games)

    ports = Ports()
    servers = {
        "C1": Server("C1", ports, workdir, anchor=True),
        "D12": Server("D12", ports, workdir, anchor=True, pubsub=True),
        "D10": Server("D10", ports, workdir, anchor=True, pubsub=True),
        "D5": Server("D5", ports, workdir, anchor=True, pubsub=True),
        "ours": Server("ours", ports, workdir, anchor=False),
    }
    res = Results()
    meta: dict[str, Any] = {"started": started}
    prof = None
    try:
        for server in servers.values():
            server.wait_ready()
        say(f"2. Servers up (gunicorn sync {WORKERS}w each): " + ", ".join(
            f"{k} :{s.port} pid {s.pid}" for k, s in servers.items()))  # fmt: skip
        say(
            f"3. Waiting for the 1-min load average < {args.load_max} (up to {args.load_wait:.0f} s)"
        )
        wait_for_quiet(args.load_max, args.load_wait)
        meta["load_before"] = fmt_load()
        say(f"  load average before: {meta['load_before']}")
        t_timed = time.monotonic()
        say("4. Warm-up, 2 s each")
        for key in ORDER:
            server = servers["ours" if key in ("flag", "reveal") else key]
            run = wrk(server, scripts.args(key, 2, 2), 2, 2, 32, log)
            say(f"  {key}: {run.rps:.0f} req/s, non-2xx {run.non2xx}")
        say(f"5. Loaded: {args.runs} rounds x {' / '.join(ORDER)}, wrk -t2 -c32 -d{args.seconds}s")
        for r in range(args.runs):
            for key in ORDER:
                server = servers["ours" if key in ("flag", "reveal") else key]
                run = wrk(server, scripts.args(key, args.seconds, 2), args.seconds, 2, 32, log)
                res.loaded.setdefault(key, []).append(run)
                say(
                    f"  round {r + 1}/{args.runs} {key:>6}: {run.rps:6.0f} req/s  p50 {run.p50:6.1f} ms"
                    f"  p99 {run.p99:6.1f} ms  server {run.server_us:5.0f} µs/req  busy "
                    f"{run.busy_cores:.2f} cores  non-2xx {run.non2xx}  load {os.getloadavg()[0]:.2f}"
                )
        if not args.no_unloaded:
            say(
                f"6. Unloaded: {args.runs} rounds x {' / '.join(ORDER)}, wrk -t1 -c1 -d{args.c1_seconds}s"
            )
            for r in range(args.runs):
                for key in ORDER:
                    server = servers["ours" if key in ("flag", "reveal") else key]
                    run = wrk(
                        server, scripts.args(key, args.c1_seconds, 1), args.c1_seconds, 1, 1, log
                    )
                    res.unloaded.setdefault(key, []).append(run)
                    say(
                        f"  round {r + 1}/{args.runs} {key:>6} @c1: {run.rps:5.0f} req/s  "
                        f"p50 {run.p50:.2f} ms  p99 {run.p99:.2f} ms  non-2xx {run.non2xx}"
                    )
        meta["timed_s"] = time.monotonic() - t_timed
        meta["load_after"] = fmt_load()
        meta["reveal_wrapped"] = scripts.wrapped
        say(f"  load average after: {meta['load_after']}")
        if args.profile_seconds > 0:
            say(f"7. Profile: py-spy on one of our workers, {args.profile_seconds} s of flag moves")
            prof = profile(servers["ours"], scripts, args.profile_seconds, workdir, log)
    finally:
        for server in servers.values():
            server.stop()
        log.close()
    text = report(res, args, meta, prof)
    (workdir / "report.md").write_text(text + "\n")
    (workdir / "runs.json").write_text(
        json.dumps(
            {
                "meta": meta,
                "loaded": {k: [r.__dict__ for r in v] for k, v in res.loaded.items()},
                "unloaded": {k: [r.__dict__ for r in v] for k, v in res.unloaded.items()},
            },
            indent=1,
        )
    )
    if args.out:
        args.out.write_text(text + "\n")
    say("\n## Results (docs/PERFORMANCE.md, section 'Move endpoint vs the perf-limits anchors')\n")
    say(text)


if __name__ == "__main__":
    main()
