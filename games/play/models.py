"""The play room's tables: a game, its moves, its analysis and its fair-play review. No rules
here: the engine plays, games.play.services writes."""

from __future__ import annotations

import uuid
from typing import Protocol

from django.conf import settings
from django.db import models
from django.utils import timezone

from games.play.analysis import Luck


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
    PRACTICE = "practice"  # a past daily played again (RULES.md, The daily challenge)


ENDED_STATES = (GameState.WON, GameState.LOST)
RUNNING_STATES = (GameState.PLAYING, GameState.PAUSED)


class Sized(Protocol):
    """Anything with a board's size: a level (engine.Level), a Board, a puzzle's position."""

    @property
    def width(self) -> int: ...
    @property
    def height(self) -> int: ...
    @property
    def mines(self) -> int: ...


class BoardSize(models.Model):
    """A board's size, as a game, a race and a daily (games.races.models, games.daily.models)
    each fix it: a level's, or a custom board's."""

    width = models.PositiveSmallIntegerField()
    height = models.PositiveSmallIntegerField()
    mines = models.PositiveIntegerField()

    class Meta:
        abstract = True

    @staticmethod
    def of(size: Sized) -> dict[str, int]:
        """The size fields of a new row, read from `size`: `Race.objects.create(**BoardSize.of
        (level), ...)`."""
        return {"width": size.width, "height": size.height, "mines": size.mines}


class Game(BoardSize):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="games"
    )
    level = models.CharField(max_length=16)  # one of engine.LEVELS, or "custom"
    # `ranked` is true exactly while `unranked_reason` is null (games.play.fairplay keeps both).
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
    opened = models.PositiveIntegerField(default=0, db_default=0)  # safe cells open
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
    # The community's counters (games.play.counters; docs/STATS.md): clicks by kind, the
    # effective ones and the flags placed, counted move by move; the layout's ZiNi, at the end.
    # Null on a game that started before they were kept (migration 0003 leaves those null).
    reveal_clicks = models.PositiveIntegerField(null=True, blank=True, default=0)
    flag_clicks = models.PositiveIntegerField(null=True, blank=True, default=0)
    chord_clicks = models.PositiveIntegerField(null=True, blank=True, default=0)
    effective_clicks = models.PositiveIntegerField(null=True, blank=True, default=0)
    flags_placed = models.PositiveIntegerField(null=True, blank=True, default=0)
    zini = models.PositiveIntegerField(null=True, blank=True)
    # A race game (RULES.md, Races) names its race; `sealed` holds while that race runs: nobody
    # else sees the board, the moves or a socket, and not even the player sees the layout.
    race = models.ForeignKey(
        "Race", on_delete=models.SET_NULL, null=True, blank=True, related_name="games"
    )
    sealed = models.BooleanField(default=False, db_default=False)  # raw inserts (seed_demo) too
    # A no-guess game (RULES.md, No-guess boards): its layout, placed at the first tap (or
    # around a race's start cell), is cleared by deduction alone. Its own statistics and boards.
    no_guess = models.BooleanField(default=False, db_default=False)
    # A daily game (RULES.md, The daily challenge) names its UTC day; its level names which of
    # the day's six. Sealed like a race game until the day ends; practice games are unranked.
    daily = models.DateField(null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(fields=["player", "level", "state"], name="game_player_level_state"),
            models.Index(fields=["state", "last_action_at"], name="game_state_idle"),
            models.Index(fields=["state", "level", "-created_at"], name="game_list"),
            models.Index(fields=["player", "-ended_at"], name="game_player_recent"),
            # The analysis worker's queue (games.play.analysis_jobs): ended games by end, solo
            # and race apart. Partial, so a game enters them only at its end (moves stay HOT).
            models.Index(
                fields=["ended_at"],
                name="game_ended_solo",
                condition=models.Q(ended_at__isnull=False, race__isnull=True),
            ),
            models.Index(
                fields=["ended_at"],
                name="game_ended_race",
                condition=models.Q(ended_at__isnull=False, race__isnull=False),
            ),
            # A day's daily games (the day's end ends, unseals and ranks them: games.daily).
            models.Index(
                fields=["daily", "level", "state"],
                name="game_daily",
                condition=models.Q(daily__isnull=False),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.level} game {self.id} of {self.player_id} ({self.state})"

    def sealed_for(self, viewer_id: int | None) -> bool:
        """True when `viewer_id` (None: anonymous) may not see this race game yet."""
        return self.sealed and viewer_id != self.player_id

    @property
    def ended(self) -> bool:
        return self.state in ENDED_STATES

    @property
    def server_opened(self) -> bool:
        """Move 1 was the server's opening, not the player's tap (a race or a daily game)."""
        return self.race_id is not None or self.daily is not None

    @property
    def solo(self) -> bool:
        """A game the solo statistics, streaks and boards count: neither a race's nor a daily."""
        return self.race_id is None and self.daily is None


# The solo games of a query (Game.solo): neither a race's nor a daily.
SOLO = models.Q(race__isnull=True, daily__isnull=True)


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


class GameAnalysis(models.Model):
    """The analysis of an ended game (games.play.analysis, docs/ANALYSIS.md), written off the
    request path by games.play.analysis_jobs; shown (`analysis` of API.md's Game) only where the
    layout may be shown. `folded`: counted into its player's skill streak (in end order)."""

    game = models.OneToOneField(
        Game, on_delete=models.CASCADE, primary_key=True, related_name="analysis"
    )
    # API.md's `moves`: [{seq, label, p_mine, safest_p_mine, safest}, ...]
    moves = models.JSONField(default=list)
    forced_guesses = models.PositiveIntegerField(default=0)
    avoidable_guesses = models.PositiveIntegerField(default=0)
    guesses_survived = models.PositiveIntegerField(default=0)
    unlucky_loss = models.BooleanField(default=False)
    exact = models.BooleanField(default=True)  # False: ms-toollib's routine answered a position
    compute_ms = models.PositiveIntegerField(default=0)
    folded = models.BooleanField(default=False)
    created_at = models.DateTimeField(default=timezone.now)
    # Luck (analysis.Luck, docs/STATS.md): kept at analysis time so that a player's luck is
    # summed, never recomputed; `guesses_survived` is the coin flips won. Null: an analysis
    # stored before luck was kept (games 0004 fills them from `moves`).
    coin_flips_lost = models.PositiveIntegerField(default=0, db_default=0)
    survival_chance = models.FloatField(null=True, blank=True)
    expected_survivals = models.FloatField(null=True, blank=True)

    def __str__(self) -> str:
        return f"analysis of {self.game_id}"

    def luck(self) -> dict[str, object] | None:
        if self.survival_chance is None or self.expected_survivals is None:
            return None
        return Luck(
            self.guesses_survived,
            self.coin_flips_lost,
            self.survival_chance,
            self.expected_survivals,
        ).as_dict()

    def as_dict(self) -> dict[str, object]:
        return {
            "moves": self.moves,
            "forced_guesses": self.forced_guesses,
            "avoidable_guesses": self.avoidable_guesses,
            "unlucky_loss": self.unlucky_loss,
            "exact": self.exact,
            "luck": self.luck(),
        }


class GameProbabilities(models.Model):
    """The replay's probability overlay of an ended game (games.play.probabilities; docs/
    ANALYSIS.md, The probability overlay): every closed cell's chance of a mine at each step,
    a byte a cell, in zlib chunks of `chunk` steps; `offsets[i]` is where chunk i starts in
    `data`. Written with the game's analysis, shown only where the analysis is."""

    game = models.OneToOneField(
        Game, on_delete=models.CASCADE, primary_key=True, related_name="probabilities"
    )
    steps = models.PositiveIntegerField()
    chunk = models.PositiveSmallIntegerField()
    offsets = models.JSONField(default=list)
    data = models.BinaryField()
    exact = models.BooleanField(default=True)  # False: ms-toollib's routine answered a step
    compute_ms = models.PositiveIntegerField(default=0)

    def __str__(self) -> str:
        return f"probabilities of {self.game_id}"


class ReviewStatus(models.TextChoices):
    PENDING = "pending"
    CLEARED = "cleared"  # staff found it human: the game ranks
    CONFIRMED = "confirmed"  # staff found it superhuman: the account is flagged


class Review(models.Model):
    """A human's won game held from the boards because it went beyond the limits of
    docs/FAIRPLAY.md, waiting for staff (games.admin). Written by games.play.fairplay only."""

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


# --- races (RULES.md and API.md, Races; docs/RACES.md) ----------------------------------------
