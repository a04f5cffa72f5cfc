"""The arenas room's tables (RULES.md and API.md, Arenas; docs/ARENAS.md)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from games.races.models import Contest, Entrant, Race


class ArenaState(models.TextChoices):
    SCHEDULED = "scheduled"
    RUNNING = "running"
    FINISHED = "finished"


class ArenaPlayers(models.TextChoices):
    HUMANS = "humans"
    BOTS = "bots"


class Arena(Contest):
    """A tournament of races on one level for a fixed time. Written by games.arenas.services
    only; `deadline` is the next instant the clock must act on it (the start, the end, then
    the last instant a race still running may end). `time_limit_ms` is the level's race limit
    at the creation."""

    name = models.CharField(max_length=60)
    no_guess = models.BooleanField(default=False)
    players = models.CharField(
        max_length=6, choices=ArenaPlayers.choices, default=ArenaPlayers.HUMANS
    )
    private = models.BooleanField(default=False)  # listed only by its code
    state = models.CharField(max_length=9, choices=ArenaState.choices, default=ArenaState.SCHEDULED)
    # The server's schedule that made it ("beginner:60:30"), empty for a player's arena.
    schedule = models.CharField(max_length=40, blank=True, default="")
    starts_at = models.DateTimeField()
    ends_at = models.DateTimeField()
    joined = models.PositiveIntegerField(default=0)  # players who ever joined
    # The first races wait until this many are in the pool at once (2: no minimum).
    min_players = models.PositiveSmallIntegerField(default=2)

    class Meta:
        indexes = [
            models.Index(fields=["state", "deadline"], name="arena_clock"),
            models.Index(fields=["state", "level", "starts_at"], name="arena_list"),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["schedule", "starts_at"],
                condition=~models.Q(schedule=""),
                name="arena_one_per_slot",
            )
        ]

    def __str__(self) -> str:
        return f"{self.level} arena {self.code} ({self.state})"


class ArenaEntry(Entrant):
    """One player in one arena: in it (`active`) or gone, waiting in the pool (`race` None and
    `waiting_since` set) or racing, and their standing (the fold of their ArenaResults)."""

    arena = models.ForeignKey(Arena, on_delete=models.CASCADE, related_name="entries")
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="arena_entries"
    )
    race = models.ForeignKey(
        Race, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    last_race = models.ForeignKey(
        Race, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    waiting_since = models.DateTimeField(null=True, blank=True)
    eligible_at = models.DateTimeField(default=timezone.now)  # a rejoin's penalty ends
    score = models.IntegerField(default=0)
    races = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    streak = models.PositiveIntegerField(default=0)
    score_at = models.DateTimeField(default=timezone.now)  # when the score was reached
    final_rank = models.PositiveIntegerField(null=True, blank=True)  # fixed at the end

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["arena", "player"], name="arena_entry_once"),
        ]
        indexes = [
            models.Index(fields=["arena", "-score", "races", "score_at"], name="arena_standings"),
            models.Index(fields=["player", "-joined_at"], name="arena_history"),
        ]

    def __str__(self) -> str:
        return f"{self.player_id} in arena {self.arena_id}"


class ArenaResult(models.Model):
    """One player's result in one arena race, as the points see it (games.arenas.rules)."""

    entry = models.ForeignKey(ArenaEntry, on_delete=models.CASCADE, related_name="results")
    race = models.ForeignKey(Race, on_delete=models.CASCADE, related_name="+")
    started_at = models.DateTimeField()
    place = models.PositiveSmallIntegerField(null=True, blank=True)  # among those who took part
    takers = models.PositiveSmallIntegerField()
    took_part = models.BooleanField()
    left = models.BooleanField(default=False)
    points = models.IntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["entry", "race"], name="arena_result_once"),
        ]

    def __str__(self) -> str:
        return f"{self.entry_id}: {self.points} in {self.race_id}"
