"""Soak: bots play every level over REST and sockets on the production configuration for
SOAK_MINUTES (30 by default); each server process's memory and open connections are sampled,
and the run fails on growth that does not level off or on any error. Then it runs the crash
test (bench/soak/crash.py) and the long Schemathesis run when tests/reliability exposes one.

    make soak                                   # 30 min soak + crash test (+ long fuzzing)
    SOAK_MINUTES=5 .venv/bin/python -m bench.soak.soak
    .venv/bin/python -m bench.soak.soak --minutes 2 --no-crash --no-fuzz

Configuration: a private PostgreSQL and a private Redis (bench/harness/servers.py, ports
18500-18549), gunicorn with 2 sync workers for /api/ and uvicorn with 2 workers (DB_POOL=1) for
/ws/, DEBUG=0. The players are random bots (bench/soak/bots.py) playing through the public API
only; a few anonymous watchers stay on `/ws/live` all along.

Sampled every --interval seconds: for the gunicorn master and each worker, the uvicorn
supervisor and each worker, the resident memory (VmRSS from /proc/PID/status), the open file
descriptors and, of them, the sockets (/proc/PID/fd); the backends of the soak's database in
pg_stat_activity; Redis's connected clients.

Growth rule, for every series: the samples are cut in thirds; the first third is warm-up
(imports, caches, pools filling) and is ignored; the run fails when the median of the last third
exceeds the median of the middle third by more than a tolerance:
  memory: 5 % + 4 MB;  file descriptors, sockets, database backends, Redis clients: 20 % + 4.
A series that levels off has equal medians in its middle and last thirds; a steady leak puts
the last third ahead by a third of the run's growth. A server process that is replaced during
the soak (a worker that crashed or timed out) fails it too.

Errors: every error the bots see fails the soak (no outage is expected here), and so does an
acknowledged move missing from the database or a failed `manage.py verify_games`.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from bench import cli
from bench.harness.report import Run, say
from bench.harness.servers import ROOT, AppServer, sample
from bench.harness.timing import median

from . import bots, checks, crash
from .layout import Layout, production_layout

DATABASE = "demineur_soak"
FUZZ_TEST = ROOT / "tests" / "reliability" / "test_schemathesis.py"
FUZZ_SWITCH = "SCHEMATHESIS_EXAMPLES"


# --- the growth rule ----------------------------------------------------------------------


@dataclass(frozen=True)
class Tolerance:
    relative: float
    absolute: float


MEMORY = Tolerance(0.05, 4 * 1024)  # kB
COUNT = Tolerance(0.20, 4)


@dataclass
class Verdict:
    name: str
    unit: str
    first: float
    middle: float  # median of the middle third
    last: float  # median of the last third
    peak: float
    limit: float
    grows: bool

    def line(self) -> str:
        scale, fmt = (1024, "{:.1f} MB") if self.unit == "kB" else (1, "{:.0f}")

        def f(v: float) -> str:
            return fmt.format(v / scale)

        mark = "GROWS" if self.grows else "ok"
        return (
            f"| {self.name} | {f(self.first)} | {f(self.middle)} | {f(self.last)} | "
            f"{f(self.peak)} | {f(self.limit)} | {mark} |"
        )


def judge_series(name: str, values: Sequence[float], unit: str, tol: Tolerance) -> Verdict | None:
    """None when there are too few samples to cut in thirds (fewer than 9)."""
    n = len(values)
    if n < 9:
        return None
    third = n // 3
    middle = median(values[third : 2 * third])
    last = median(values[2 * third :])
    limit = middle * (1 + tol.relative) + tol.absolute
    return Verdict(
        name, unit, float(values[0]), middle, last, float(max(values)), limit, last > limit
    )


# --- sampling -----------------------------------------------------------------------------


@dataclass
class Samples:
    t: list[float] = field(default_factory=list)
    series: dict[str, list[float]] = field(default_factory=dict)
    pids: dict[str, int] = field(default_factory=dict)
    replaced: list[str] = field(default_factory=list)

    def add(self, name: str, value: float) -> None:
        self.series.setdefault(name, []).append(value)


def processes(web: AppServer, live: AppServer) -> dict[str, int]:
    out = {"gunicorn master": web.pid, "uvicorn supervisor": live.pid}
    for i, pid in enumerate(web.worker_pids()):
        out[f"gunicorn worker {i + 1}"] = pid
    for i, pid in enumerate(live.worker_pids()):
        out[f"uvicorn worker {i + 1}"] = pid
    return out


def take_sample(
    samples: Samples, web: AppServer, live: AppServer, pg_url: str, redis_url: str, t: float
) -> dict[str, Any]:
    import psycopg
    import redis

    now: dict[str, Any] = {}
    for name, pid in processes(web, live).items():
        known = samples.pids.setdefault(name, pid)
        if known != pid:
            samples.replaced.append(f"{name}: pid {known} replaced by {pid} at {t:.0f} s")
            samples.pids[name] = pid
        got = sample(pid)
        if got is None:
            continue
        samples.add(f"{name} RSS", got.rss_kb)
        samples.add(f"{name} fds", got.fds)
        samples.add(f"{name} sockets", got.sockets)
        now[name] = got
    with psycopg.connect(pg_url, autocommit=True) as conn:
        row = conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND pid <> pg_backend_pid()"
        ).fetchone()
    backends = int(row[0]) if row else 0
    samples.add("PostgreSQL backends", backends)
    client = redis.Redis.from_url(redis_url)
    try:
        clients = int(client.info("clients")["connected_clients"]) - 1  # minus this one
    finally:
        client.close()
    samples.add("Redis clients", clients)
    samples.t.append(t)
    now["backends"] = backends
    now["redis"] = clients
    return now


# --- watchers -----------------------------------------------------------------------------


async def lobby_watcher(
    port: int, ledger: bots.Ledger, stop: asyncio.Event, seen: list[int]
) -> None:
    """An anonymous socket on /ws/live for the whole soak, reading every message."""
    from websockets.asyncio.client import connect

    try:
        async with connect(f"ws://127.0.0.1:{port}/ws/live", max_size=2**22) as ws:
            while not stop.is_set():
                try:
                    json.loads(await asyncio.wait_for(ws.recv(), 1.0))
                    seen[0] += 1
                except TimeoutError:
                    continue
    except Exception as exc:  # any close before the end is an error of the soak
        if not stop.is_set():
            ledger.error(f"lobby watcher: {type(exc).__name__}", str(exc))


# --- the run ------------------------------------------------------------------------------


@dataclass
class SoakConfig:
    minutes: float = 30.0
    players: int = 24
    socket_share: float = 0.4
    think: float = 0.1
    watchers: int = 4
    interval: float | None = None  # seconds between samples; None: minutes*60/90, 2..10


@dataclass
class SoakReport:
    config: SoakConfig
    ledger: bots.Ledger
    samples: Samples
    verdicts: list[Verdict]
    stored: checks.Stored | None
    verified: bool
    verify_output: str
    lobby_messages: int
    loaded_s: float
    failures: list[str]

    def lines(self) -> list[str]:
        lg = self.ledger
        rate = len(lg.acked) / self.loaded_s if self.loaded_s else 0.0
        lost = len(self.stored.lost) if self.stored else "?"
        out = [
            f"soak: {self.loaded_s / 60:.1f} min, {self.config.players} players "
            f"({round(self.config.players * self.config.socket_share)} on sockets), "
            f"{self.config.watchers} lobby watchers, {len(self.samples.t)} samples",
            f"moves acknowledged: {len(lg.acked)} ({rate:.0f}/s; REST {lg.acked_rest}, socket "
            f"{lg.acked_socket}), lost: {lost}; games {lg.games} ({lg.games_ended} ended), "
            f"levels {dict(lg.levels)}; lobby messages read: {self.lobby_messages}",
            f"errors: {dict(lg.errors) or 'none'}",
            f"verify_games: {'passed' if self.verified else 'FAILED'}: "
            + (self.verify_output.splitlines()[-1] if self.verify_output else ""),
            "",
            "| series | first | middle third (median) | last third (median) | peak | limit | verdict |",
            "| --- | ---: | ---: | ---: | ---: | ---: | --- |",
        ]
        out += [v.line() for v in self.verdicts]
        out += ["", "failures: " + ("; ".join(self.failures) if self.failures else "none")]
        return out


async def drive(
    cfg: SoakConfig, layout: Layout, log: Callable[[str], None]
) -> tuple[bots.Ledger, Samples, int, float]:
    web, live = layout.web, layout.live
    load = bots.Load(web.port, live.port, bots.LEVELS, cfg.think)
    ledger, stop = load.ledger, load.stop
    players = bots.make_players(layout.accounts, load, socket_share=cfg.socket_share, seed=7)
    seen = [0]
    tasks = [asyncio.create_task(p.run()) for p in players]
    tasks += [
        asyncio.create_task(lobby_watcher(live.port, ledger, stop, seen))
        for _ in range(cfg.watchers)
    ]
    total = cfg.minutes * 60
    interval = cfg.interval or min(10.0, max(2.0, total / 90))
    samples = Samples()
    started = time.monotonic()
    last_acked = 0
    log(f"soak: {total / 60:.1f} min, a sample every {interval:.0f} s")
    while (elapsed := time.monotonic() - started) < total:
        await asyncio.sleep(min(interval, max(0.0, total - elapsed)))
        t = time.monotonic() - started
        now = await asyncio.to_thread(
            take_sample, samples, web, live, layout.database_url, layout.redis_url, t
        )
        acked = len(ledger.acked)
        mem = " ".join(
            f"{name.replace('gunicorn ', 'g').replace('uvicorn ', 'u').replace('worker ', 'w')}"
            f"={s.rss_kb / 1024:.0f}MB/{s.fds}fd"
            for name, s in now.items()
            if not isinstance(s, int)
        )
        log(
            f"  {t:6.0f} s  acked {acked} (+{(acked - last_acked) / interval:.0f}/s)  games "
            f"{ledger.games}  errors {sum(ledger.errors.values())}  pg {now['backends']}  "
            f"redis {now['redis']}  {mem}"
        )
        last_acked = acked
    stop.set()
    loaded = time.monotonic() - started
    await asyncio.gather(*tasks)
    return ledger, samples, seen[0], loaded


def run_soak(cfg: SoakConfig, log: Callable[[str], None] = say) -> SoakReport:
    run = Run("soak")
    with production_layout("soak", database=DATABASE, players=cfg.players, log=log) as layout:
        ledger, samples, lobby, loaded = asyncio.run(drive(cfg, layout, log))
        layout.stop_servers()
        log("soak: load stopped; checking the database (verify_games replays every game)")
        stored = checks.lost_moves(layout.database_url, ledger)
        verified, verify_output = checks.verify_games(layout.env, timeout=1800)
    logs = layout.logs
    verdicts = []
    for name, values in samples.series.items():
        unit = "kB" if name.endswith("RSS") else "count"
        verdict = judge_series(name, values, unit, MEMORY if unit == "kB" else COUNT)
        if verdict is not None:
            verdicts.append(verdict)
    failures = [
        f"{v.name} grows: {v.middle:.0f} -> {v.last:.0f} {v.unit}" for v in verdicts if v.grows
    ]
    if not verdicts:
        failures.append("too few samples to judge growth (a longer run is needed)")
    failures += samples.replaced
    if ledger.errors:
        failures.append(f"errors: {dict(ledger.errors)}; {ledger.unexpected[:3]}")
    if ledger.conflicts:
        failures.append(f"conflicting acknowledgements: {ledger.conflicts[:3]}")
    if stored.lost:
        failures.append(f"{len(stored.lost)} acknowledged move(s) not stored: {stored.lost[:3]}")
    if not verified:
        failures.append(f"verify_games failed: {verify_output}")
    if not ledger.acked_rest or (not ledger.acked_socket and cfg.socket_share):
        failures.append("no move was acknowledged through one of the doors")
    report = SoakReport(
        cfg, ledger, samples, verdicts, stored, verified, verify_output, lobby, loaded, failures
    )
    for line in report.lines():
        log(line)
    run.write(
        {
            "config": vars(cfg),
            "failures": failures,
            "verdicts": [vars(v) for v in verdicts],
            "t": samples.t,
            "series": samples.series,
        },
        logs / "samples.json",
    )
    return report


def run_fuzz(log: Callable[[str], None] = say) -> bool | None:
    """The long Schemathesis run, when tests/reliability/test_schemathesis.py reads an
    examples switch from the environment; None when it does not exist (skipped)."""
    if not FUZZ_TEST.exists() or FUZZ_SWITCH not in FUZZ_TEST.read_text():
        log(f"fuzz: skipped: {FUZZ_TEST.relative_to(ROOT)} has no {FUZZ_SWITCH} switch")
        return None
    examples = os.environ.get("SOAK_SCHEMATHESIS_EXAMPLES", "200")
    log(f"fuzz: {FUZZ_TEST.relative_to(ROOT)} with {FUZZ_SWITCH}={examples}")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(FUZZ_TEST)],
        cwd=ROOT,
        env={**os.environ, FUZZ_SWITCH: examples},
    )
    return done.returncode == 0


def main() -> None:
    parser = cli.parser(__doc__)
    parser.add_argument(
        "--minutes", type=float, default=float(os.environ.get("SOAK_MINUTES", "30"))
    )
    parser.add_argument("--players", type=int, default=SoakConfig.players)
    parser.add_argument("--interval", type=float, default=None, help="seconds between samples")
    parser.add_argument("--no-crash", action="store_true", help="skip the crash test")
    parser.add_argument("--no-fuzz", action="store_true", help="skip the long Schemathesis run")
    args = parser.parse_args()
    results: dict[str, bool | None] = {}
    report = run_soak(
        SoakConfig(minutes=args.minutes, players=args.players, interval=args.interval)
    )
    results["soak"] = not report.failures
    if not args.no_crash:
        results["crash"] = crash.run(crash.Config()).passed
    if not args.no_fuzz:
        results["fuzz"] = run_fuzz()
    say("")
    for name, ok in results.items():
        say(f"{name}: {'skipped' if ok is None else 'PASSED' if ok else 'FAILED'}")
    sys.exit(0 if all(ok is not False for ok in results.values()) else 1)


if __name__ == "__main__":
    main()
