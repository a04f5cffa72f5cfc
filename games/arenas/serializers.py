"""Arena request shapes (validation only) and response shapes for the schema (API.md, Arenas)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from accounts.standings.serializers import BoardRowOut
from games.api.serializers import (
    LevelNameField,
    StrictBooleanField,
    StrictIntegerField,
    page_of,
)
from games.arenas.models import ArenaPlayers, ArenaState
from games.arenas.rules import MAX_MIN_PLAYERS, MAX_MINUTES, MIN_MINUTES, MIN_PLAYERS

ARENA_STATES = ArenaState.values


class ArenaCreateIn(serializers.Serializer[Any]):
    level = LevelNameField()
    name = serializers.CharField(required=False, max_length=60, allow_blank=True)
    no_guess = StrictBooleanField(required=False, default=False)
    starts_at = serializers.DateTimeField(required=False)
    minutes = StrictIntegerField(min_value=MIN_MINUTES, max_value=MAX_MINUTES)
    players = serializers.ChoiceField(choices=ArenaPlayers.values, required=False)
    private = StrictBooleanField(required=False, default=False)
    min_players = StrictIntegerField(
        required=False, default=MIN_PLAYERS, min_value=MIN_PLAYERS, max_value=MAX_MIN_PLAYERS
    )


class ArenaMeOut(serializers.Serializer[Any]):
    score = serializers.IntegerField()
    race = serializers.UUIDField(allow_null=True)
    active = serializers.BooleanField()
    rank = serializers.IntegerField(allow_null=True)
    streak = serializers.IntegerField()
    fire = serializers.BooleanField()
    eligible_at = serializers.DateTimeField()


class ArenaOut(serializers.Serializer[Any]):
    id = serializers.UUIDField()
    code = serializers.CharField()
    name = serializers.CharField()
    level = serializers.CharField()
    no_guess = serializers.BooleanField()
    players = serializers.ChoiceField(choices=ArenaPlayers.values)
    private = serializers.BooleanField()
    state = serializers.ChoiceField(choices=ARENA_STATES)
    starts_at = serializers.DateTimeField()
    ends_at = serializers.DateTimeField()
    ended_at = serializers.DateTimeField(allow_null=True)
    created_by = serializers.CharField(allow_null=True)
    time_limit_ms = serializers.IntegerField()
    seq = serializers.IntegerField()
    joined = serializers.IntegerField()
    min_players = serializers.IntegerField()
    me = ArenaMeOut(allow_null=True)


ArenaPageOut = page_of("ArenaPageOut", ArenaOut)


class StandingRowOut(BoardRowOut):
    score = serializers.IntegerField()
    races = serializers.IntegerField()
    wins = serializers.IntegerField()
    streak = serializers.IntegerField()
    fire = serializers.BooleanField()
    active = serializers.BooleanField()


StandingsPageOut = page_of("StandingsPageOut", StandingRowOut, me=True)
