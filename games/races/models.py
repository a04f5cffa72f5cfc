"""The races room's tables (RULES.md and API.md, Races; docs/RACES.md)."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.utils import timezone

from games.play.models import BoardSize, Game


class RaceState(models.TextChoices):
    OPEN = "open"
    COUNTDOWN = "countdown"
    RUNNING = "running"
    FINISHED = "finished"
    CANCELLED = "cancelled"


class RacerState(models.TextChoices):
    WAITING = "waiting"
    RACING = "racing"
    WON = "won"
    LOST = "lost"
    LEFT = "left"


ACTIVE_RACE_STATES = (RaceState.OPEN, RaceState.COUNTDOWN, RaceState.RUNNING)
DONE_RACER_STATES = (RacerState.WON, RacerState.LOST, RacerState.LEFT)


class Contest(models.Model):
    """What a race and an arena (games.arenas.models) both are: found by a code, on one level,
    opened by a player or by the server (`created_by` None), with the time limit of a race,
    a clock (`deadline`: the next instant the clock must act on it) and numbered events (`seq`:
    the number of the last one)."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    code = models.CharField(max_length=6, unique=True)
    level = models.CharField(max_length=16)  # one of engine.LEVELS
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    time_limit_ms = models.PositiveIntegerField()
    seq = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now)
    ended_at = models.DateTimeField(null=True, blank=True)
    deadline = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True


class Race(Contest, BoardSize):
    """Two to eight racers on one layout. Written by games.races.services (and games.races.progress for
    the counts each move changes); `deadline` is the next instant the race clock must act on it
    (the end of the countdown, the time limit, or now once every racer is done). `created_by` is
    who opened the room (None for quick match): the host may change, this does not; it bounds
    the rooms one account keeps open (games.races.rules.MAX_OPEN_ROOMS)."""

    state = models.CharField(max_length=9, choices=RaceState.choices, default=RaceState.OPEN)
    host = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    max_players = models.PositiveSmallIntegerField(default=8)
    quick = models.BooleanField(default=False)  # made by quick match
    rated = models.BooleanField(default=False)  # fixed at the start (docs/RACES.md)
    racing = models.PositiveSmallIntegerField(default=0)  # racers still racing (once started)
    starts_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    start_x = models.PositiveSmallIntegerField(null=True, blank=True)
    start_y = models.PositiveSmallIntegerField(null=True, blank=True)
    no_guess = models.BooleanField(default=False, db_default=False)  # every racer's board is
    # The arena that formed this race (games.arenas.services), else None.
    arena = models.ForeignKey(
        "Arena", on_delete=models.SET_NULL, null=True, blank=True, related_name="races"
    )

    class Meta:
        indexes = [
            models.Index(fields=["state", "deadline"], name="race_clock"),
            models.Index(fields=["state", "level", "-created_at"], name="race_list"),
        ]

    def __str__(self) -> str:
        return f"{self.level} race {self.code} ({self.state})"


class Entrant(models.Model):
    """A player's place in a contest (Racer, games.arenas.models.ArenaEntry): when they joined,
    and whether they are still in it (`active`) or gone."""

    joined_at = models.DateTimeField(default=timezone.now)
    active = models.BooleanField(default=True)

    class Meta:
        abstract = True


class Racer(Entrant):
    """One player in one race: their counts, their result, and the raw result the ratings are
    computed from (`place`, `pool`), kept so that every rating can be recomputed. A racer is
    `active` while still in the race (waiting or racing in an open, counting down or running
    race): one such row per player at the most."""

    race = models.ForeignKey(Race, on_delete=models.CASCADE, related_name="racers")
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="racers"
    )
    ready = models.BooleanField(default=False)
    game = models.OneToOneField(
        Game, on_delete=models.SET_NULL, null=True, blank=True, related_name="racer"
    )
    state = models.CharField(max_length=7, choices=RacerState.choices, default=RacerState.WAITING)
    # A racer's counts (safe cells opened, flags) are their Game's: `opened`, mines - mines_left.
    elapsed_ms = models.BigIntegerField(null=True, blank=True)  # fixed when the racer is done
    pool = models.CharField(max_length=5, blank=True, default="")  # rating pool, at the start
    place = models.PositiveSmallIntegerField(null=True, blank=True)
    rating_before = models.FloatField(null=True, blank=True)
    rating_after = models.FloatField(null=True, blank=True)
    # The sigma that went with rating_after: whether that rating was still provisional
    # (accounts.standings.ratings.provisional). Null when not rated, and for races that ended
    # before it was kept until `manage.py recompute_race_ratings` fills it in.
    sigma_after = models.FloatField(null=True, blank=True)
    # Whether they revealed or chorded at least once themselves after the server's opening,
    # fixed when the race ends: who may gain from a race (docs/RACES.md, Rated races).
    took_part = models.BooleanField(default=False, db_default=False)

    class Meta:
        ordering = ["race", "joined_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["race", "player"], name="racer_once_per_race"),
            models.UniqueConstraint(
                fields=["player"], condition=models.Q(active=True), name="racer_one_active_race"
            ),
        ]
        indexes = [models.Index(fields=["player", "-joined_at"], name="racer_history")]

    def __str__(self) -> str:
        return f"{self.player_id} in {self.race_id} ({self.state})"


class RaceQueueEntry(models.Model):
    """A player waiting for quick match (one place per player); `race` is set once matched."""

    player = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="race_queue"
    )
    level = models.CharField(max_length=16)
    rating = models.FloatField()  # the player's race rating for the level when they queued
    joined_at = models.DateTimeField(default=timezone.now)
    race = models.ForeignKey(Race, on_delete=models.CASCADE, null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["level", "joined_at"], name="race_queue_wait")]

    def __str__(self) -> str:
        return f"{self.player_id} queued for {self.level}"


# --- arenas (RULES.md and API.md, Arenas; docs/ARENAS.md) ---------------------------------------
