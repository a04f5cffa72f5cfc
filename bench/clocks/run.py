"""What the clocks cost a live process (issue 27: "make the clocks' ticks cheap").

    .venv/bin/python -m bench.clocks.run                  # `make bench-clocks`
    .venv/bin/python -m bench.clocks.run --ticks 100      # a smoke run

Every ASGI process runs three background threads beside the sockets (games/races/clock.py):
the race clock (10 ticks a second: races, the quick-match queue and, through its listener,
arenas), the daily clock (once a second) and the analysis worker's poll (once a second when
idle). Their cost is paid whatever the players do, and it shares the process's GIL with every
socket move (docs/PERFORMANCE.md, Issue 27).

A PostgreSQL database of its own (BENCH_CLOCKS_DATABASE_URL, default
postgres://postgres@127.0.0.1:5432/demineur_bench_clocks) is created, migrated and flushed;
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

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bench.daily.run import create_database

ROOT = Path(__file__).resolve().parents[2]
RESULTS = Path(__file__).resolve().parent / "results.json"
DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/demineur_bench_clocks"
BOTS = 40
RATES = {"race clock": 10.0, "daily clock": 1.0, "analysis poll": 1.0}  # ticks a second


def say(text: str) -> None:
    print(text, flush=True)


def _setup(url: str) -> None:
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("SECRET_KEY", "bench-clocks-only-not-a-secret")
    os.environ["DEBUG"] = "0"
    os.environ["RACE_CLOCK"] = "off"  # this process calls the ticks itself
    os.environ.pop("REDIS_URL", None)  # events go to the in-memory layer: not measured here
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "demineur_site.settings")
    import django

    django.setup()


def _prepare_idle() -> None:
    """The server's schedule running, nobody in it; yesterday's dailies closed, today's dealt."""
    from django.core.management import call_command
    from django.utils import timezone

    from games.arenas import services as arenas
    from games.arenas.models import Arena
    from games.daily import services as daily

    call_command("migrate", verbosity=0)
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

    clocks = _clocks()
    cpu: dict[str, list[float]] = {name: [] for name in clocks}
    wall: dict[str, list[float]] = {name: [] for name in clocks}
    for tick in clocks.values():  # warm: connections, caches, prepared plans
        tick()
    for k in range(ticks):
        for name, tick in clocks.items():
            c0, w0 = time.thread_time(), time.perf_counter()
            tick()
            cpu[name].append((time.thread_time() - c0) * 1e6)
            wall[name].append((time.perf_counter() - w0) * 1e6)
        if (k + 1) % max(1, ticks // 5) == 0:
            say(f"  {state}: {k + 1}/{ticks} rounds")
    connection.close()
    out: dict[str, dict[str, float]] = {}
    for name in clocks:
        c, w = sorted(cpu[name]), sorted(wall[name])
        p99 = min(len(c) - 1, int(len(c) * 0.99))
        out[name] = {
            "cpu_p50_us": round(statistics.median(c), 1),
            "cpu_p99_us": round(c[p99], 1),
            "wall_p50_us": round(statistics.median(w), 1),
            "wall_p99_us": round(w[p99], 1),
            "cpu_ms_per_s": round(statistics.mean(c) * RATES[name] / 1000, 2),
        }
    out["all three"] = {"cpu_ms_per_s": round(sum(v["cpu_ms_per_s"] for v in out.values()), 2)}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ticks", type=int, default=500, help="calls of each tick per state")
    args = parser.parse_args()
    url = os.environ.get("BENCH_CLOCKS_DATABASE_URL", DEFAULT_URL)
    create_database(url)
    _setup(url)
    results: dict[str, Any] = {}
    _prepare_idle()
    results["idle"] = _measure(args.ticks, "idle")
    _prepare_busy()
    results["busy"] = _measure(args.ticks, "busy")
    results["_run"] = {
        "at": datetime.now(UTC).isoformat(timespec="seconds"),
        "command": " ".join(["python -m bench.clocks.run", *sys.argv[1:]]),
        "cpus": os.cpu_count(),
        "load": round(os.getloadavg()[0], 2),
    }
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    say(
        f"\n{'state':<6} {'clock':<14} {'CPU p50/p99 µs':>18} {'wall p50/p99 µs':>18} {'CPU ms/s':>9}"
    )
    for state in ("idle", "busy"):
        for name, r in results[state].items():
            if name == "all three":
                say(f"{state:<6} {name:<14} {'':>18} {'':>18} {r['cpu_ms_per_s']:>9}")
                continue
            cpu = f"{r['cpu_p50_us']:.0f} / {r['cpu_p99_us']:.0f}"
            wall = f"{r['wall_p50_us']:.0f} / {r['wall_p99_us']:.0f}"
            say(f"{state:<6} {name:<14} {cpu:>18} {wall:>18} {r['cpu_ms_per_s']:>9}")
    say(f"load {results['_run']['load']}; written to {RESULTS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
