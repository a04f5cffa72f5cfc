"""Pieces of the move path measured alone, each against what it replaced or could be:

* `throttle`: the throttle check: DRF's get + set of the list of request times through
  Django's Redis cache, and one `window_hit` (demineur_site.cache, one Lua call);
* `store`: the row lock and the store of a move: bound on the client by Django's cursor, and
  bound on the server and prepared (demineur_site.rawsql.run);
* `zlib`: the board's encoding: zlib at its default level and at level 1 (Board.encode);
* `statements`: one statement of the move path through the ORM and by hand: the token lookup,
  the game's row lock and the game's save.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/demineur_prof REDIS_URL=redis://127.0.0.1:6379/9 \\
        .venv/bin/python -m bench.http.micro [--n 1000] [--parts throttle,store,zlib,statements]

It migrates the database and plays on Marathon games of its own (`throttle` needs REDIS_URL,
`store` and `statements` PostgreSQL; a part without what it needs says so). Prints, per case,
the median over 5 rounds of --n calls, after a warm-up, of the client's CPU
(`time.process_time`), the wall time and, on PostgreSQL, the backend's CPU (/proc of the
backend, 10 ms ticks over a round) per call.
"""

from __future__ import annotations

import random
import time
import zlib
from collections.abc import Callable
from pathlib import Path

from bench import cli
from bench.harness.database import setup_django
from bench.harness.report import load_average, say
from bench.harness.timing import interleaved, median, proc_cpu
from bench.seeding import kept_player_with_a_game

PARTS = ("throttle", "store", "zlib", "statements")
ROUNDS = 5


def no_backend() -> float:
    return 0.0


def rounds(name: str, fn: Callable[[], object], n: int, backend: Callable[[], float]) -> None:
    clocks = {"cpu": time.process_time, "wall": time.perf_counter, "backend": backend}
    timed = interleaved({name: fn}, ROUNDS, calls=n, warmup=min(100, n), clocks=clocks)
    cpu, wall, pg = (median(timed[clock][name]) * 1e6 for clock in ("cpu", "wall", "backend"))
    line = f"  {name:<58} client {cpu:7.0f} µs   wall {wall:7.0f} µs"
    if pg:
        line += f"   PostgreSQL backend {pg:5.0f} µs"
    say(line)


def backend_clock() -> Callable[[], float]:
    """The CPU seconds of this connection's PostgreSQL backend (none when it runs elsewhere)."""
    from django.db import connection

    connection.ensure_connection()
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        pid = cursor.fetchone()[0]
    if not Path(f"/proc/{pid}/stat").exists():
        return no_backend
    return lambda: proc_cpu(pid)


def throttle(n: int) -> None:
    from django.core.cache import cache

    say("The throttle check (Redis)")
    if not hasattr(cache, "window_hit"):
        say("  REDIS_URL is not set: skipped")
        return
    history = [time.time() - i * 0.01 for i in range(100)]

    def drf_list() -> None:
        cache.get("micro-drf", [])
        cache.set("micro-drf", history, 60)

    def window() -> None:
        cache.window_hit("micro-window", now=time.time(), duration=60, limit=10**9)

    rounds("DRF's list of 100 times: get + set", drf_list, n, no_backend)
    rounds("window_hit: one Lua call", window, n, no_backend)


def store(n: int) -> None:
    from django.conf import settings
    from django.db import connection, transaction
    from django.utils import timezone

    from games.play import move_store
    from games.play.models import Game, Move

    say("Row lock + store of one move, in one transaction (PostgreSQL)")
    if connection.vendor != "postgresql":
        say("  not PostgreSQL: skipped")
        return
    _user, game = kept_player_with_a_game("micro-bench", "marathon", (40, 20))
    backend = backend_clock()
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

    settings.DB_PREPARED_HOT_PATH = False
    rounds("bound on the client (Django's cursor)", cycle, n, backend)
    settings.DB_PREPARED_HOT_PATH = True
    rounds("bound on the server, prepared (rawsql.run)", cycle, n, backend)


def zlib_levels(n: int) -> None:
    from games.engine import Board

    say("Board.encode's zlib, a Marathon board after its first tap")
    board = Board.new(80, 40, 240)
    board.reveal(40, 20, random.Random(216))
    payload = zlib.decompress(board.encode()[10:])
    for level in (6, 1):
        size = len(zlib.compress(payload, level))

        def compress(level: int = level) -> bytes:
            return zlib.compress(payload, level)

        rounds(f"zlib level {level} ({size} bytes)", compress, n, no_backend)


def statements(n: int) -> None:
    from django.db import connection, transaction

    from accounts.authentication import user_for_token_key
    from accounts.models import ApiToken, hash_token_key
    from accounts.services import token_issue
    from games.play.models import Game

    say("One statement of the move path, through the ORM and by hand (PostgreSQL)")
    if connection.vendor != "postgresql":
        say("  not PostgreSQL: skipped")
        return
    user, game = kept_player_with_a_game("orm-costs", "marathon")
    _, key = token_issue(user=user)
    key_hash = hash_token_key(key)
    table = Game._meta.db_table
    backend = backend_clock()

    def orm_token() -> object:
        return ApiToken.objects.select_related("user").get(key_hash=key_hash)

    def lock_orm() -> None:
        with transaction.atomic():
            Game.objects.select_for_update().get(pk=game.pk)

    def lock_by_hand() -> None:
        with transaction.atomic(), connection.cursor() as cur:
            cur.execute(f"SELECT * FROM {table} WHERE id = %s FOR UPDATE", [game.pk])
            cur.fetchone()

    def save_orm() -> None:
        with transaction.atomic():
            game.save()

    rounds("token: ORM select_related join", orm_token, n, backend)
    rounds(
        "token: accounts.authentication (one statement)",
        lambda: user_for_token_key(key),
        n,
        backend,
    )
    rounds("row lock: ORM select_for_update().get()", lock_orm, n, backend)
    rounds("row lock: the same SELECT ... FOR UPDATE by hand", lock_by_hand, n, backend)
    rounds("game save: ORM save() (every column)", save_orm, n, backend)


def main() -> None:
    parser = cli.parser(__doc__)
    parser.add_argument("--n", type=int, default=1000, help="calls per round (1000)")
    parser.add_argument("--parts", default=",".join(PARTS), help=f"of {', '.join(PARTS)}")
    args = parser.parse_args()
    parts = [p for p in args.parts.split(",") if p]
    unknown = set(parts) - set(PARTS)
    if unknown:
        raise SystemExit(f"unknown parts {sorted(unknown)}; known: {', '.join(PARTS)}")
    setup_django({"LIVE_EVENTS": "0"})
    say(f"bench.http.micro: {args.n} calls a round, {ROUNDS} rounds (load {load_average()})")
    runs = {"throttle": throttle, "store": store, "zlib": zlib_levels, "statements": statements}
    for part in parts:
        runs[part](args.n)


if __name__ == "__main__":
    main()
