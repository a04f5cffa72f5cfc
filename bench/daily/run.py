"""The daily board's reads with 100,000 players on one day (goal: p99 under 20 ms).

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

import json
import os
import random
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from typing import Any

from bench import cli
from bench.harness.database import ROOT, create_database, setup_django
from bench.harness.report import Progress, Run, say, show, table
from bench.harness.timing import figures, interleaved

RESULTS = ROOT / "bench" / "daily" / "results.json"
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


def _seed(players: int, reseed: bool) -> None:
    from django.db import connection

    from accounts.models import User
    from accounts.standings import daily
    from accounts.standings.models import DailyEntry
    from tests.support.daily_entries import ranked_entry

    have = DailyEntry.objects.filter(day=DAY, level="expert").count()
    if have == players and not reseed:
        say(f"seeded already: {have} players on {DAY} expert")
        return
    batch = 5000
    say(f"seeding {players} players ...")
    progress = Progress(players, "players", every=batch)
    DailyEntry.objects.all().delete()
    User.objects.filter(username__startswith="daily-").delete()
    rng = random.Random(22)
    start = datetime(2026, 12, 3, tzinfo=UTC)
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
            progress.step()
        DailyEntry.objects.bulk_create(entries)
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
    say("seeded")


def _uuid(rng: random.Random) -> Any:
    import uuid

    return uuid.UUID(int=rng.getrandbits(128), version=4)


def _measure(samples: int) -> dict[str, Any]:
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

    def ask_for(case: str) -> tuple[PageAsk, bool]:
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
        return ask, case == "around=me, rows counted"

    def read(asked: tuple[PageAsk, bool]) -> None:
        ask, direct = asked
        page = daily.daily_board_page(board=board, ask=ask, direct=direct)
        json.dumps({"count": page.count, "results": page.results, "me": page.me})

    rounds = Progress(samples, "round", every=samples // 10)
    cases = {case: (lambda case=case: ask_for(case), read) for case in CASES}
    timed = interleaved(cases, samples, on_round=rounds.on_round)["wall"]
    out: dict[str, Any] = {c: figures([v * 1000 for v in timed[c]]) for c in CASES}
    return {"board": {"rows": count, "samples": samples, "page_size": size}, "cases": out}


def main() -> None:
    parser = cli.parser(__doc__)
    parser.add_argument("--players", type=int, default=100_000)
    parser.add_argument("--samples", type=int, default=400)
    parser.add_argument("--reseed", action="store_true")
    args = parser.parse_args()
    url = os.environ.get("BENCH_DAILY_DATABASE_URL", DEFAULT_URL)
    create_database(url)
    setup_django({"DATABASE_URL": url}, drop=("REDIS_URL",))  # the board reads no cache
    _seed(args.players, args.reseed)
    say(f"measuring {args.samples} rounds of {len(CASES)} reads ...")
    record = Run("daily")
    results = record.write(_measure(args.samples), RESULTS)
    rows = [[case, r["p50_ms"], r["p99_ms"]] for case, r in results["cases"].items()]
    show(table(["case", "p50 ms", f"p99 ms (goal < {GOAL_P99_MS} ms)"], rows))
    say(f"board rows: {results['board']['rows']}")


if __name__ == "__main__":
    main()
