"""`manage.py verify_games [--since 2h|3d|ISO-date]`: replay every stored game through the
engine and recompute every player's statistics; print each mismatch with the game id (or the
player and level) and exit non-zero on any (games.play.integrity, docs/RELIABILITY.md)."""

from __future__ import annotations

import re
import sys
from datetime import datetime, timedelta
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from games.play import integrity

BATCH = 500
_SPAN = re.compile(r"^(\d+)([mhd])$")
_UNITS = {"m": "minutes", "h": "hours", "d": "days"}


def parse_since(raw: str | None) -> datetime | None:
    """`30m`, `2h`, `3d` before now, or an ISO date-time; None checks everything."""
    if raw is None:
        return None
    span = _SPAN.match(raw.strip())
    if span:
        n, unit = int(span.group(1)), span.group(2)
        return timezone.now() - timedelta(**{_UNITS[unit]: n})
    parsed = parse_datetime(raw)
    if parsed is None:
        raise CommandError(f"--since {raw!r}: use 30m, 2h, 3d or an ISO date-time")
    return parsed if timezone.is_aware(parsed) else timezone.make_aware(parsed)


class Command(BaseCommand):
    help = "Replay every stored game and recompute statistics; exit 1 on any mismatch."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--since", help="only games touched since: 30m, 2h, 3d or an ISO date-time"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        since = parse_since(options.get("since"))
        quiet = options["verbosity"] == 0
        mismatches: list[integrity.Mismatch] = []
        players: set[int] = set()
        checked = 0
        batch: list[Any] = []

        def flush() -> None:
            nonlocal checked
            moves = integrity.moves_of([g.id for g in batch])
            for game in batch:
                mismatches.extend(integrity.check_game(game, moves.get(game.id, [])))
                players.add(game.player_id)
            checked += len(batch)
            batch.clear()
            if not quiet:
                sys.stderr.write(f"\rverify_games: {checked:,} games checked")
                sys.stderr.flush()

        for game in integrity.games_to_check(since):
            batch.append(game)
            if len(batch) >= BATCH:
                flush()
        flush()
        if not quiet:
            sys.stderr.write(f"\nverify_games: statistics of {len(players):,} players\n")
        mismatches.extend(integrity.check_stats(sorted(players)))
        for m in mismatches:
            self.stdout.write(str(m))
        self.stdout.write(
            f"verify_games: {checked:,} games, {len(players):,} players, "
            f"{len(mismatches)} mismatch(es)"
        )
        if mismatches:
            raise CommandError(f"{len(mismatches)} mismatch(es)", returncode=1)
