"""Remove stale guest accounts (docs/GUESTS.md): guests that never played a game (no game past
`new`, no race) and were last signed in (or made) more than --days days ago (default 7).
Their untapped games go with them. The scheduler service runs it (docker-compose.yml)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction
from django.db.models import Exists, OuterRef, QuerySet
from django.db.models.functions import Coalesce
from django.utils import timezone

from accounts.models import AccountKind, User
from games.models import Game, GameState, Racer

DEFAULT_DAYS = 7
BATCH = 500


def stale_guests(*, days: int) -> QuerySet[User]:
    """Guests with nothing to keep: no game ever tapped, no race joined, idle for `days`."""
    cutoff = timezone.now() - timedelta(days=days)
    played = Game.objects.filter(player=OuterRef("pk")).exclude(state=GameState.NEW)
    raced = Racer.objects.filter(player=OuterRef("pk"))
    return (
        User.objects.filter(kind=AccountKind.GUEST)
        .alias(seen=Coalesce("last_login", "date_joined"))
        .filter(seen__lt=cutoff)
        .exclude(Exists(played))
        .exclude(Exists(raced))
    )


def _remove_batch(ids: list[int], *, days: int) -> int:
    """Delete the batch's guests that are still stale (one may have played meanwhile)."""
    with transaction.atomic():
        still = list(
            stale_guests(days=days)
            .filter(pk__in=ids)
            .select_for_update(skip_locked=True)
            .values_list("pk", flat=True)
        )
        User.objects.filter(pk__in=still).delete()
    return len(still)


class Command(BaseCommand):
    help = "Remove guest accounts that never played and have been idle for --days days."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--days",
            type=int,
            default=DEFAULT_DAYS,
            help=f"idle days before a guest without games goes (default {DEFAULT_DAYS})",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        days = options["days"]
        if days < 1:
            raise CommandError("--days must be at least 1")
        ids = list(stale_guests(days=days).order_by("pk").values_list("pk", flat=True))
        self.stdout.write(f"{len(ids)} stale guest account(s) idle for over {days} day(s)")
        removed = 0
        for start in range(0, len(ids), BATCH):
            removed += _remove_batch(ids[start : start + BATCH], days=days)
            self.stdout.write(f"removed {removed}/{len(ids)}")
        self.stdout.write(f"removed {removed} stale guest account(s)")
