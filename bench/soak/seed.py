"""Migrate the soak's database and create its players, each with an API token.

    python -m bench.soak.seed --players 40 --prefix crash     # prints one JSON object

Run in its own process with the servers' environment (bench.soak.servers.app_env), so that
the caller (a pytest process with its own Django settings, or the soak script) never mixes
databases. The players are `bot` accounts: they play at machine speed, which fair play would
otherwise hold for review (it would change nothing here, but bots are what they are).
"""

from __future__ import annotations

import argparse
import json
import sys


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--players", type=int, required=True)
    parser.add_argument("--prefix", default="soak")
    args = parser.parse_args()

    import django

    django.setup()
    from django.core.management import call_command

    from accounts.models import AccountKind, User
    from accounts.services import token_issue

    call_command("migrate", verbosity=0, interactive=False)
    players = []
    for n in range(args.players):
        user = User(username=f"{args.prefix}{n}", kind=AccountKind.BOT)
        user.set_unusable_password()
        user.save()
        _, key = token_issue(user=user)
        players.append({"username": user.username, "token": key})
    json.dump({"players": players}, sys.stdout)


if __name__ == "__main__":
    main()
