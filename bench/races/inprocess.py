"""A racer's move against a solo move, in process: the service a move goes through
(`games.play.services.game_move`, on PostgreSQL, outside a transaction as both doors call
it), without a server, a socket or the spectators, so that what the race adds to the move
itself is seen alone.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/demineur REDIS_URL=redis://127.0.0.1:6379/0 \\
        .venv/bin/python -m bench.races.inprocess [--n 300] [--rounds 5]  # `make bench-racemove`

Two bot accounts race on Expert (made here, in DATABASE_URL's database name + `_bench_racemove`
on its server, made and migrated when missing, never emptied), a third plays a solo Expert game started at its centre. Each round flags a
closed cell of the race game `--n` times, then the same on the solo game (interleaved rounds,
a warm-up first); a flag neither starts nor ends a game, so every move is the common one.
Measured: CPU (`time.process_time`: this process, the publisher's thread included) and wall
µs a move, and the statements a move sends (counted once, at the end). With
`DB_MOVE_COMPARE_AND_SET=0` every move takes the locked path, as before the move without a lock.
"""

from __future__ import annotations

import time
from typing import Any

from bench import cli
from bench.harness.database import beside_database_url, create_database, setup_django
from bench.harness.report import load_average, say
from bench.harness.timing import CPU_AND_WALL, interleaved, median, ratios

WARMUP = 50


def _race_game(stamp: str) -> tuple[Any, Any]:
    """Two racers' Expert race, started now: the first racer and their game."""
    from django.utils import timezone

    from accounts.models import User
    from games.play.models import Game
    from games.races import services as races
    from games.races.models import Race

    first, second = (User.objects.create(username=f"rin{n}{stamp}", kind="bot") for n in "ab")
    race = races.race_create(player=first, level="expert")
    races.race_join(race_id=race.id, player=second)
    for racer in (first, second):
        races.race_ready(race_id=race.id, player=racer)
    now = timezone.now()
    Race.objects.filter(pk=race.id).update(starts_at=now, deadline=now)
    assert races.race_begin(race_id=race.id, now=now)
    return first, Game.objects.get(race_id=race.id, player=first)


def _solo_game(stamp: str) -> tuple[Any, Any]:
    from accounts.models import User
    from games.play import services

    player = User.objects.create(username=f"sin{stamp}", kind="bot")
    game = services.game_create(player=player, level="expert")
    services.game_move(game_id=game.id, player=player, action="reveal", x=15, y=8)
    return player, game


def main() -> None:
    parser = cli.parser(__doc__)
    parser.add_argument("--n", type=int, default=300, help="moves a case a round (300)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds (5)")
    args = parser.parse_args()
    url = beside_database_url("_bench_racemove")
    if url is None:
        say("bench/races/inprocess: skipped. It needs DATABASE_URL (PostgreSQL): the move")
        say("without a lock, whose race share it measures, is PostgreSQL's.")
        return
    create_database(url)
    setup_django(
        {"LOG_LEVEL": "WARNING", "RACE_CLOCK": "off", "DATABASE_URL": url}, drop=("DB_POOL",)
    )

    from django.conf import settings
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from bench.seeding import middle_closed_cell
    from games.play import services

    stamp = str(time.time_ns())
    cases = {"race": _race_game(stamp), "solo": _solo_game(stamp)}
    cells = {name: middle_closed_cell(game) for name, (_, game) in cases.items()}

    def mover(name: str) -> Any:
        player, game = cases[name]
        x, y = cells[name]

        def move() -> None:
            services.game_move(game_id=game.id, player=player, action="flag", x=x, y=y)

        return move

    say(
        f"in-process flag moves, race against solo, DB_MOVE_COMPARE_AND_SET="
        f"{int(settings.DB_MOVE_COMPARE_AND_SET)}; load {load_average()}"
    )
    timed = interleaved(
        {name: mover(name) for name in cases},
        args.rounds,
        calls=args.n,
        warmup=WARMUP,
        clocks=CPU_AND_WALL,
        on_round=lambda done, _: say(f"  round {done}/{args.rounds}"),
    )
    statements = {}
    for name in cases:
        with CaptureQueriesContext(connection) as queries:
            mover(name)()
        statements[name] = len(queries.captured_queries)
    for clock in ("cpu", "wall"):
        race, solo = timed[clock]["race"], timed[clock]["solo"]
        each = " / ".join(f"{r:.2f}" for r in ratios(race, solo))
        say(
            f"{clock}: race {median(race) * 1e6:,.0f} µs, solo {median(solo) * 1e6:,.0f} µs a "
            f"move (median of {args.rounds} rounds of {args.n}); race / solo "
            f"{median(race) / median(solo):.2f} (per round {each})"
        )
    say(f"statements a move: race {statements['race']}, solo {statements['solo']}")
    say(f"load after {load_average()}")


if __name__ == "__main__":
    main()
