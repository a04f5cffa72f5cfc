"""What the clocks cost a live process.

    .venv/bin/python -m bench.clocks.run                  # `make bench-clocks`
    .venv/bin/python -m bench.clocks.run --ticks 100      # a smoke run

Every ASGI process runs three background threads beside the sockets (games/races/clock.py):
the race clock (10 ticks a second: races, the quick-match queue and, through its listener,
arenas), the daily clock (once a second) and the analysis worker's poll (once a second when
idle). Their cost is paid whatever the players do, and it shares the process's GIL with every
socket move (docs/PERFORMANCE.md).

A PostgreSQL database of its own (BENCH_CLOCKS_DATABASE_URL, default
postgres://postgres@127.0.0.1:5432/demineur_bench_clocks) is created, migrated and emptied;
production settings (DEBUG off), in process. Two states of the server:

* idle: the server's own arena schedule (ARENA_SCHEDULE's default: an hourly Beginner arena
  and a daily Expert one) running with nobody in them; yesterday's and today's dailies dealt
  and yesterday's closed;
* busy: the same, plus 40 bots in an arena of their own, all racing (five races of eight,
  started, nobody done): the state between two pairings.

In each state, --ticks calls of each clock's tick as its thread makes it, interleaved; for
each the CPU of the calling thread (time.thread_time) and the wall time, p50 and p99, and what
that costs a process a second at the clock's rate (CPU ms a second = the share of one core in
thousandths). Prints a table and writes bench/clocks/results.json.
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from bench import cli
from bench.harness.database import create_database, setup_django
from bench.harness.report import Progress, Run, say, show, table
from bench.harness.servers import ROOT
from bench.harness.timing import interleaved, median, percentile

RESULTS = ROOT / "bench" / "clocks" / "results.json"
DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/demineur_bench_clocks"
BOTS = 40
RATES = {"race clock": 10.0, "daily clock": 1.0, "analysis poll": 1.0}  # ticks a second


def _prepare_idle() -> None:
    """The server's schedule running, nobody in it; yesterday's dailies closed, today's dealt."""
    from django.core.management import call_command
    from django.utils import timezone

    from games.arenas import services as arenas
    from games.arenas.models import Arena
    from games.daily import services as daily

    call_command("flush", interactive=False, verbosity=0)
    now = timezone.now()
    arenas.schedule_arenas(now=now)
    Arena.objects.update(starts_at=now - timedelta(seconds=1), deadline=now - timedelta(seconds=1))
    arenas.arena_clock_tick(now=now, pair=False)
    yesterday = now - timedelta(days=1)
    daily.daily_tick(now=yesterday)  # deals yesterday's six
    daily.daily_tick(now=now)  # closes them, deals today's
    running = Arena.objects.filter(state="running").count()
    say(f"idle: {running} arenas of the server's schedule running, dailies dealt")


def _prepare_busy() -> None:
    """40 bots in an arena of their own, paired into five races that have started."""
    from django.utils import timezone

    from accounts.models import AccountKind, User
    from games.arenas import services as arenas
    from games.arenas.models import Arena
    from games.races import services as races
    from games.races.models import Race

    bots = []
    for i in range(BOTS):
        user = User(username=f"clock-bot-{i}", kind=AccountKind.BOT)
        user.set_unusable_password()
        user.save()
        bots.append(user)
    arena = arenas.arena_create(player=bots[0], level="beginner", minutes=60)
    for bot in bots:
        arenas.arena_join(arena_id=arena.id, player=bot)
    races.race_clock_tick()  # pairs them (countdowns)
    now = timezone.now()
    past = now - timedelta(milliseconds=1)
    Race.objects.filter(arena=arena).update(starts_at=past, deadline=past)
    races.race_clock_tick()  # the countdowns end: the races start
    running = Race.objects.filter(arena=arena, state="running").count()
    assert Arena.objects.filter(pk=arena.pk, state="running").exists()
    say(f"busy: {BOTS} bots racing in {running} races of one arena, beside the schedule's")


def _clocks() -> dict[str, Callable[[], Any]]:
    from games.daily.services import daily_tick
    from games.play.analysis_jobs import AnalysisWorker
    from games.races.services import race_clock_tick

    worker = AnalysisWorker(now=datetime.now(UTC))
    return {
        "race clock": race_clock_tick,
        "daily clock": daily_tick,
        "analysis poll": worker.run_once,
    }


def _measure(ticks: int, state: str) -> dict[str, dict[str, float]]:
    from django.db import connection

    rounds = Progress(ticks, f"{state}: round", every=ticks // 5)
    clocks = {"cpu": time.thread_time, "wall": time.perf_counter}
    timed = interleaved(_clocks(), ticks, clocks=clocks, on_round=rounds.on_round)
    connection.close()
    out: dict[str, dict[str, float]] = {}
    for name in RATES:
        cpu = [v * 1e6 for v in timed["cpu"][name]]
        wall = [v * 1e6 for v in timed["wall"][name]]
        out[name] = {
            "cpu_p50_us": round(median(cpu), 1),
            "cpu_p99_us": round(percentile(cpu, 99), 1),
            "wall_p50_us": round(median(wall), 1),
            "wall_p99_us": round(percentile(wall, 99), 1),
            "cpu_ms_per_s": round(statistics.mean(cpu) * RATES[name] / 1000, 2),
        }
    out["all three"] = {"cpu_ms_per_s": round(sum(v["cpu_ms_per_s"] for v in out.values()), 2)}
    return out


def main() -> None:
    parser = cli.parser(__doc__)
    parser.add_argument("--ticks", type=int, default=500, help="calls of each tick per state")
    args = parser.parse_args()
    url = os.environ.get("BENCH_CLOCKS_DATABASE_URL", DEFAULT_URL)
    create_database(url)
    # This process calls the ticks itself; events go to the in-memory layer: not measured here.
    setup_django({"DATABASE_URL": url, "RACE_CLOCK": "off"}, drop=("REDIS_URL",))
    record = Run("clocks")
    results: dict[str, Any] = {}
    _prepare_idle()
    results["idle"] = _measure(args.ticks, "idle")
    _prepare_busy()
    results["busy"] = _measure(args.ticks, "busy")
    record.write(results, RESULTS)
    rows: list[list[object]] = []
    for state in ("idle", "busy"):
        for name, r in results[state].items():
            if name == "all three":
                rows.append([state, name, "", "", r["cpu_ms_per_s"]])
                continue
            cpu = f"{r['cpu_p50_us']:.0f} / {r['cpu_p99_us']:.0f}"
            wall = f"{r['wall_p50_us']:.0f} / {r['wall_p99_us']:.0f}"
            rows.append([state, name, cpu, wall, r["cpu_ms_per_s"]])
    say("")
    show(table(["state", "clock", "CPU p50/p99 µs", "wall p50/p99 µs", "CPU ms/s"], rows, "llrrr"))


if __name__ == "__main__":
    main()
