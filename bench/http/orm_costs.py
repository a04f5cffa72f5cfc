"""What one statement of the move path costs through the ORM and by hand, in process (no HTTP):
the token lookup, the game's row lock and the game's save. Run against a scratch database
(it migrates it and writes one player and one game):

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/demineur_prof \\
        .venv/bin/python -m bench.http.orm_costs [--n 3000]

Prints the median of five rounds of N calls each, in microseconds per call.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable

from bench.seeding import kept_player_with_a_game


def _setup() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "demineur_site.settings")
    os.environ.setdefault("SECRET_KEY", "bench-only-" + "x" * 40)
    os.environ["DEBUG"] = "0"
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)


def _per_call_us(fn: Callable[[], object], n: int) -> float:
    for _ in range(min(200, n)):
        fn()
    rounds = []
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(n):
            fn()
        rounds.append((time.perf_counter() - start) / n * 1e6)
    return statistics.median(rounds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=3000)
    args = parser.parse_args()
    _setup()
    from django.db import connection, transaction

    from accounts.authentication import user_for_token_key
    from accounts.models import ApiToken, hash_token_key
    from accounts.services import token_issue
    from games.play.models import Game

    user, game = kept_player_with_a_game("orm-costs", "marathon")
    _, key = token_issue(user=user)
    key_hash = hash_token_key(key)
    table = Game._meta.db_table

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

    cases = [
        ("token: ORM select_related join", orm_token),
        ("token: accounts.authentication (one statement)", lambda: user_for_token_key(key)),
        ("row lock: ORM select_for_update().get()", lock_orm),
        ("row lock: the same SELECT ... FOR UPDATE by hand", lock_by_hand),
        ("game save: ORM save() (every column)", save_orm),
    ]
    for i, (name, fn) in enumerate(cases, start=1):
        sys.stderr.write(f"[{i}/{len(cases)}] {name}\n")
        print(f"{name:52s} {_per_call_us(fn, args.n):8.0f} µs")


if __name__ == "__main__":
    main()
