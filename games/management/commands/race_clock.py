"""`manage.py race_clock`: the race clock in the foreground, for a deployment that runs it as
its own service instead of (or beside) the ASGI processes' threads (docs/RACES.md)."""

from __future__ import annotations

import contextlib
import sys
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand

from games.play.analysis_jobs import AnalysisWorker
from games.races.clock import RaceClock


class Command(BaseCommand):
    help = "Run the race clock (countdowns, starts, time limits, quick match) until stopped."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--once", action="store_true", help="One tick, then exit.")

    def handle(self, *args: Any, **options: Any) -> None:
        clock = RaceClock(interval_s=settings.RACE_CLOCK_INTERVAL_MS / 1000)
        if options["once"]:
            acted = clock.tick_once()
            self.stdout.write(f"race clock: one tick, {acted} race(s) acted on")
            return
        sys.stderr.write(f"race clock: ticking every {clock.interval_s * 1000:.0f} ms\n")
        worker = AnalysisWorker()  # and the analysis of ended games (docs/ANALYSIS.md)
        worker.start()
        with contextlib.suppress(KeyboardInterrupt):
            clock.run()
        worker.stop()
