"""Three pieces of the move path measured alone, before and after this round's change to each
(issue 14; docs/PERFORMANCE.md):

* the throttle check: DRF's get + set of the list of request times through Django's Redis
  cache (as it was), and one `window_hit` (demineur_site.cache, one Lua call);
* the row lock and the store of a move: bound on the client by Django's cursor (as before),
  and bound on the server and prepared (demineur_site.rawsql.run);
* the board's encoding: zlib at its default level (as it was) and at level 1 (Board.encode).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/demineur_prof REDIS_URL=redis://127.0.0.1:6379/9 \\
        .venv/bin/python -m bench.http.micro [--n 1000]

It migrates the database and plays on one Marathon game of its own. Prints, per case, the
median over 5 rounds of the client's CPU (`time.process_time`) per call and, for the database
case, the PostgreSQL backend's CPU per call (/proc of the backend, 10 ms ticks over a round).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
import zlib
from collections.abc import Callable
from pathlib import Path

from bench.seeding import kept_player_with_a_game

ROOT = Path(__file__).resolve().parents[2]


def _setup() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "demineur_site.settings")
    os.environ.setdefault("SECRET_KEY", "bench-only-" + "x" * 40)
    os.environ["DEBUG"] = "0"
    os.environ["LIVE_EVENTS"] = "0"
    sys.path.insert(0, str(ROOT))
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)


def _rounds(name: str, fn: Callable[[], object], n: int, backend: Callable[[], float]) -> None:
    for _ in range(min(100, n)):
        fn()
    cpu, pg = [], []
    for _ in range(5):
        c0, p0 = time.process_time(), backend()
        for _ in range(n):
            fn()
        cpu.append((time.process_time() - c0) / n * 1e6)
        pg.append((backend() - p0) / n * 1e6)
    line = f"  {name:<58} client {statistics.median(cpu):7.0f} µs"
    if any(pg):
        line += f"   PostgreSQL backend {statistics.median(pg):5.0f} µs"
    print(line, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=1000, help="calls per round (1000)")
    args = parser.parse_args()
    _setup()
    from django.conf import settings
    from django.core.cache import cache
    from django.db import connection, transaction
    from django.utils import timezone

    from demineur_site.rawsql import columns
    from games.engine import Board
    from games.play import move_store
    from games.play.models import Game, Move

    print(f"bench.http.micro: {args.n} calls a round, 5 rounds (load {os.getloadavg()[0]:.2f})")

    def no_backend() -> float:
        return 0.0

    print("1. The throttle check (Redis)")
    if not hasattr(cache, "window_hit"):
        print("  REDIS_URL is not set: skipped")
    else:
        history = [time.time() - i * 0.01 for i in range(100)]

        def drf_list() -> None:
            cache.get("micro-drf", [])
            cache.set("micro-drf", history, 60)

        def window() -> None:
            hit = cache.window_hit
            hit("micro-window", now=time.time(), duration=60, limit=10**9)

        _rounds("DRF's list of 100 times: get + set", drf_list, args.n, no_backend)
        _rounds("window_hit: one Lua call", window, args.n, no_backend)

    print("2. Row lock + store of one move, in one transaction (PostgreSQL)")
    if connection.vendor != "postgresql":
        print("  not PostgreSQL: skipped")
    else:
        _user, game = kept_player_with_a_game("micro-bench", "marathon", (40, 20))
        connection.ensure_connection()
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            pid = cursor.fetchone()[0]

        def backend() -> float:
            fields = Path(f"/proc/{pid}/stat").read_text().split(")")[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

        games, moves = columns(Game), columns(Move)
        seq = [Game.objects.get(pk=game.id).seq]

        def cycle() -> None:
            with transaction.atomic():
                locked = move_store.lock_game(game.id)
                assert locked is not None
                seq[0] += 1
                locked.seq, locked.last_action_at = seq[0], timezone.now()
                move = Move(
                    game=locked, seq=seq[0], action="flag", x=0, y=0, at_ms=1,
                    created_at=locked.last_action_at,
                )  # fmt: skip
                move_store.store(locked, move)

        if not Path(f"/proc/{pid}/stat").exists():
            backend = no_backend  # PostgreSQL on another host
        settings.DB_PREPARED_HOT_PATH = False
        _rounds("bound on the client (Django's cursor)", cycle, args.n, backend)
        settings.DB_PREPARED_HOT_PATH = True
        _rounds("bound on the server, prepared (rawsql.run)", cycle, args.n, backend)
        del games, moves

    print("3. Board.encode's zlib, a Marathon board after its first tap")
    board = Board.new(80, 40, 240)
    board.reveal(40, 20, random.Random(216))
    payload = zlib.decompress(board.encode()[10:])
    for level in (6, 1):
        size = len(zlib.compress(payload, level))

        def compress(level: int = level) -> bytes:
            return zlib.compress(payload, level)

        _rounds(f"zlib level {level} ({size} bytes)", compress, args.n, no_backend)


if __name__ == "__main__":
    main()
