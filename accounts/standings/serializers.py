"""The boards' REST shapes, for the OpenAPI schema (API.md, Leaderboards and statistics): the
row every board begins with, the solo boards' and the race boards' pages."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from games.api.serializers import page_of


# What the rows of every board begin with (a comment: a docstring would describe the rows
# that have none in the schema).
class BoardRowOut(serializers.Serializer[Any]):
    rank = serializers.IntegerField()
    player = serializers.CharField()


class LeaderboardRowOut(BoardRowOut):
    """One row of a board: times rows carry `time_ms`, speed rows `bbbv_per_s` (and
    `time_ms`), streak rows `best_streak` and `current_streak`, and `sort=skill` rows
    `best_skill_streak` and `skill_streak` too."""

    time_ms = serializers.IntegerField(required=False)
    bbbv_per_s = serializers.FloatField(required=False, allow_null=True)
    best_streak = serializers.IntegerField(required=False)
    current_streak = serializers.IntegerField(required=False)
    best_skill_streak = serializers.IntegerField(required=False)
    skill_streak = serializers.IntegerField(required=False)
    game_id = serializers.UUIDField(allow_null=True)
    achieved_at = serializers.DateTimeField(allow_null=True)


LeaderboardPageOut = page_of("LeaderboardPageOut", LeaderboardRowOut, me=True)


# A player's record in one level's races, as their RaceRating holds it: a race board's row
# shows it, and so does a player's races per level (games.races.serializers). A comment for
# the same reason as BoardRowOut's.
class RaceRecordOut(serializers.Serializer[Any]):
    rating = serializers.IntegerField()
    provisional = serializers.BooleanField(
        help_text="Whether the rating is still provisional (its sigma not yet under the"
        " threshold of docs/RACES.md): shown with `?`, and on no race board."
    )
    races = serializers.IntegerField()
    wins = serializers.IntegerField()
    podiums = serializers.IntegerField()


# DRF puts the bases' fields first, in the order of the bases: rank, player, then the record.
class RaceBoardRowOut(BoardRowOut, RaceRecordOut):
    pass


class RaceBoardPageOut(page_of("RaceBoardPage", RaceBoardRowOut, me=True)):  # type: ignore[misc]
    season = serializers.CharField(
        allow_null=True,
        help_text="The season shown (`2026Q4`), or null for the lasting ratings.",
    )
    seasons = serializers.ListField(
        child=serializers.CharField(),
        help_text="The seasons this board can show, newest first: the current one, then every"
        " earlier one with a rating here.",
    )
