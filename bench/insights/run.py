"""A player's insights read with 100,000 analysed games behind it (goal: p99 under 50 ms).

    .venv/bin/python -m bench.insights.run                       # 100,000 games, 400 samples a case
    .venv/bin/python -m bench.insights.run --games 20000 --samples 50   # a smoke run

A PostgreSQL database of its own (BENCH_INSIGHTS_DATABASE_URL, else DATABASE_URL's name +
`_bench_insights`, else demineur_bench_insights on 127.0.0.1) is created, migrated and seeded
once, then kept (--reseed seeds again). The seeding folds GAMES synthetic analysed games of one
player through the insights' own fold (accounts.standings.insights: `game_share` for each game,
then `months_after` and `heat_after`, what `record_game` applies under the row lock), over 96
months, every level and both modes, each game 10 to 80 labelled moves (about 88 % deduced, 8 %
forced, 4 % avoidable guesses) with think times and cells; the last 1,000 of them go through
`record_game` itself, one transaction each, and its p50/p99 is reported too. 2,000 other
players get a year of a few games each, so the table is not one player's. Then VACUUM ANALYZE
and, in interleaved rounds, `GET /api/users/{name}/insights` (classic, and `?mode=no_guess`)
through Django's WSGI handler (django.test.Client: routing, the view, the read, the JSON),
production settings (DEBUG off). Prints p50/p99 per case and the answer's size, and writes
bench/insights/results.json."""

from __future__ import annotations

import json
import random
import time
from typing import Any

from bench import cli
from bench.harness.database import (
    ROOT,
    beside_database_url,
    create_database,
    on_database_server,
    setup_django,
)
from bench.harness.report import Progress, Run, say, show, table
from bench.harness.timing import CPU_AND_WALL, figures, interleaved

RESULTS = ROOT / "bench" / "insights" / "results.json"
PLAYER = "insight-heavy"
CASES = ("classic", "no_guess")
GOAL_P99_MS = 50.0
THROUGH_WRITER = 1_000  # the last games, folded through record_game (the database path)
OTHERS = 2_000
MONTHS = [f"{2019 + m // 12}-{m % 12 + 1:02d}" for m in range(96)]  # 2019-01 .. 2026-12
# How a player's games spread over the buckets (the levels, custom boards).
LEVEL_WEIGHTS = {
    "beginner": 30,
    "intermediate": 25,
    "hard": 10,
    "expert": 20,
    "extreme": 5,
    "marathon": 3,
    "custom": 7,
}


def _database_url() -> str:
    return beside_database_url("_bench_insights", env="BENCH_INSIGHTS_DATABASE_URL") or (
        on_database_server("demineur_bench_insights")
    )


def _game(rng: random.Random, months: list[str] = MONTHS) -> tuple[str, bool, Any]:
    """One synthetic analysed game: its bucket's level, its mode and its share."""
    from accounts.standings.insights import Labelled, game_share
    from games.engine import LEVELS

    level = rng.choices(list(LEVEL_WEIGHTS), weights=list(LEVEL_WEIGHTS.values()))[0]
    spec = LEVELS.get(level)
    width, height = (spec.width, spec.height) if spec else (rng.randint(8, 60), rng.randint(8, 40))
    moves = [Labelled("deduced", None, rng.randrange(width), rng.randrange(height))]
    for _ in range(rng.randint(10, 80)):
        roll = rng.random()
        label = "deduced" if roll < 0.88 else "forced_guess" if roll < 0.96 else "avoidable_guess"
        think = int(rng.expovariate(1 / (900 if label == "deduced" else 2500)))
        moves.append(Labelled(label, think, rng.randrange(width), rng.randrange(height)))
    won = rng.random() < 0.6
    forced = sum(1 for m in moves if m.label == "forced_guess")
    lost_flip = 1 if (not won and forced and rng.random() < 0.5) else 0
    share = game_share(
        month=rng.choice(months),
        level=level,
        width=width,
        height=height,
        won=won,
        bbbv_per_s=rng.uniform(0.5, 4.0) if won else None,
        ioe=rng.uniform(0.4, 1.2) if won else None,
        moves=moves,
        flips=(forced - lost_flip, lost_flip, forced * rng.uniform(0.5, 0.9)),
    )
    return level, rng.random() < 0.1, share


def _seeded_games(user_id: int) -> int:
    from accounts.standings.models import PlayerInsight

    rows = PlayerInsight.objects.filter(user_id=user_id).values_list("months", flat=True)
    # MONTH_KEYS[0] is the games (an older seeding, of another shape, counts none)
    return int(sum(m[0] for months in rows for m in months.values() if isinstance(m, list)))


def _seed(games: int, reseed: bool) -> dict[str, Any]:
    from django.db import connection

    from accounts.models import User
    from accounts.standings import insights
    from accounts.standings.models import PlayerInsight
    from accounts.standings.records import bucket_for
    from bench.harness.timing import figures as latency

    user = User.objects.filter(username=PLAYER).first()
    if user is not None and _seeded_games(user.pk) == games and not reseed:
        say(f"seeded already: {games:,} games of {PLAYER}")
        return {}
    say(f"seeding {games:,} analysed games of {PLAYER} through the insights' fold ...")
    PlayerInsight.objects.all().delete()
    User.objects.filter(username__startswith="insight-").delete()
    user = User.objects.create(username=PLAYER, password="!", kind="human")
    rng = random.Random(41)
    progress = Progress(games, "games folded", every=10_000)
    states: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {}
    tail: list[tuple[str, Any]] = []
    for n in range(games):
        level, no_guess, share = _game(rng)
        bucket = bucket_for(level, no_guess)
        if n >= games - THROUGH_WRITER:
            tail.append((bucket, share))
        else:
            months, heat = states.get(bucket, ({}, {}))
            states[bucket] = (
                insights.months_after(months, share),
                insights.heat_after(heat, share),
            )
        progress.step()
    PlayerInsight.objects.bulk_create(
        PlayerInsight(user=user, level=bucket, months=months, heat=heat)
        for bucket, (months, heat) in states.items()
    )
    say(f"  the last {len(tail):,} through record_game, one transaction each ...")
    spent = []
    for bucket, share in tail:
        started = time.perf_counter()
        insights.record_game(user_id=user.pk, bucket=bucket, share=share)
        spent.append((time.perf_counter() - started) * 1000)
    say(f"  {OTHERS:,} other players, a year of a few games each ...")
    others = User.objects.bulk_create(
        User(username=f"insight-{i:05d}", password="!", kind="human") for i in range(OTHERS)
    )
    rows = []
    for other in others:
        buckets: dict[str, list[Any]] = {}
        for _ in range(rng.randint(3, 15)):
            level, no_guess, share = _game(rng, MONTHS[-12:])
            buckets.setdefault(bucket_for(level, no_guess), []).append(share)
        for bucket, shares in buckets.items():
            months, heat = insights.fold(shares)
            rows.append(PlayerInsight(user=other, level=bucket, months=months, heat=heat))
    PlayerInsight.objects.bulk_create(rows, batch_size=2000)
    with connection.cursor() as cur:
        cur.execute("VACUUM ANALYZE accounts_player_insight")
    assert _seeded_games(user.pk) == games
    say("seeded")
    return {"record_game": latency(spent)}


def _measure(samples: int) -> dict[str, Any]:
    from django.test import Client

    client = Client()
    sizes: dict[str, int] = {}

    def read(mode: str) -> Any:
        def call() -> None:
            answer = client.get(f"/api/users/{PLAYER}/insights?mode={mode}")
            assert answer.status_code == 200, answer.content[:200]
            sizes[mode] = len(answer.content)

        return call

    rounds = Progress(samples, "round", every=samples // 10)
    timed = interleaved(
        {mode: read(mode) for mode in CASES},
        samples,
        clocks=CPU_AND_WALL,
        on_round=rounds.on_round,
    )
    body = json.loads(client.get(f"/api/users/{PLAYER}/insights").content)
    games = sum(level["games"] for level in body["levels"].values())
    return {
        "answer": {"classic_games": games, "bytes": sizes, "samples": samples},
        "cases": {mode: figures([v * 1000 for v in timed["wall"][mode]]) for mode in CASES},
        # this process's CPU a read (the view, the read's decoding, the JSON), not PostgreSQL's:
        # what the wall time would be on a quiet machine, less the database's share
        "cpu": {mode: figures([v * 1000 for v in timed["cpu"][mode]]) for mode in CASES},
    }


def main() -> None:
    parser = cli.parser(__doc__)
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--samples", type=int, default=400)
    parser.add_argument("--reseed", action="store_true")
    args = parser.parse_args()
    url = _database_url()
    create_database(url)
    # No Redis: the read uses none. The throttle's limit raised: the rounds read as one client.
    setup_django(
        {"DATABASE_URL": url, "THROTTLE_ANON": "1000000/min", "SECURE_SSL_REDIRECT": "0"},
        drop=("REDIS_URL",),
    )
    record = Run("insights")
    seeded = _seed(args.games, args.reseed)
    say(f"measuring {args.samples} rounds of {len(CASES)} reads ...")
    results = record.write({"games": args.games, **seeded, **_measure(args.samples)}, RESULTS)
    rows = [
        [
            mode,
            r["p50_ms"],
            r["p99_ms"],
            results["cpu"][mode]["p50_ms"],
            results["cpu"][mode]["p99_ms"],
            results["answer"]["bytes"][mode],
        ]
        for mode, r in results["cases"].items()
    ]
    head = ["GET /api/users/{name}/insights", "p50 ms", f"p99 ms (goal < {GOAL_P99_MS:.0f})"]
    show(table([*head, "CPU p50 ms", "CPU p99 ms", "bytes"], rows))
    say(
        f"load average: {results['run']['load_before']} before, {results['run']['load_after']} after"
    )
    if "record_game" in seeded:
        w = seeded["record_game"]
        say(
            f"record_game (the writer, one transaction): p50 {w['p50_ms']} ms, p99 {w['p99_ms']} ms"
        )


if __name__ == "__main__":
    main()
