"""The move endpoint in process: flag moves through Django's WSGI handler, with no HTTP server
and no network client, so that what one move costs the worker's CPU can be read even while
the machine is busy (`time.process_time` counts this process only), and profiled.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/demineur_prof REDIS_URL=redis://127.0.0.1:6379/9 \\
        .venv/bin/python -m bench.http.inprocess [--n 2000] [--profile 30]

It migrates the database, makes one player with a token and a started Marathon game, then
toggles a flag on a closed cell N times per round (5 rounds; `--create ended|untapped`: creates
a Beginner game instead) through the whole stack the
server runs: middleware, DRF, token auth, throttling, validation, the rules, the row lock, the
update and the insert, the publish on the channel layer, the JSON answer. Prints the median
CPU and wall time per move; `--profile K` adds the K functions with the most cumulative time
under cProfile (its overhead inflates every figure, so read it as shares, not times).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from bench.seeding import kept_player_with_a_game, middle_closed_cell

ROOT = Path(__file__).resolve().parents[2]


def _setup() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "demineur_site.settings")
    os.environ.setdefault("SECRET_KEY", "bench-only-" + "x" * 40)
    os.environ["DEBUG"] = "0"
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    for scope in ("ANON", "USER"):
        os.environ[f"THROTTLE_{scope}"] = "100000000/min"
    sys.path.insert(0, str(ROOT))
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)


def _environ(path: str, body: bytes, token: str) -> dict[str, Any]:
    return {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": path,
        "SCRIPT_NAME": "",
        "QUERY_STRING": "",
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "8000",
        "REMOTE_ADDR": "127.0.0.1",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "CONTENT_TYPE": "application/json",
        "CONTENT_LENGTH": str(len(body)),
        "HTTP_AUTHORIZATION": f"Token {token}",
        "HTTP_HOST": "127.0.0.1",
        "wsgi.input": io.BytesIO(body),
        "wsgi.url_scheme": "http",
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": False,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=2000, help="moves per round (2000)")
    parser.add_argument("--profile", type=int, default=0, help="print the top K of a profile")
    parser.add_argument(
        "--create",
        choices=["ended", "untapped"],
        help="time POST /api/games instead: a new Beginner game when the player's last one has"
        " ended (the common case), or when it is still untapped (the server discards it)",
    )
    args = parser.parse_args()
    _setup()
    from django.core.wsgi import get_wsgi_application

    from accounts.services import token_issue

    user, game = kept_player_with_a_game("inprocess-bench", "marathon", (40, 20))
    x, y = middle_closed_cell(game)
    _, token = token_issue(user=user, name="inprocess")
    app = get_wsgi_application()
    path = f"/api/games/{game.id}/flag"
    body = json.dumps({"x": x, "y": y}).encode()
    what = "flag moves"
    if args.create:
        path, body = "/api/games", json.dumps({"level": "beginner"}).encode()
        what = f"creations (the last game {args.create})"
    statuses: dict[str, int] = {}
    from django.db import connection

    def between() -> None:
        """Untimed, between two creations: with `--create ended`, the new game ends."""
        if args.create == "ended":
            with connection.cursor() as cursor:
                cursor.execute(
                    "UPDATE games_game SET state = 'lost' WHERE player_id = %s AND state = 'new'",
                    [user.pk],
                )

    def move() -> None:
        def start(status: str, headers: Any, exc_info: Any = None) -> Any:
            statuses[status] = statuses.get(status, 0) + 1
            return None

        response = app(_environ(path, body, token), start)
        for _chunk in response:
            pass
        response.close()  # request_finished, as a server sends it

    for _ in range(200):
        move()
        between()
    cpu, wall = [], []
    for r in range(5):
        spent_cpu = spent_wall = 0.0
        for _ in range(args.n):
            c0, w0 = time.process_time(), time.perf_counter()
            move()
            spent_cpu += time.process_time() - c0
            spent_wall += time.perf_counter() - w0
            between()
        cpu.append(spent_cpu / args.n * 1e6)
        wall.append(spent_wall / args.n * 1e6)
        print(f"  round {r + 1}/5: cpu {cpu[-1]:.0f} µs, wall {wall[-1]:.0f} µs each")
    print(f"answers: {statuses}")
    print(
        f"median of 5 rounds of {args.n} {what}: cpu {statistics.median(cpu):.0f} µs each,"
        f" wall {statistics.median(wall):.0f} µs each (load {os.getloadavg()[0]:.2f})"
    )
    if args.profile:
        profiler = cProfile.Profile()
        profiler.enable()
        for _ in range(args.n):
            move()
        profiler.disable()
        out = io.StringIO()
        stats = pstats.Stats(profiler, stream=out)
        stats.sort_stats("cumulative").print_stats(args.profile)
        print(out.getvalue())


if __name__ == "__main__":
    main()
