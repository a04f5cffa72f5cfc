"""Remove stale guest accounts (docs/GUESTS.md). Two kinds of guest go:

* a guest that never played (no game past `new`, no race) and was last signed in (or made)
  more than --days days ago (GUEST_UNPLAYED_IDLE_DAYS, 7): removed with its untapped games;
* a guest that played but never signed up, idle for --played-days days
  (GUEST_PLAYED_IDLE_DAYS, 30): no sign-in, no move and no race joined in that time. Its
  games and race entries are handed over to the anonymous player first (`guest-anonymous`,
  accounts.services.anonymous_player), so every game, replay and race result stays as it was,
  under that name; then the guest goes, with its statistics and settings. Guests never rank,
  so no board changes.

A guest with a game still running (playing or paused: close_idle_games ends it first), an
active race entry or a held game is left for a later run. The scheduler service runs the
command (docker-compose.yml). The anonymous players are themselves never removed.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.db.models.functions import Coalesce
from django.utils import timezone

from accounts.models import AccountKind, User
from accounts.services import ANONYMOUS_PREFIX, anonymous_player
from games.play.models import Game, GameState, Review
from games.races.models import Racer

BATCH = 500


def _idle_guests(*, days: int) -> QuerySet[User]:
    cutoff = timezone.now() - timedelta(days=days)
    return (
        User.objects.filter(kind=AccountKind.GUEST)
        .exclude(username__startswith=ANONYMOUS_PREFIX)
        .alias(seen=Coalesce("last_login", "date_joined"))
        .filter(seen__lt=cutoff)
    )


def stale_guests(*, days: int) -> QuerySet[User]:
    """Guests with nothing to keep: no game ever tapped, no race joined, idle for `days`."""
    played = Game.objects.filter(player=OuterRef("pk")).exclude(state=GameState.NEW)
    raced = Racer.objects.filter(player=OuterRef("pk"))
    return _idle_guests(days=days).exclude(Exists(played)).exclude(Exists(raced))


def stale_played_guests(*, days: int) -> QuerySet[User]:
    """Guests that played, idle for `days`: nothing played, joined or signed in since, and
    nothing left running (a game in play, an active race entry, a game held for staff)."""
    cutoff = timezone.now() - timedelta(days=days)
    played = Game.objects.filter(player=OuterRef("pk")).exclude(state=GameState.NEW)
    raced = Racer.objects.filter(player=OuterRef("pk"))
    busy = Game.objects.filter(player=OuterRef("pk")).filter(
        Q(last_action_at__gte=cutoff) | Q(state__in=[GameState.PLAYING, GameState.PAUSED])
    )
    racing = Racer.objects.filter(player=OuterRef("pk")).filter(
        Q(active=True) | Q(joined_at__gte=cutoff)
    )
    held = Review.objects.filter(player=OuterRef("pk"))
    return (
        _idle_guests(days=days)
        .filter(Exists(played) | Exists(raced))
        .exclude(Exists(busy))
        .exclude(Exists(racing))
        .exclude(Exists(held))
    )


def _lock_still(stale: QuerySet[User], ids: list[int]) -> list[int]:
    """The batch's guests that are still `stale` (one may have played meanwhile), locked; one
    locked elsewhere is left for a later run."""
    return list(
        stale.filter(pk__in=ids).select_for_update(skip_locked=True).values_list("pk", flat=True)
    )


def _remove_batch(ids: list[int], *, days: int) -> int:
    """Delete the batch's guests that are still stale."""
    with transaction.atomic():
        still = _lock_still(stale_guests(days=days), ids)
        User.objects.filter(pk__in=still).delete()
    return len(still)


def _hand_over_batch(ids: list[int], *, days: int) -> int:
    """Hand the batch's still-stale played guests' games and race entries to the anonymous
    players, then delete the guests. A race holds a player once, so a race where the
    anonymous player already stands gets the next one (`guest-anonymous-2`, ...)."""
    with transaction.atomic():
        still = _lock_still(stale_played_guests(days=days), ids)
        if not still:
            return 0
        first = anonymous_player(1)
        Game.objects.filter(player_id__in=still).exclude(state=GameState.NEW).update(player=first)
        racers = list(
            Racer.objects.filter(player_id__in=still)
            .order_by("race_id", "pk")
            .values_list("pk", "race_id")
        )
        taken: dict[Any, set[int]] = {}
        for race_id, player_id in Racer.objects.filter(
            race_id__in={race for _, race in racers}, player__username__startswith=ANONYMOUS_PREFIX
        ).values_list("race_id", "player_id"):
            taken.setdefault(race_id, set()).add(player_id)
        slots: dict[int, User] = {1: first}
        for racer_id, race_id in racers:
            slot = 1
            while True:
                if slot not in slots:
                    slots[slot] = anonymous_player(slot)
                if slots[slot].pk not in taken.get(race_id, set()):
                    break
                slot += 1
            Racer.objects.filter(pk=racer_id).update(player=slots[slot])
            taken.setdefault(race_id, set()).add(slots[slot].pk)
        User.objects.filter(pk__in=still).delete()  # untapped games, statistics, settings
    return len(still)


class Command(BaseCommand):
    help = (
        "Remove guest accounts that never played and have been idle for --days days, and "
        "guests that played but have been idle for --played-days days (their games and race "
        "entries go to the anonymous player)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        unplayed = settings.GUEST_UNPLAYED_IDLE_DAYS
        played = settings.GUEST_PLAYED_IDLE_DAYS
        parser.add_argument(
            "--days",
            type=int,
            default=unplayed,
            help=f"idle days before a guest without games goes (default {unplayed})",
        )
        parser.add_argument(
            "--played-days",
            type=int,
            default=played,
            help=f"idle days before a guest that played goes (default {played})",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        days, played_days = options["days"], options["played_days"]
        if days < 1 or played_days < 1:
            raise CommandError("--days and --played-days must be at least 1")
        ids = list(stale_guests(days=days).order_by("pk").values_list("pk", flat=True))
        self.stdout.write(f"{len(ids)} stale guest account(s) idle for over {days} day(s)")
        removed = 0
        for start in range(0, len(ids), BATCH):
            removed += _remove_batch(ids[start : start + BATCH], days=days)
            self.stdout.write(f"removed {removed}/{len(ids)}")
        self.stdout.write(f"removed {removed} stale guest account(s)")

        ids = list(
            stale_played_guests(days=played_days).order_by("pk").values_list("pk", flat=True)
        )
        self.stdout.write(
            f"{len(ids)} guest account(s) that played, idle for over {played_days} day(s)"
        )
        handed = 0
        for start in range(0, len(ids), BATCH):
            handed += _hand_over_batch(ids[start : start + BATCH], days=played_days)
            self.stdout.write(f"removed {handed}/{len(ids)}, their games kept as anonymous")
        self.stdout.write(f"removed {handed} guest account(s) that played")
