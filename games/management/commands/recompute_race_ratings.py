"""`manage.py recompute_race_ratings`: every race rating and race statistic recomputed from the
stored raw results (each finished race's places and pools), oldest race first. Prints
progress on stderr; `--check` changes nothing and reports the rows that differ."""

from __future__ import annotations

import sys
from typing import Any

from django.core.management.base import BaseCommand

from games.races.recompute import recompute


class Command(BaseCommand):
    help = "Recompute every race rating from the stored race results."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--check", action="store_true", help="Report differences only.")

    def handle(self, *args: Any, **options: Any) -> None:
        def progress(done: int, total: int) -> None:
            sys.stderr.write(f"\rraces {done}/{total}")
            if done == total:
                sys.stderr.write("\n")

        report = recompute(write=not options["check"], progress=progress)
        self.stdout.write(
            f"{report.races} races, {report.ratings} ratings, {report.differences} differed"
            + ("" if options["check"] else " (rewritten)")
        )
