"""Close games left untouched for GAME_IDLE_HOURS (RULES.md, Statistics): a started game
becomes an abandoned loss, an untapped one is discarded. Run it from cron, e.g. every 10 min."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from games.play import services


class Command(BaseCommand):
    help = "Close idle games: started ones as abandoned losses, untapped ones discarded."

    def handle(self, *args: Any, **options: Any) -> None:
        closed = services.games_close_idle()
        self.stdout.write(f"closed {closed} idle game(s)")
