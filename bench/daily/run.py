"""The daily board's reads with 100,000 players on one day (issue 22: p99 under 20 ms).

    .venv/bin/python -m bench.daily.run                      # 100,000 players, 400 samples a case
    .venv/bin/python -m bench.daily.run --players 20000 --samples 50   # a smoke run

A PostgreSQL database of its own (BENCH_DAILY_DATABASE_URL, default
postgres://postgres@127.0.0.1:5432/demineur_bench_daily) is created, migrated and seeded once:
PLAYERS accounts, each with a daily entry on one day's Expert board (70 % won with times
spread over 30-600 s, 25 % lost, 5 % still playing), and a few thousand on other levels; it is
kept afterwards, so a re-run measures without reseeding (--reseed forces it). Then VACUUM
ANALYZE and the histogram folded (accounts migration 0014), and in interleaved rounds, server side and in process,
`accounts.standings.daily.daily_board_page` plus `json.dumps` of the answer for: the first
page anonymous, the first page signed in (with `me`: the viewer's rank), the middle page, the
last page, `around=me` of a random player, and the same `around=me` with the rows counted
directly (the read before the histogram, for the ratio). Prints p50/p99 per case and writes
bench/daily/results.json. Production settings (DEBUG off)."""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
RESULTS = Path(__file__).resolve().parent / "results.json"
DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/demineur_bench_daily"
DAY = date(2026, 12, 3)
CASES = (
    "first page",
    "first page, signed in",
    "middle page",
    "last page",
    "around=me",
    "around=me, rows counted",  # the same read without the histogram (direct=True)
)
GOAL_P99_MS = 20.0


def _setup(url: str) -> None:
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("SECRET_KEY", "bench-daily-only-not-a-secret")
    os.environ["DEBUG"] = "0"
    os.environ.pop("REDIS_URL", None)  # the board reads no cache
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "demineur_site.settings")
    import django

    django.setup()


def create_database(url: str) -> None:
    """The database of `url`, created if missing (bench/clocks uses it too)."""
    import psycopg

    name = url.rsplit("/", 1)[1]
    admin = url.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin, autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')
            print(f"created database {name}", flush=True)


def _seed(players: int, reseed: bool) -> None:
    from django.core.management import call_command
    from django.db import connection

    from accounts.models import User
    from accounts.standings import daily
    from accounts.standings.models import DailyEntry
    from tests.support.daily_entries import ranked_entry

    call_command("migrate", verbosity=0)
    have = DailyEntry.objects.filter(day=DAY, level="expert").count()
    if have == players and not reseed:
        print(f"seeded already: {have} players on {DAY} expert", flush=True)
        return
    print(f"seeding {players} players ...", flush=True)
    DailyEntry.objects.all().delete()
    User.objects.filter(username__startswith="daily-").delete()
    rng = random.Random(22)
    start = datetime(2026, 12, 3, tzinfo=UTC)
    batch = 5000
    for first in range(0, players, batch):
        users = User.objects.bulk_create(
            User(username=f"daily-{i:07d}", password="!", kind="human")
            for i in range(first, min(players, first + batch))
        )
        entries = []
        for user in users:
            roll = rng.random()
            at = start + timedelta(seconds=rng.uniform(0, 86_000))
            if roll < 0.70:
                state, time_ms, opened = "won", rng.randint(30_000, 600_000), 381
            elif roll < 0.95:
                state, time_ms, opened = "lost", None, rng.randint(5, 380)
            else:
                state, time_ms, opened = "playing", None, rng.randint(5, 380)
            level = "expert" if rng.random() < 0.97 else "beginner"
            board = daily.DailyBoard(day=DAY, level=level, pool="human")
            game_id = _uuid(rng)
            entries.append(
                ranked_entry(
                    user, board, game_id=game_id, state=state, time_ms=time_ms, opened=opened, at=at
                )
            )
        DailyEntry.objects.bulk_create(entries)
        done = min(players, first + batch)
        print(f"  {done}/{players} players", flush=True)
    # top up Expert to exactly `players` rows (the level draw above sends a few elsewhere)
    missing = players - DailyEntry.objects.filter(day=DAY, level="expert").count()
    if missing > 0:
        moved = list(
            DailyEntry.objects.filter(day=DAY, level="beginner").values_list("pk", flat=True)[
                :missing
            ]
        )
        DailyEntry.objects.filter(pk__in=moved).update(level="expert")
    with connection.cursor() as cur:
        cur.execute("VACUUM ANALYZE accounts_daily_entry")
    print("seeded", flush=True)


def _uuid(rng: random.Random) -> Any:
    import uuid

    return uuid.UUID(int=rng.getrandbits(128), version=4)


def _measure(samples: int) -> dict[str, dict[str, float]]:
    from django.db import connection

    from accounts.models import User
    from accounts.standings import daily
    from accounts.standings.leaderboards import PageAsk
    from accounts.standings.models import DailyEntry

    daily.compact(day=DAY)  # what the daily clock does every few seconds
    with connection.cursor() as cur:
        cur.execute("VACUUM ANALYZE accounts_daily_entry")
        cur.execute("VACUUM ANALYZE accounts_daily_count")
    board = daily.DailyBoard(day=DAY, level="expert", pool="human")
    count = DailyEntry.objects.filter(day=DAY, level="expert", pool="human").count()
    size = 50
    last = max(1, (count + size - 1) // size)
    ids = list(DailyEntry.objects.filter(day=DAY, level="expert").values_list("user_id", flat=True))
    rng = random.Random(7)
    viewers = {u.pk: u for u in User.objects.filter(pk__in=rng.sample(ids, min(500, len(ids))))}
    pool = list(viewers.values())
    times: dict[str, list[float]] = {case: [] for case in CASES}

    def one(case: str) -> None:
        viewer = rng.choice(pool)
        ask = PageAsk(page=1, page_size=size)
        if case == "first page, signed in":
            ask = replace(ask, viewer=viewer)
        elif case == "middle page":
            ask = replace(ask, page=last // 2)
        elif case == "last page":
            ask = replace(ask, page=last)
        elif case in ("around=me", "around=me, rows counted"):
            ask = replace(ask, viewer=viewer, around_me=True)
        direct = case == "around=me, rows counted"
        started = time.perf_counter()
        page = daily.daily_board_page(board=board, ask=ask, direct=direct)
        json.dumps({"count": page.count, "results": page.results, "me": page.me})
        times[case].append((time.perf_counter() - started) * 1000)

    for case in CASES:  # warm the caches once
        one(case)
    for k in range(samples):
        for case in CASES:
            one(case)
        if (k + 1) % max(1, samples // 10) == 0:
            print(f"  round {k + 1}/{samples}", flush=True)
    out = {}
    for case, values in times.items():
        values.sort()
        p99 = values[min(len(values) - 1, int(len(values) * 0.99))]
        out[case] = {
            "p50_ms": round(statistics.median(values), 2),
            "p99_ms": round(p99, 2),
            "max_ms": round(values[-1], 2),
        }
    out["_board"] = {"rows": count, "samples": samples, "page_size": size}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=100_000)
    parser.add_argument("--samples", type=int, default=400)
    parser.add_argument("--reseed", action="store_true")
    args = parser.parse_args()
    url = os.environ.get("BENCH_DAILY_DATABASE_URL", DEFAULT_URL)
    create_database(url)
    _setup(url)
    _seed(args.players, args.reseed)
    print(f"measuring {args.samples} rounds of {len(CASES)} reads ...", flush=True)
    results = _measure(args.samples)
    results["_run"] = {
        "at": datetime.now(UTC).isoformat(timespec="seconds"),
        "command": " ".join(["python -m bench.daily.run", *sys.argv[1:]]),
        "cpus": os.cpu_count(),
        "load": os.getloadavg()[0],
    }
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    print(f"\n{'case':<24} {'p50 ms':>8} {'p99 ms':>8}  (goal p99 < {GOAL_P99_MS} ms)")
    for case in CASES:
        r = results[case]
        print(f"{case:<24} {r['p50_ms']:>8} {r['p99_ms']:>8}")
    print(f"board rows: {results['_board']['rows']}; written to {RESULTS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
