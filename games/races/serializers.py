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
    player = serializers.CharField(help_text="The racer's username.")
    player_kind = serializers.ChoiceField(
        choices=["human", "bot", "guest"], help_text="The racer's account kind."
    )
    ready = serializers.BooleanField(
        help_text="Whether the racer said ready (an open race starts once every racer, two or more, is)."
    )
    game = serializers.UUIDField(
        allow_null=True,
        help_text="The racer's Game (played with the Games endpoints and `/ws/games/{id}`), from the start; null before.",
    )
    state = serializers.ChoiceField(
        choices=RACER_STATES,
        help_text="`waiting` before the start, `racing`, then `won`, `lost` or `left`.",
    )
    opened = serializers.IntegerField(help_text="Safe cells the racer has opened.")
    safe_cells = serializers.IntegerField(
        help_text="Safe cells on the board: `opened` reaching it wins."
    )
    flags = serializers.IntegerField(help_text="Flags the racer has placed.")
    elapsed_ms = serializers.IntegerField(help_text="The racer's game clock.")
    place = serializers.IntegerField(
        allow_null=True, help_text="The racer's place once the race ends, else null."
    )
    took_part = serializers.BooleanField(
        help_text="Whether the racer made a move of their own (a reveal or chord after the "
        "server's opening): only they count for ratings and arena points."
    )
    rating_before = serializers.IntegerField(
        allow_null=True, help_text="The racer's race rating before a rated race ends, else null."
    )
    rating_after = serializers.IntegerField(
        allow_null=True, help_text="The racer's race rating after a rated race ends, else null."
    )
    provisional = serializers.BooleanField(
        help_text="Whether `rating_after` was still provisional (docs/RACES.md, Provisional"
        " ratings); false while the race runs and for a racer it did not rate."
    )


class RaceOut(BoardOut):
    code = serializers.CharField(
        help_text="A short code to share the race by (`?code=` on the list)."
    )
    state = serializers.ChoiceField(
        choices=RACE_STATES, help_text="`open`, `countdown`, `running`, `finished` or `cancelled`."
    )
    host = serializers.CharField(
        allow_null=True, help_text="The racer who may start it; null once nobody is left."
    )
    max_players = serializers.IntegerField(help_text="2 to 8.")
    quick = serializers.BooleanField(help_text="Formed by the quick-match queue.")
    no_guess = serializers.BooleanField(help_text="Every racer plays the same no-guess layout.")
    arena = serializers.UUIDField(allow_null=True, help_text="The arena that formed it, else null.")
    rated = serializers.BooleanField(help_text="Whether the race moves its racers' race ratings.")
    time_limit_ms = serializers.IntegerField(
        help_text="How long the race may run; the racers still playing then lose."
    )
    seq = serializers.IntegerField(
        help_text="The number of the race's last event on `/ws/races/{id}`."
    )
    created_at = serializers.DateTimeField(help_text="When the race was created.")
    starts_at = serializers.DateTimeField(
        allow_null=True, help_text="The end of the countdown; null before it."
    )
    started_at = serializers.DateTimeField(allow_null=True, help_text="The start; null before it.")
    ended_at = serializers.DateTimeField(allow_null=True, help_text="The end; null before it.")
    start_cell = CellOut(
        allow_null=True,
        help_text="The cell every racer's game opens with, from the start; null before.",
    )
    racers = RacerOut(many=True, help_text="The racers, in the order they joined.")


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
    provisional = serializers.BooleanField()


class SeasonPodiumOut(serializers.Serializer[Any]):
    """A season that has ended where the player finished in the top three of a level's race
    board (docs/RACES.md, Seasons)."""

    season = serializers.CharField(help_text="The season, as `2026Q4`.")
    level = serializers.CharField()
    no_guess = serializers.BooleanField()
    rank = serializers.IntegerField(help_text="1, 2 or 3: the final rank on that season's board.")
    rating = serializers.IntegerField(help_text="The season's rating it ended with.")


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
    season_podiums = SeasonPodiumOut(
        many=True, help_text="The player's podiums of the seasons that have ended, newest first."
    )
    arenas = PlayerArenasOut()
