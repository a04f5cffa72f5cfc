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
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any
from urllib.parse import urlparse

from bench import cli
from bench.harness import clients
from bench.harness.clients import MOVE_LUA, WrkFigures
from bench.harness.database import create_database, renamed, setup_django
from bench.harness.report import Run as Record
from bench.harness.report import load_average, say, table
from bench.harness.servers import ROOT, AppServer, Ports, Server, app_env, children
from bench.harness.timing import cpu_of, median, ratios, wait_for_quiet
from bench.seeding import layout_cells, player_with_a_started_game
from deploy.processes import gunicorn_argv, run_python

# The perf-limits anchors live in ../shared beside the repository (or BENCH_ANCHOR_DIR).
ANCHOR = Path(os.environ.get("BENCH_ANCHOR_DIR", ROOT.parent / "shared" / "perf" / "bench-limits"))
ANCHOR_APP = ANCHOR / "djbench"
ANCHOR_LUA = ANCHOR / "lua" / "post_move.lua"
ANCHOR_TOKEN = "0123456789abcdef0123456789abcdef01234567"  # the anchor's `manage.py seed` makes it
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


# --- databases --------------------------------------------------------------------------------


def db_url(name: str) -> str:
    return renamed(f"{PG}/postgres", name)


def recreate_database(name: str) -> None:
    """Dropped and made again: only this bench's own databases."""
    if not (name.startswith("demineur_http_") or name.endswith("_bench")):
        raise SystemExit(f"refusing to drop {name!r}")
    create_database(db_url(name), fresh=True)


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
    return app_env(db_url(OUR_DB), REDIS_URL, PREFIX)


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
    setup_django(our_env())
    from django.db import connections

    from demineur_site import publish

    flags: list[str] = []
    reveals: list[str] = []
    started = time.monotonic()
    for n in range(games):
        _, key, result = player_with_a_started_game(f"http{n}", "marathon", 40, 20)
        assert result.board is not None
        game = result.game
        flags += [f"{game.id} {key} {x} {y}" for x, y in layout_cells(result.board, "mine")]
        reveals += [f"{game.id} {key} {x} {y}" for x, y in layout_cells(result.board, "number")]
        if (n + 1) % 100 == 0:
            took = time.monotonic() - started
            say(f"  seeded {n + 1}/{games} players with a started marathon game ({took:.0f} s)")
    publish.flush()
    connections.close_all()
    rng.shuffle(flags)
    rng.shuffle(reveals)
    return Seeded(flags=flags, reveals=reveals)


# --- servers and wrk --------------------------------------------------------------------------


def anchor_server(name: str, ports: Ports, logs: Path, *, pubsub: bool = False) -> Server:
    """The anchor app on gunicorn (sync, 2 workers, no access log), started."""
    port = ports.take()
    argv = gunicorn_argv(
        port, workers=WORKERS, app="djbench.wsgi:application",
        extra=["-k", "sync", "--log-level", "warning"],
    )  # fmt: skip
    server = Server(
        name,
        argv,
        port=port,
        env=anchor_env(pubsub),
        logs=logs,
        cwd=ANCHOR_APP,
        ready_path="/hello/",
    )
    server.start()
    return server


def our_server(ports: Ports, logs: Path, *, locked: bool = False) -> AppServer:
    """Ours on gunicorn (sync, 2 workers, no access log), started; `locked`: every move on the
    locked path (DB_MOVE_COMPARE_AND_SET off), for --locked."""
    env = {**our_env(), "DB_MOVE_COMPARE_AND_SET": "0" if locked else "1"}
    name = "ours-locked" if locked else "ours"
    server = AppServer("gunicorn", ports.take(), env, logs, WORKERS, name=name)
    server.start()
    return server


def server_of(key: str) -> str:
    """The server a config's requests go to."""
    return {"flag": "ours", "reveal": "ours", "flag-locked": "ours-locked"}.get(key, key)


@dataclass
class Run(WrkFigures):
    """A wrk run and the CPU it cost."""

    server_us: float = 0.0  # server process tree CPU per request
    total_us: float = 0.0  # whole machine busy CPU per request (includes the neighbours' work)
    busy_cores: float = 0.0


def wrk(
    server: Server,
    script: tuple[Path, list[str]],
    seconds: float,
    threads: int,
    conns: int,
    log: IO[str],
) -> Run:
    """A wrk run against `server`, and the CPU its process tree and the machine spent; wrk's
    output goes to `log`."""
    with cpu_of(server.pid) as spent:
        f = clients.wrk(
            f"{server.url}/",
            threads=threads,
            conns=conns,
            seconds=seconds,
            script=script[0],
            script_args=script[1],
        )
    log.write(f"### {server.name} {f.log}\n")
    log.flush()
    return Run(
        **vars(f),
        server_us=spent.per_request_us(f.requests),
        total_us=1e6 * spent.machine_s / max(f.requests, 1),
        busy_cores=spent.busy_cores,
    )


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

    def args(self, config: str, seconds: float, threads: int) -> tuple[Path, list[str]]:
        """wrk's script and its arguments."""
        if config == "C1":
            return ANCHOR_LUA, ["/move/", self.games]
        if config == "D12":
            return ANCHOR_LUA, ["/move-pub-bg/", self.games]
        if config == "D10":
            return ANCHOR_LUA, ["/move-raw-pub-bg/", self.games]
        if config == "D5":
            return ANCHOR_LUA, ["/api/move/", self.games, ANCHOR_TOKEN]
        if config in ("flag", "flag-locked"):
            return MOVE_LUA, ["flag", str(self.flags), str(threads)]
        size = int(REVEAL_RATE_CAP * seconds) + 100
        start, end = self.next_reveal, self.next_reveal + size
        if end > len(self.reveals):
            self.wrapped = True
            start, end = 0, min(size, len(self.reveals))
        self.next_reveal = end
        path = self.workdir / "reveals.txt"
        path.write_text("\n".join(self.reveals[start:end]) + "\n")
        return MOVE_LUA, ["reveal", str(path), str(threads)]


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
    "flag-locked": "ours, every move locked: flag with DB_MOVE_COMPARE_AND_SET off",
}
ANCHORS = ("C1", "D5", "D10", "D12")
# Interleaved so that each of ours sits between anchors: the machine's drift falls on all.
ORDER = ["C1", "flag", "D10", "D5", "reveal", "D12"]


def order_of(args: argparse.Namespace) -> list[str]:
    """The configs of this run in their order: ORDER, with --locked's flag after D10."""
    return [*ORDER[:3], "flag-locked", *ORDER[3:]] if args.locked else ORDER


def med(runs: list[Run], attr: str) -> float:
    return median([getattr(r, attr) for r in runs])


def report(res: Results, args: argparse.Namespace, meta: dict[str, Any], prof: str | None) -> str:
    out = [
        f"Loaded: `wrk -t2 -c32 -d{args.seconds}s --latency`, {args.runs} rounds of "
        f"{' / '.join(order_of(args))} (interleaved), 2 s warm-up of each first. Medians of the runs.",
        "",
    ]
    head = ["config", "req/s (median)", "runs", "p50 ms", "p99 ms", "server CPU µs/req",
            "machine CPU µs/req", "non-2xx / socket errors"]  # fmt: skip
    rows: list[list[object]] = []
    for key in order_of(args):
        runs = res.loaded[key]
        rows.append([LABELS[key], f"**{med(runs, 'rps'):.0f}**",
                     " / ".join(f"{r.rps:.0f}" for r in runs), f"{med(runs, 'p50'):.1f}",
                     f"{med(runs, 'p99'):.1f}", f"{med(runs, 'server_us'):,.0f}",
                     f"{med(runs, 'total_us'):,.0f}",
                     f"{sum(r.non2xx for r in runs)} / {sum(r.sock_errors for r in runs)}"])  # fmt: skip
    out += table(head, rows, "lrlrrrrr")
    rows = []
    for anchor in ANCHORS:
        a = res.loaded[anchor]
        cells = []
        each = []
        for ours in ("flag", "reveal"):
            o = res.loaded[ours]
            cells.append(f"**{med(o, 'rps') / med(a, 'rps'):.2f}**")
            each.append(
                " / ".join(f"{x:.2f}" for x in ratios([r.rps for r in o], [r.rps for r in a]))
            )
        rows.append([f"ours / {anchor}", cells[0], cells[1], f"{each[0]}; {each[1]}"])
    head = ["ratio (of medians)", "flag", "reveal", "per-round ratios flag; reveal"]
    out += ["", *table(head, rows, "lrrl")]
    if "flag-locked" in res.loaded:
        unlocked, locked = res.loaded["flag"], res.loaded["flag-locked"]
        rps_each = ratios([r.rps for r in unlocked], [r.rps for r in locked])
        cpu = ratios([r.server_us for r in unlocked], [r.server_us for r in locked])
        out.append(
            f"\nThe move without a lock: flag / flag-locked **{med(unlocked, 'rps') / med(locked, 'rps'):.2f}**"
            f" x the requests a second (per round {' / '.join(f'{x:.2f}' for x in rps_each)}), "
            f"server CPU **{med(unlocked, 'server_us') / med(locked, 'server_us'):.2f}** x "
            f"(per round {' / '.join(f'{x:.2f}' for x in cpu)})."
        )
    if res.unloaded:
        out += [
            "",
            f"Unloaded: `wrk -t1 -c1 -d{args.c1_seconds}s --latency`, {args.runs} rounds, interleaved.",
            "",
        ]
        rows = []
        for key in order_of(args):
            runs = res.unloaded[key]
            p50s = " / ".join(f"{r.p50:.2f}" for r in runs)
            p99s = " / ".join(f"{r.p99:.2f}" for r in runs)
            rows.append([LABELS[key], f"{med(runs, 'rps'):.0f}", f"**{med(runs, 'p50'):.2f}** ({p50s})",
                         f"**{med(runs, 'p99'):.2f}** ({p99s})"])  # fmt: skip
        head = ["config @ c1", "req/s (median)", "p50 ms (runs)", "p99 ms (runs)"]
        out += table(head, rows, "lrll")
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


def figures_of(run: Run) -> dict[str, Any]:
    """A run as runs.json keeps it (wrk's output is in wrk.log)."""
    return {k: v for k, v in vars(run).items() if k != "log"}


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
    parser.add_argument(
        "--locked",
        action="store_true",
        help="also flag on a server with every move locked (DB_MOVE_COMPARE_AND_SET off)",
    )
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

    ports = Ports(PORTS)
    servers: dict[str, Server] = {
        "C1": anchor_server("C1", ports, workdir),
        "D12": anchor_server("D12", ports, workdir, pubsub=True),
        "D10": anchor_server("D10", ports, workdir, pubsub=True),
        "D5": anchor_server("D5", ports, workdir, pubsub=True),
        "ours": our_server(ports, workdir),
    }
    if args.locked:
        servers["ours-locked"] = our_server(ports, workdir, locked=True)
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
        record = Record("http")
        meta["load_before"] = record.load_before
        say(f"  load average before: {meta['load_before']}")
        t_timed = time.monotonic()
        say("4. Warm-up, 2 s each")
        for key in order_of(args):
            server = servers[server_of(key)]
            run = wrk(server, scripts.args(key, 2, 2), 2, 2, 32, log)
            say(f"  {key}: {run.rps:.0f} req/s, non-2xx {run.non2xx}")
        say(
            f"5. Loaded: {args.runs} rounds x {' / '.join(order_of(args))}, wrk -t2 -c32 -d{args.seconds}s"
        )
        for r in range(args.runs):
            for key in order_of(args):
                server = servers[server_of(key)]
                run = wrk(server, scripts.args(key, args.seconds, 2), args.seconds, 2, 32, log)
                res.loaded.setdefault(key, []).append(run)
                say(
                    f"  round {r + 1}/{args.runs} {key:>6}: {run.rps:6.0f} req/s  p50 {run.p50:6.1f} ms"
                    f"  p99 {run.p99:6.1f} ms  server {run.server_us:5.0f} µs/req  busy "
                    f"{run.busy_cores:.2f} cores  non-2xx {run.non2xx}  load {os.getloadavg()[0]:.2f}"
                )
        if not args.no_unloaded:
            say(
                f"6. Unloaded: {args.runs} rounds x {' / '.join(order_of(args))}, wrk -t1 -c1 -d{args.c1_seconds}s"
            )
            for r in range(args.runs):
                for key in order_of(args):
                    server = servers[server_of(key)]
                    run = wrk(
                        server, scripts.args(key, args.c1_seconds, 1), args.c1_seconds, 1, 1, log
                    )
                    res.unloaded.setdefault(key, []).append(run)
                    say(
                        f"  round {r + 1}/{args.runs} {key:>6} @c1: {run.rps:5.0f} req/s  "
                        f"p50 {run.p50:.2f} ms  p99 {run.p99:.2f} ms  non-2xx {run.non2xx}"
                    )
        meta["timed_s"] = time.monotonic() - t_timed
        meta["load_after"] = load_average()
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
    record.write(
        {
            "meta": meta,
            "loaded": {k: [figures_of(r) for r in v] for k, v in res.loaded.items()},
            "unloaded": {k: [figures_of(r) for r in v] for k, v in res.unloaded.items()},
        },
        workdir / "runs.json",
    )
    if args.out:
        args.out.write_text(text + "\n")
    say("\n## Results (docs/PERFORMANCE.md, section 'Move endpoint vs the perf-limits anchors')\n")
    say(text)


if __name__ == "__main__":
    main()
