"""`manage.py backfill_puzzles`: look for puzzles in every ended game stored before the
generator existed (or while no analysis worker ran), oldest end first, with a progress bar;
then say what was found per level and theme (docs/PUZZLES.md, The generator). A game is looked
at once (games.puzzles.models.PuzzleSource), so the command can stop and start again."""

from __future__ import annotations

import time
from collections import Counter
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from games.puzzles import generator
from games.puzzles.models import Puzzle


class Command(BaseCommand):
    help = "Look for puzzles in every ended game not looked at yet, then count them."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--limit", type=int, default=0, help="Stop after this many games.")
        parser.add_argument("--quiet", action="store_true", help="No progress bar.")

    def handle(self, *args: Any, **options: Any) -> None:
        ids = list(generator.backlog())
        if options["limit"]:
            ids = ids[: options["limit"]]
        started = time.monotonic()
        made = 0
        for n, game_id in enumerate(ids, 1):
            made += generator.generate_for_game(game_id)
            if not options["quiet"] and (n % 20 == 0 or n == len(ids)):
                frac = n / len(ids)
                rate = n / max(time.monotonic() - started, 1e-9)
                self.stderr.write(
                    f"\rbackfill_puzzles [{'#' * int(frac * 30):<30}] {frac:6.1%}"
                    f" {n:,}/{len(ids):,} games  {made:,} puzzles  {rate:,.1f} games/s",
                    ending="",
                )
                self.stderr.flush()
        if ids and not options["quiet"]:
            self.stderr.write("")
        self.stdout.write(f"backfill_puzzles: {len(ids)} games looked at, {made} new puzzles")
        for level, theme, count in _tally():
            self.stdout.write(f"  {level:<13} {theme:<11} {count}")


def _tally() -> list[tuple[str, str, int]]:
    """Every stored puzzle counted by level and hardest theme."""
    counts = Counter(Puzzle.objects.values_list("level", "theme"))
    return [(level, theme, n) for (level, theme), n in sorted(counts.items())]
