"""`manage.py analyse_games`: analyse every ended game that has no analysis yet (the games
that ended before the analysis existed, or while no worker ran), oldest first, then recompute
the skill streak of every bucket it touched (docs/ANALYSIS.md, The worker). `--refold-all`
refolds every bucket that has an analysed game: the skill and luck-adjusted streaks, the
coin flips per month (docs/STATS.md, Luck, measured) and the insights (docs/STATS.md,
Insights), once after each was first kept.
`--overlays` then gives every analysed game without a probability overlay its overlay (the
games analysed before it was kept; docs/ANALYSIS.md, The probability overlay)."""

from __future__ import annotations

import sys
import time
from typing import Any

from django.core.management.base import BaseCommand

from games.play import overlays
from games.play.analysis_jobs import analyse_game, backlog, refold
from games.play.models import SOLO, Game


class Command(BaseCommand):
    help = "Analyse every ended game without an analysis, then refold the skill streaks."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--limit", type=int, default=0, help="Stop after this many games.")
        parser.add_argument(
            "--refold-all",
            action="store_true",
            help="Refold every bucket with an analysed game, not only those of this run.",
        )
        parser.add_argument(
            "--overlays",
            action="store_true",
            help="Then give every analysed game without a probability overlay its overlay.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        ids = list(backlog())
        if options["limit"]:
            ids = ids[: options["limit"]]
        started = time.monotonic()
        done = 0
        for n, game_id in enumerate(ids, 1):
            done += analyse_game(game_id, fold=False)
            if n % 100 == 0 or n == len(ids):
                rate = n / max(time.monotonic() - started, 1e-9)
                sys.stderr.write(f"analyse_games: {n}/{len(ids)} ({rate:.0f} games/s)\n")
        touched = Game.objects.filter(SOLO, analysis__isnull=False)
        if not options["refold_all"]:
            touched = touched.filter(pk__in=ids)
        buckets = set(touched.values_list("player_id", "level", "no_guess").distinct())
        for player_id, level, no_guess in buckets:
            refold(player_id=player_id, level=level, no_guess=no_guess)
        self.stdout.write(f"analyse_games: {done} analysed, {len(buckets)} skill streaks refolded")
        if options["overlays"]:
            self._overlays()

    def _overlays(self) -> None:
        ids = list(overlays.backlog())
        made = 0
        for n, game_id in enumerate(ids, 1):
            made += overlays.backfill(game_id)
            if n % 100 == 0 or n == len(ids):
                sys.stderr.write(f"analyse_games: overlays {n}/{len(ids)}\n")
        self.stdout.write(f"analyse_games: {made} probability overlays made")
