"""The puzzles' REST shapes: the opening's body (validation) and the answers (the OpenAPI
schema). API.md: coordinates must be JSON integers; strings, floats, booleans and null are
malformed (400), and a cell outside the board is 400 `out_of_bounds` from the service."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from accounts.standings.serializers import BoardRowOut
from games.api.serializers import CellOut, StrictIntegerField, page_of
from games.puzzles.models import AttemptMode, AttemptState, RunKind
from games.puzzles.positions import THEMES


class PuzzleOpenIn(serializers.Serializer[Any]):
    x = StrictIntegerField(min_value=-(2**31), max_value=2**31)
    y = StrictIntegerField(min_value=-(2**31), max_value=2**31)


class OpenedCellOut(serializers.Serializer[Any]):
    x = serializers.IntegerField(help_text="The column, from 0.")
    y = serializers.IntegerField(help_text="The row, from 0.")
    number = serializers.IntegerField(
        min_value=0, max_value=8, help_text="The number the cell showed."
    )


class WrongCellOut(serializers.Serializer[Any]):
    """The opening that failed the attempt, shown once it has ended."""

    x = serializers.IntegerField()
    y = serializers.IntegerField()
    mine = serializers.BooleanField()


class PuzzleAttemptOut(serializers.Serializer[Any]):
    """The caller's attempt: made when the puzzle is shown, started at its first opening.
    Ratings are the player's puzzle rating before and after, for a rated attempt."""

    state = serializers.ChoiceField(
        choices=AttemptState.values, help_text="`playing`, `solved` or `failed`."
    )
    mode = serializers.ChoiceField(
        choices=AttemptMode.values,
        help_text="How the puzzle was reached: rated, daily, streak, storm or practice (docs/PUZZLES.md).",
    )
    rated = serializers.BooleanField(
        help_text="Whether this attempt moves the ratings (a player's first attempt, in a rated or daily mode)."
    )
    opened = OpenedCellOut(many=True, help_text="The cells the attempt opened, in order.")
    wrong = WrongCellOut(
        allow_null=True,
        help_text="The cell that failed the attempt, and whether it was a mine; else null.",
    )
    rating_before = serializers.IntegerField(
        allow_null=True, help_text="The player's puzzle rating before a rated attempt, else null."
    )
    rating_after = serializers.IntegerField(
        allow_null=True,
        help_text="The player's puzzle rating after a rated attempt has ended, else null.",
    )
    started_at = serializers.DateTimeField(
        allow_null=True, help_text="The first opening; null before it."
    )
    ended_at = serializers.DateTimeField(
        allow_null=True, help_text="The end; null while the attempt runs."
    )


class PuzzleOut(serializers.Serializer[Any]):
    """API.md's Puzzle. `board`: one string a row, `#` closed and `0`-`8` opened (no flags).
    `solution`, `depth` and `source_game` are null until the caller's attempt has ended."""

    id = serializers.UUIDField(help_text="Its id (a UUID).")
    level = serializers.CharField(help_text="The level of the game it came from.")
    width = serializers.IntegerField(help_text="Columns: `x` goes from 0 to width - 1.")
    height = serializers.IntegerField(help_text="Rows: `y` goes from 0 to height - 1.")
    mines_left = serializers.IntegerField(help_text="Mines not yet found on the board.")
    board = serializers.ListField(
        child=serializers.CharField(),
        help_text="The position, one string per row (y from 0), one character per cell (x from 0): the Game's characters without flags, `#` closed and `0`-`8` opened.",
    )
    rating = serializers.IntegerField(help_text="The puzzle's rating.")
    provisional = serializers.BooleanField(
        help_text="The rating is still being calibrated by plays."
    )
    plays = serializers.IntegerField(help_text="How many rated attempts it has had.")
    themes = serializers.ListField(
        child=serializers.ChoiceField(choices=list(THEMES)),
        help_text="The deductions it asks for (docs/PUZZLES.md, Themes and depth).",
    )
    daily = serializers.DateField(
        allow_null=True, help_text="The day it is the puzzle of, else null."
    )
    attempt = PuzzleAttemptOut(allow_null=True, help_text="The caller's attempt, else null.")
    solution = CellOut(
        many=True,
        allow_null=True,
        help_text="The cells that were provably safe; null until the caller's attempt has ended.",
    )
    depth = serializers.IntegerField(
        allow_null=True,
        help_text="How many numbers the hardest deduction takes; null until the attempt has ended.",
    )
    source_game = serializers.UUIDField(
        allow_null=True,
        help_text="The id of the game it came from; null until the attempt has ended.",
    )


class RunPuzzleOut(serializers.Serializer[Any]):
    id = serializers.UUIDField()
    state = serializers.ChoiceField(choices=AttemptState.values)


class PuzzleRunOut(serializers.Serializer[Any]):
    """A streak or a storm. A storm's clock runs from its first opening for three minutes,
    less `penalty_ms` for each failed puzzle (`ends_at`, `time_left_ms`); `puzzle` is the
    one in play, null once the run has ended."""

    id = serializers.UUIDField()
    kind = serializers.ChoiceField(choices=RunKind.values)
    state = serializers.ChoiceField(choices=["running", "ended"])
    score = serializers.IntegerField()
    failures = serializers.IntegerField()
    best = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    ended_at = serializers.DateTimeField(allow_null=True)
    ends_at = serializers.DateTimeField(allow_null=True)
    time_left_ms = serializers.IntegerField(allow_null=True)
    penalty_ms = serializers.IntegerField(allow_null=True)
    puzzle = PuzzleOut(allow_null=True)
    puzzles = RunPuzzleOut(many=True)


class PuzzleOpenOut(serializers.Serializer[Any]):
    """`correct`: the opening was provably safe; `run`: the streak or storm the puzzle is in."""

    correct = serializers.BooleanField()
    puzzle = PuzzleOut()
    run = PuzzleRunOut(allow_null=True)


class ThemeStatsOut(serializers.Serializer[Any]):
    theme = serializers.ChoiceField(choices=list(THEMES))
    attempts = serializers.IntegerField()
    solved = serializers.IntegerField()
    accuracy = serializers.FloatField(allow_null=True)


class RatingPointOut(serializers.Serializer[Any]):
    at = serializers.DateTimeField()
    rating = serializers.IntegerField()


class PuzzleDashboardOut(serializers.Serializer[Any]):
    """The signed-in player's puzzle rating (`provisional` while few attempts have rated it,
    `held` while fair play holds it), bests, and attempts per theme; `history` is the rating
    after each of the last 100 rated attempts."""

    rating = serializers.IntegerField()
    provisional = serializers.BooleanField()
    held = serializers.BooleanField()
    rated_attempts = serializers.IntegerField()
    solved = serializers.IntegerField()
    best_streak = serializers.IntegerField()
    best_storm = serializers.IntegerField()
    themes = ThemeStatsOut(many=True)
    history = RatingPointOut(many=True)


class PuzzleBoardRowOut(BoardRowOut):
    rating = serializers.IntegerField()
    solved = serializers.IntegerField()
    provisional = serializers.BooleanField()


PuzzleBoardPageOut = page_of("PuzzleBoardPageOut", PuzzleBoardRowOut, me=True, described=False)


class PuzzleStreakRowOut(BoardRowOut):
    best_streak = serializers.IntegerField()
    achieved_at = serializers.DateTimeField(allow_null=True)


PuzzleStreakPageOut = page_of("PuzzleStreakPageOut", PuzzleStreakRowOut, me=True, described=False)


class PuzzleStormRowOut(BoardRowOut):
    score = serializers.IntegerField()
    achieved_at = serializers.DateTimeField(allow_null=True)


PuzzleStormPageOut = page_of("PuzzleStormPageOut", PuzzleStormRowOut, me=True, described=False)
