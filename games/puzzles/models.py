"""The puzzles room's tables (RULES.md, Puzzles; docs/PUZZLES.md): the puzzles, the games they
were looked for in, the attempts, each player's puzzle rating, the streak and storm runs and the
puzzle of the day. No rules here: games.puzzles.generator keeps puzzles, games.puzzles.services
writes the rest."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.utils import timezone

from accounts.models import BoardPool
from accounts.standings.ratings import MU, SIGMA


class Puzzle(models.Model):
    """A position from a finished game in which the numbers prove at least one closed cell safe.
    `layout` and `solution` are the answer: they never leave the server before the caller's
    attempt has ended (games.puzzles.presenters), nor does `source_game`."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    level = models.CharField(max_length=16)  # the source game's level, or "custom"
    width = models.PositiveSmallIntegerField()
    height = models.PositiveSmallIntegerField()
    mines = models.PositiveIntegerField()  # all among the closed cells: the count of mines left
    # The position, row-major: `#` closed, `0`-`8` opened (games.puzzles.positions).
    view = models.TextField()
    # The source game's layout, row-major, `*` a mine and `.` a safe cell: each opening shows
    # the cell's true number from it.
    layout = models.TextField()
    # The cells (row-major indexes) provably safe in `view`: opened all, the puzzle is solved.
    solution = models.JSONField(default=list)
    themes = models.CharField(max_length=64)  # `,subset,chain,` (games.puzzles.rules.themes_text)
    theme = models.CharField(max_length=16)  # the hardest of them
    depth = models.PositiveSmallIntegerField()
    # The puzzle's rating (openskill's mu and sigma on the race ratings' scale).
    rating = models.FloatField()
    deviation = models.FloatField()
    plays = models.PositiveIntegerField(default=0)  # first attempts started, by anyone
    rated_plays = models.PositiveIntegerField(default=0)  # those that moved its rating
    solves = models.PositiveIntegerField(default=0)  # first attempts solved
    key = models.CharField(max_length=64, unique=True)  # positions.canonical_key
    source_game = models.ForeignKey(
        "Game", on_delete=models.SET_NULL, null=True, blank=True, related_name="puzzles"
    )
    source_seq = models.PositiveIntegerField(default=0)  # the move that followed the position
    origin = models.CharField(max_length=16)  # generator.ORIGIN_*
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [
            models.Index(fields=["rating"], name="puzzle_rating"),
            models.Index(fields=["theme", "rating"], name="puzzle_theme_rating"),
        ]

    def __str__(self) -> str:
        return f"puzzle {self.id} ({self.theme}, {self.rating:.0f})"


class PuzzleSource(models.Model):
    """A game the generator has looked at, once, and what it gave."""

    game = models.OneToOneField(
        "Game", on_delete=models.CASCADE, primary_key=True, related_name="puzzle_source"
    )
    level = models.CharField(max_length=16)
    candidates = models.PositiveIntegerField(default=0)  # positions kept before the dedupe
    puzzles = models.PositiveIntegerField(default=0)  # new puzzles stored
    compute_ms = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"puzzles of {self.game_id}: {self.puzzles}"


class PuzzleRating(models.Model):
    """A player's puzzle rating, bests and fair-play state. `pool` is the player's board pool at
    the last write (accounts.models.User.board_pool): bots on their own board, guests and
    flagged accounts on none. `held`: machine-paced attempts stopped the rating (docs/FAIRPLAY.md)."""

    player = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="puzzle_rating",
    )
    rating = models.FloatField(default=MU)
    deviation = models.FloatField(default=SIGMA)
    pool = models.CharField(max_length=5, choices=BoardPool.choices, default=BoardPool.HUMAN)
    rated_attempts = models.PositiveIntegerField(default=0)
    solved = models.PositiveIntegerField(default=0)  # rated attempts solved
    best_streak = models.PositiveIntegerField(default=0)
    best_streak_at = models.DateTimeField(null=True, blank=True)
    best_storm = models.PositiveIntegerField(default=0)
    best_storm_at = models.DateTimeField(null=True, blank=True)
    machine_attempts = models.PositiveIntegerField(default=0)
    held = models.BooleanField(default=False)
    held_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        # One index a board (rating, best streak, best storm), each over a pool's unheld players.
        indexes = [
            models.Index(fields=["pool", "held", f"-{field}"], name=f"puzzle_{board}_board")
            for board, field in (
                ("rating", "rating"),
                ("streak", "best_streak"),
                ("storm", "best_storm"),
            )
        ]

    def __str__(self) -> str:
        return f"puzzle rating of {self.player_id}: {self.rating:.0f}"


class RunKind(models.TextChoices):
    STREAK = "streak"
    STORM = "storm"


class PuzzleRun(models.Model):
    """A streak or a storm: puzzles one after another. A streak ends at its first failure; a
    storm when its three minutes (less its penalties) have passed on the server's clock."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="puzzle_runs"
    )
    kind = models.CharField(max_length=6, choices=RunKind.choices)
    running = models.BooleanField(default=True)
    score = models.PositiveIntegerField(default=0)  # puzzles solved
    failures = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)  # its first opening
    ended_at = models.DateTimeField(null=True, blank=True)
    day = models.DateField(null=True, blank=True)  # the UTC day it started (the day's board)

    class Meta:
        indexes = [
            models.Index(fields=["player", "kind", "-created_at"], name="puzzle_run_player"),
            models.Index(fields=["kind", "day", "-score"], name="puzzle_run_day"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.id} of {self.player_id}: {self.score}"


class AttemptState(models.TextChoices):
    PLAYING = "playing"
    SOLVED = "solved"
    FAILED = "failed"


class AttemptMode(models.TextChoices):
    RATED = "rated"  # the player's first attempt at a puzzle (next, by id)
    DAILY = "daily"  # the same, on the puzzle of the day
    PRACTICE = "practice"  # any later attempt
    STREAK = "streak"
    STORM = "storm"


class PuzzleAttempt(models.Model):
    """One player's attempt at one puzzle. Made when the puzzle is shown to a signed-in player
    (`shown_at`), started by the first opening (`started_at`). `opened`: every cell opened, in
    order, with its number; `times_ms`: each accepted opening's time from `shown_at`."""

    puzzle = models.ForeignKey(Puzzle, on_delete=models.CASCADE, related_name="attempts")
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="puzzle_attempts"
    )
    mode = models.CharField(max_length=8, choices=AttemptMode.choices)
    run = models.ForeignKey(
        PuzzleRun, on_delete=models.CASCADE, null=True, blank=True, related_name="attempts"
    )
    first = models.BooleanField(default=False)  # the player's first attempt at this puzzle
    state = models.CharField(
        max_length=7, choices=AttemptState.choices, default=AttemptState.PLAYING
    )
    opened = models.JSONField(default=list)  # [{"x", "y", "number"}, ...]
    times_ms = models.JSONField(default=list)
    wrong = models.JSONField(null=True, blank=True)  # the failing opening: {"x", "y", "mine"}
    shown_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    ended_at = models.DateTimeField(null=True, blank=True)
    rated = models.BooleanField(default=False)  # this attempt moved the player's rating
    machine = models.BooleanField(default=False)  # machine-paced (rules.machine_paced)
    rating_before = models.FloatField(null=True, blank=True)
    rating_after = models.FloatField(null=True, blank=True)
    puzzle_rating_before = models.FloatField(null=True, blank=True)
    puzzle_rating_after = models.FloatField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["player", "puzzle"],
                condition=models.Q(first=True),
                name="puzzle_attempt_first_once",
            ),
        ]
        indexes = [
            models.Index(fields=["player", "puzzle"], name="puzzle_attempt_player"),
            models.Index(fields=["player", "ended_at"], name="puzzle_attempt_history"),
        ]

    def __str__(self) -> str:
        return f"attempt {self.pk} of {self.player_id} at {self.puzzle_id} ({self.state})"


class PuzzleOfTheDay(models.Model):
    """The puzzle of a UTC day, the same for everyone: drawn on the day's first request."""

    day = models.DateField(primary_key=True)
    puzzle = models.ForeignKey(Puzzle, on_delete=models.CASCADE, related_name="days")
    created_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"puzzle of {self.day}: {self.puzzle_id}"
