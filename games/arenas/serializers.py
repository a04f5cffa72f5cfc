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
    score = serializers.IntegerField(help_text="The viewer's points.")
    race = serializers.UUIDField(
        allow_null=True, help_text="The viewer's race in progress, else null."
    )
    active = serializers.BooleanField(help_text="In the pool (not left).")
    rank = serializers.IntegerField(
        allow_null=True, help_text="The viewer's rank on the standings, null before a first race."
    )
    streak = serializers.IntegerField(help_text="Wins in a row.")
    fire = serializers.BooleanField(help_text="The next win scores double.")
    eligible_at = serializers.DateTimeField(help_text="When the viewer may be paired again.")


class ArenaOut(serializers.Serializer[Any]):
    id = serializers.UUIDField(help_text="Its id (a UUID).")
    code = serializers.CharField(
        help_text="A short code to share the arena by (`?code=` on the list)."
    )
    name = serializers.CharField(help_text="Its name.")
    level = serializers.CharField(help_text="The level its races are played at.")
    no_guess = serializers.BooleanField(help_text="Its races are played on no-guess layouts.")
    players = serializers.ChoiceField(
        choices=ArenaPlayers.values, help_text="`humans` or `bots`: who may join."
    )
    private = serializers.BooleanField(
        help_text="Kept out of the list; found by its code (docs/ARENAS.md)."
    )
    state = serializers.ChoiceField(
        choices=ARENA_STATES, help_text="`scheduled`, `running` or `finished`."
    )
    starts_at = serializers.DateTimeField(help_text="When it starts.")
    ends_at = serializers.DateTimeField(help_text="When it ends: no race forms after.")
    ended_at = serializers.DateTimeField(
        allow_null=True,
        help_text="When its last race ended and the standings were final, else null.",
    )
    created_by = serializers.CharField(
        allow_null=True, help_text="The player who created it; null for the server's own."
    )
    time_limit_ms = serializers.IntegerField(help_text="Each race's time limit.")
    seq = serializers.IntegerField(help_text="The number of its last event on `/ws/arenas/{id}`.")
    joined = serializers.IntegerField(help_text="How many players have joined.")
    min_players = serializers.IntegerField(
        help_text="Races form once this many wait (2: as soon as two do)."
    )
    me = ArenaMeOut(
        allow_null=True, help_text="The viewer's place in it; null for someone who has not joined."
    )


ArenaPageOut = page_of("ArenaPageOut", ArenaOut)


class StandingRowOut(BoardRowOut):
    score = serializers.IntegerField()
    races = serializers.IntegerField()
    wins = serializers.IntegerField()
    streak = serializers.IntegerField()
    fire = serializers.BooleanField()
    active = serializers.BooleanField()


StandingsPageOut = page_of("StandingsPageOut", StandingRowOut, me=True)
