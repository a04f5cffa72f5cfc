"""Race request shapes (validation only) and response shapes for the schema (API.md, Races).
The race boards' shapes are the boards' (accounts/standings/serializers.py)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from accounts.standings.serializers import RaceRecordOut
from games.api.serializers import (
    BoardOut,
    CellOut,
    LevelNameField,
    StrictBooleanField,
    StrictIntegerField,
    page_of,
)
from games.races.models import RacerState, RaceState
from games.races.rules import MAX_RACERS, MIN_RACERS


class RaceCreateIn(serializers.Serializer[Any]):
    level = LevelNameField()
    max_players = StrictIntegerField(min_value=MIN_RACERS, max_value=MAX_RACERS, required=False)
    no_guess = StrictBooleanField(required=False, default=False)


class ReadyIn(serializers.Serializer[Any]):
    ready = StrictBooleanField(required=False)


class QueueIn(serializers.Serializer[Any]):
    level = LevelNameField()
    no_guess = StrictBooleanField(required=False, default=False)


RACER_STATES = RacerState.values
RACE_STATES = RaceState.values


class RacerOut(serializers.Serializer[Any]):
    player = serializers.CharField()
    player_kind = serializers.ChoiceField(choices=["human", "bot", "guest"])
    ready = serializers.BooleanField()
    game = serializers.UUIDField(allow_null=True)
    state = serializers.ChoiceField(choices=RACER_STATES)
    opened = serializers.IntegerField()
    safe_cells = serializers.IntegerField()
    flags = serializers.IntegerField()
    elapsed_ms = serializers.IntegerField()
    place = serializers.IntegerField(allow_null=True)
    rating_before = serializers.IntegerField(allow_null=True)
    rating_after = serializers.IntegerField(allow_null=True)


class RaceOut(BoardOut):
    code = serializers.CharField()
    state = serializers.ChoiceField(choices=RACE_STATES)
    host = serializers.CharField(allow_null=True)
    max_players = serializers.IntegerField()
    quick = serializers.BooleanField()
    no_guess = serializers.BooleanField()
    arena = serializers.UUIDField(allow_null=True)
    rated = serializers.BooleanField()
    time_limit_ms = serializers.IntegerField()
    seq = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    starts_at = serializers.DateTimeField(allow_null=True)
    started_at = serializers.DateTimeField(allow_null=True)
    ended_at = serializers.DateTimeField(allow_null=True)
    start_cell = CellOut(allow_null=True)
    racers = RacerOut(many=True)


RacePageOut = page_of("RacePageOut", RaceOut)


class QueueOut(serializers.Serializer[Any]):
    state = serializers.ChoiceField(choices=["waiting", "matched"])
    level = serializers.CharField()
    no_guess = serializers.BooleanField()
    race = RaceOut(allow_null=True)
    waited_ms = serializers.IntegerField()


class RaceLevelStatsOut(RaceRecordOut):
    rating = serializers.IntegerField(allow_null=True)  # null before a rated race


class RaceHistoryOut(serializers.Serializer[Any]):
    race = serializers.UUIDField()
    code = serializers.CharField()
    level = serializers.CharField()
    no_guess = serializers.BooleanField()
    ended_at = serializers.DateTimeField()
    racers = serializers.IntegerField()
    place = serializers.IntegerField(allow_null=True)
    state = serializers.ChoiceField(choices=RACER_STATES)
    elapsed_ms = serializers.IntegerField(allow_null=True)
    game = serializers.UUIDField(allow_null=True)
    rated = serializers.BooleanField()
    rating_before = serializers.IntegerField(allow_null=True)
    rating_after = serializers.IntegerField(allow_null=True)


class PlayerArenasOut(serializers.Serializer[Any]):
    """Finished arenas with a race of the player's: how many, podiums (final ranks 1-3), the
    best final rank (null before any)."""

    played = serializers.IntegerField()
    podiums = serializers.IntegerField()
    best_rank = serializers.IntegerField(allow_null=True)


class PlayerRacesOut(serializers.Serializer[Any]):
    levels = serializers.DictField(child=RaceLevelStatsOut())
    races = serializers.IntegerField()
    wins = serializers.IntegerField()
    podiums = serializers.IntegerField()
    history = RaceHistoryOut(many=True)
    arenas = PlayerArenasOut()
