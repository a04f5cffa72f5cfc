"""Migrate the soak's database and create its players, each with an API token.

    python -m bench.soak.seed --players 40 --prefix crash     # prints one JSON object

Run in its own process with the servers' environment (bench.harness.servers.app_env), so
that the caller (a pytest process with its own Django settings, or the soak script) never
mixes databases. The players are `bot` accounts (bench/seeding.py).
"""

from __future__ import annotations

import json
import os
import sys

from bench import cli
from bench.harness.database import setup_django
from bench.seeding import bot_accounts


def main() -> None:
    parser = cli.parser(__doc__)
    parser.add_argument("--players", type=int, required=True)
    parser.add_argument("--prefix", default="soak")
    args = parser.parse_args()
    setup_django(settings=os.environ["DJANGO_SETTINGS_MODULE"])
    players = [
        {"username": a.username, "token": a.token} for a in bot_accounts(args.players, args.prefix)
    ]
    json.dump({"players": players}, sys.stdout)


if __name__ == "__main__":
    main()
