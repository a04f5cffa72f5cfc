"""Games and their moves. No rules here: the engine plays, services write."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.utils import timezone


class GameState(models.TextChoices):
    NEW = "new"
    PLAYING = "playing"
    PAUSED = "paused"
    WON = "won"
    LOST = "lost"


class EndReason(models.TextChoices):
    CLEARED = "cleared"
    MINE = "mine"
    RESIGNED = "resigned"
    ABANDONED = "abandoned"


class Action(models.TextChoices):
    REVEAL = "reveal"
    FLAG = "flag"
    CHORD = "chord"
    PAUSE = "pause"
    RESUME = "resume"
    RESIGN = "resign"
    ABANDON = "abandon"


class UnrankedReason(models.TextChoices):
    """Why a game enters no leaderboard (RULES.md, Fair play; API.md `unranked_reason`)."""

    CUSTOM = "custom"
    PAUSED = "paused"
    REVIEW = "review"
    FLAGGED = "flagged"
    RACE = "race"
    GUEST = "guest"


ENDED_STATES = (GameState.WON, GameState.LOST)
RUNNING_STATES = (GameState.PLAYING, GameState.PAUSED)


class Game(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="games"
    )
    level = models.CharField(max_length=16)  # one of engine.LEVELS, or "custom"
    width = models.PositiveSmallIntegerField()
    height = models.PositiveSmallIntegerField()
    mines = models.PositiveIntegerField()
    # `ranked` is true exactly while `unranked_reason` is null (games.fairplay keeps both).
    ranked = models.BooleanField()
    unranked_reason = models.CharField(
        max_length=8, choices=UnrankedReason.choices, null=True, blank=True
    )
    state = models.CharField(max_length=8, choices=GameState.choices, default=GameState.NEW)
    end_reason = models.CharField(max_length=10, choices=EndReason.choices, null=True, blank=True)
    # The engine's compact codec: mines, opened cells and flags. Never leaves the server raw.
    board = models.BinaryField()
    seq = models.PositiveIntegerField(default=0)  # number of the last recorded Move
    clicks = models.PositiveIntegerField(default=0)  # accepted reveal, flag and chord moves
    mines_left = models.IntegerField()  # mines - flags, may go below zero
    bbbv = models.PositiveIntegerField(null=True, blank=True)  # fixed at the first tap
    bbbv_solved = models.PositiveIntegerField(null=True, blank=True)  # set at the end
    # Clock (games.clock): active time = (end | pause | now) - started_at - paused_ms.
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    paused_at = models.DateTimeField(null=True, blank=True)
    paused_ms = models.BigIntegerField(default=0)
    ended_at = models.DateTimeField(null=True, blank=True)
    last_action_at = models.DateTimeField(default=timezone.now)
    elapsed_ms = models.BigIntegerField(null=True, blank=True)  # final time, set at the end
    bbbv_per_s = models.FloatField(null=True, blank=True)  # won games with elapsed_ms > 0

    class Meta:
        indexes = [
            models.Index(fields=["player", "level", "state"], name="game_player_level_state"),
            models.Index(fields=["state", "last_action_at"], name="game_state_idle"),
            models.Index(fields=["state", "level", "-created_at"], name="game_list"),
            models.Index(fields=["player", "-ended_at"], name="game_player_recent"),
        ]

    def __str__(self) -> str:
        return f"{self.level} game {self.id} of {self.player_id} ({self.state})"

    @property
    def ended(self) -> bool:
        return self.state in ENDED_STATES


class Move(models.Model):
    """One accepted action, numbered by `seq` (1-based, no gaps) within its game."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="moves")
    seq = models.PositiveIntegerField()
    action = models.CharField(max_length=8, choices=Action.choices)
    x = models.PositiveSmallIntegerField(null=True, blank=True)
    y = models.PositiveSmallIntegerField(null=True, blank=True)
    flagged = models.BooleanField(null=True, blank=True)  # the explicit `flagged` of a flag move
    at_ms = models.BigIntegerField()  # the game clock at this move
    client_move_id = models.CharField(max_length=64, null=True, blank=True)
    # The original `changes`, kept only when a client_move_id makes a replay possible.
    changes = models.JSONField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["game", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["game", "seq"], name="move_game_seq_unique"),
            models.UniqueConstraint(
                fields=["game", "client_move_id"],
                condition=models.Q(client_move_id__isnull=False),
                name="move_game_client_id_unique",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.game_id}#{self.seq} {self.action}"


class ReviewStatus(models.TextChoices):
    PENDING = "pending"
    CLEARED = "cleared"  # staff found it human: the game ranks
    CONFIRMED = "confirmed"  # staff found it superhuman: the account is flagged


class Review(models.Model):
    """A human's won game held from the boards because it went beyond the limits of
    docs/FAIRPLAY.md, waiting for staff (games.admin). Written by games.fairplay only."""

    game = models.OneToOneField(Game, on_delete=models.CASCADE, related_name="review")
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="reviews"
    )
    level = models.CharField(max_length=16)
    # What the game measured against which limit: [{"check", "value", "limit"}, ...].
    findings = models.JSONField(default=list)
    status = models.CharField(
        max_length=9, choices=ReviewStatus.choices, default=ReviewStatus.PENDING
    )
    created_at = models.DateTimeField(default=timezone.now)
    decided_at = models.DateTimeField(null=True, blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )

    class Meta:
        indexes = [models.Index(fields=["status", "created_at"], name="review_queue")]

    def __str__(self) -> str:
        return f"review of {self.game_id} ({self.status})"
