"""The daily clock by hand (docs/DAILY.md): close the days that have ended and deal today's six
dailies, once (`--once`, what the compose scheduler runs every 10 minutes beside the ASGI
processes' own daily clock thread) or every second until stopped."""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from games.daily.services import daily_tick


class Command(BaseCommand):
    help = "Close ended days of the daily challenge and deal today's dailies."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--once", action="store_true", help="one tick, then exit")

    def handle(self, *args: Any, **options: Any) -> None:
        while True:
            acted = daily_tick()
            self.stdout.write(f"daily clock: {acted} daily(ies) closed or dealt")
            if options["once"]:
                return
            time.sleep(1.0)
