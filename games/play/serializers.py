"""The REST shapes of one game and of profiles: requests (validation only) and answers (for
the OpenAPI schema); the shapes every room shares are games/api/serializers.py's.

API.md: coordinates, width, height and mines must be JSON integers; strings, floats,
booleans and null are malformed (400)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from games.api.serializers import (
    BoardOut,
    CellOut,
    LevelNameField,
    StrictBooleanField,
    StrictCharField,
    StrictIntegerField,
    page_of,
)
from games.engine import CUSTOM_MAX_SIDE, CUSTOM_MIN_SIDE, custom_mines_max
from games.play.models import EndReason, GameState, UnrankedReason


class CoordinateField(StrictIntegerField):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(min_value=0, max_value=10_000, **kwargs)


# The schema states what the service accepts (a schema-valid request must not be refused):
# the level names (LevelNameField) and the custom bounds of RULES.md. The service still
# validates (games.play.services.resolve_board_spec), with its own error details.
@extend_schema_field({"type": "integer", "minimum": CUSTOM_MIN_SIDE, "maximum": CUSTOM_MAX_SIDE})
class CustomSideField(StrictIntegerField):
    pass


@extend_schema_field(
    {
        "type": "integer",
        "minimum": 1,
        "maximum": custom_mines_max(CUSTOM_MAX_SIDE, CUSTOM_MAX_SIDE),
        "description": "At most width * height - 9: the 3x3 of the first tap is never a mine.",
    }
)
class CustomMinesField(StrictIntegerField):
    pass


class GameCreateIn(serializers.Serializer[Any]):
    """`{level}` or `{width, height, mines}`, not both (the schema: GameCreateInRequest is
    made a oneOf by demineur_site.schema_views.document_errors)."""

    level = LevelNameField(required=False, max_length=32)
    width = CustomSideField(required=False, min_value=-(2**31), max_value=2**31)
    height = CustomSideField(required=False, min_value=-(2**31), max_value=2**31)
    mines = CustomMinesField(required=False, min_value=-(2**31), max_value=2**31)
    no_guess = StrictBooleanField(
        required=False,
        default=False,
        help_text="A no-guess board (RULES.md): cleared by deduction from the first tap's"
        " opening. Custom boards denser than the stated bound: 400 no_guess_unavailable.",
    )


class MoveIn(serializers.Serializer[Any]):
    x = StrictIntegerField(min_value=-(2**31), max_value=2**31)
    y = StrictIntegerField(min_value=-(2**31), max_value=2**31)
    client_move_id = StrictCharField(
        required=False, max_length=64, min_length=1, trim_whitespace=False
    )


class FlagIn(MoveIn):
    flagged = StrictBooleanField(required=False)


# What MoveIn and FlagIn accept for x and y (StrictIntegerField's bounds).
_COORDINATE_MIN, _COORDINATE_MAX = -(2**31), 2**31


def plain_move_body(data: Any, *, flag: bool) -> dict[str, Any] | None:
    """A well-formed move body read without building a serializer, or None.

    A move is the most frequent request and DRF builds a serializer's fields afresh for
    every instance (a deep copy of the declared fields: about a tenth of a millisecond a
    move, docs/PERFORMANCE.md). This accepts only bodies that MoveIn / FlagIn accept, and
    gives the same validated data for them (tests/api/test_move_body.py checks both over
    generated bodies); anything else, or anything it is unsure of (a tab in a
    client_move_id, a coordinate sent as "3"), is left to the serializer, which answers
    every refusal with its own message. The REST move doors (games.play.api) and the game
    socket (games.play.sockets) read their bodies with it."""
    if type(data) is not dict:
        return None
    x, y = data.get("x"), data.get("y")
    if type(x) is not int or type(y) is not int:
        return None
    if not (_COORDINATE_MIN <= x <= _COORDINATE_MAX and _COORDINATE_MIN <= y <= _COORDINATE_MAX):
        return None
    body: dict[str, Any] = {"x": x, "y": y}
    if "client_move_id" in data:
        move_id = data["client_move_id"]
        if type(move_id) is not str or not 1 <= len(move_id) <= 64 or not move_id.isprintable():
            return None
        body["client_move_id"] = move_id
    if flag and "flagged" in data:
        flagged = data["flagged"]
        if type(flagged) is not bool:
            return None
        body["flagged"] = flagged
    return body


# --- response shapes, for the schema ------------------------------------------------------

UNRANKED_REASONS = UnrankedReason.values
END_REASONS = EndReason.values


def _counter(help_text: str) -> serializers.IntegerField:
    return serializers.IntegerField(allow_null=True, help_text=help_text)


def _rate(help_text: str) -> serializers.FloatField:
    return serializers.FloatField(allow_null=True, help_text=help_text)


class ResultStatsOut(serializers.Serializer[Any]):
    """API.md's result stats, then the community's counters (docs/STATS.md, "The counters of
    a game"): null for a game that ended before they were counted."""

    bbbv = serializers.IntegerField()
    bbbv_solved = serializers.IntegerField()
    clicks = serializers.IntegerField()
    bbbv_per_s = serializers.FloatField(allow_null=True)
    efficiency = _rate("IOE under its first name: bbbv_solved / clicks.")
    reveal_clicks = _counter("Accepted reveal moves.")
    flag_clicks = _counter("Accepted flag moves (placing, removing, or a no-op).")
    chord_clicks = _counter("Accepted chord moves.")
    effective_clicks = _counter(
        "Clicks that changed the board: opened a safe cell, or placed or removed a flag."
    )
    wasted_clicks = _counter("clicks - effective_clicks.")
    flags_used = _counter("Flags placed (a flag taken off and placed again counts twice).")
    no_flags = serializers.BooleanField(
        allow_null=True, help_text="Won without a flag ever placed (NF)."
    )
    ioe = _rate("Index of efficiency: bbbv_solved / clicks.")
    correctness = _rate("effective_clicks / clicks.")
    throughput = _rate("bbbv_solved / effective_clicks.")
    rqp = _rate("Time in seconds / 3BV/s; won games with a 3BV/s only.")
    zini = _counter("The layout's greedy ZiNi (ms-toollib): fewest clicks with flags and chords.")
    zini_efficiency = _rate("ZiNi / clicks; won games only.")


class AnalysedMoveOut(serializers.Serializer[Any]):
    seq = serializers.IntegerField()
    # DRF pops declared fields off the class, so `label` (a Field attribute) may name one.
    label = serializers.ChoiceField(  # type: ignore[assignment]
        choices=["deduced", "forced_guess", "avoidable_guess"]
    )
    p_mine = serializers.FloatField(help_text="The chance the move opened a mine (a chord: any).")
    safest_p_mine = serializers.FloatField(help_text="The least likely closed cell's chance then.")
    safest = serializers.ListField(
        child=serializers.IntegerField(),
        allow_null=True,
        help_text="[x, y] of that safest cell (null: the move was it, or it opened nothing).",
    )


class GameLuckOut(serializers.Serializer[Any]):
    """Luck, measured (docs/STATS.md): the game's forced guesses as coin flips."""

    coin_flips_won = serializers.IntegerField(help_text="Forced guesses that opened no mine.")
    coin_flips_lost = serializers.IntegerField(help_text="Forced guesses that opened a mine.")
    survival_chance = serializers.FloatField(
        help_text="The chance of surviving every forced guess: the product of (1 - p), p each one's chance of a mine; 1 without any. Not rounded."
    )
    expected_survivals = serializers.FloatField(help_text="The sum of (1 - p).")
    luck = serializers.FloatField(help_text="coin_flips_won - expected_survivals.")


class AnalysisOut(serializers.Serializer[Any]):
    """API.md, No-guess games and analysis (docs/ANALYSIS.md)."""

    moves = AnalysedMoveOut(many=True)
    forced_guesses = serializers.IntegerField()
    avoidable_guesses = serializers.IntegerField()
    unlucky_loss = serializers.BooleanField()
    exact = serializers.BooleanField(help_text="False: a position was too big to enumerate.")
    luck = GameLuckOut(
        allow_null=True,
        help_text="The luck of the forced guesses (docs/STATS.md); null for an analysis stored before luck was kept.",
    )


class GameOut(BoardOut):
    player = serializers.CharField(help_text="The player's username.")
    no_guess = serializers.BooleanField(
        help_text="A no-guess board: solvable by deduction from the first tap's opening (RULES.md)."
    )
    state = serializers.ChoiceField(
        choices=GameState.values,
        help_text="`new` (no tap yet, no mines placed), `playing`, `paused`, then `won` or `lost`.",
    )
    mines_left = serializers.IntegerField(help_text="Mines minus flags placed.")
    elapsed_ms = serializers.IntegerField(
        help_text="The server's game clock: ms since the first tap, pauses excluded; 0 before it (RULES.md, Time). A client may tick it locally between answers but never sends it."
    )
    created_at = serializers.DateTimeField(help_text="When the game was created.")
    started_at = serializers.DateTimeField(
        allow_null=True, help_text="The first tap; null before it."
    )
    ended_at = serializers.DateTimeField(
        allow_null=True, help_text="The end; null while the game runs."
    )
    ranked = serializers.BooleanField(
        help_text="Whether the game can still enter a leaderboard (a bot's ranks on the bot boards)."
    )
    unranked_reason = serializers.ChoiceField(
        choices=UNRANKED_REASONS,
        allow_null=True,
        help_text="Null while the game can rank, else why it cannot (RULES.md, Fair play).",
    )
    race = serializers.UUIDField(
        allow_null=True, help_text="The race's id for a race game, else null."
    )
    daily = serializers.DateField(
        allow_null=True, help_text="The day of a daily game (practice included), else null."
    )
    end_reason = serializers.ChoiceField(
        choices=END_REASONS,
        allow_null=True,
        help_text="Null while the game runs, then `cleared` (won), or `mine`, `resigned`, `abandoned` (lost).",
    )
    result_stats = ResultStatsOut(
        allow_null=True,
        help_text="After the end only, else null (a race game's once its race ends, a daily game's once its day ends): 3BV, clicks, 3BV/s, efficiency.",
    )
    seq = serializers.IntegerField(
        help_text="The number of the game's last move or event: a watcher who sees a gap re-reads the game."
    )
    board = serializers.ListField(
        child=serializers.CharField(),
        allow_null=True,
        help_text="The board, one string per row (y from 0), one character per cell (x from 0): `#` closed, `F` flag, `0`-`8` opened (its neighbouring mines). After the end only: `*` an unflagged mine, `X` a mine that was opened, `!` a flag on a cell without a mine (a flag on a mine stays `F`; closed safe cells stay `#`). Null while paused, and to anyone but its player while its race or its day runs; to its own player an ended race or daily game shows only the cells they opened and flagged until the race or the day ends.",
    )
    analysis = AnalysisOut(
        allow_null=True,
        help_text="Null until the game has ended and been analysed (a race game: its race).",
    )


class ChangeOut(CellOut):
    v = serializers.CharField(help_text="The cell's new character, as in the Game's `board`.")


class MoveResultOut(serializers.Serializer[Any]):
    game = GameOut(help_text="The game as it is now (after a replayed `client_move_id` too).")
    changes = ChangeOut(
        many=True,
        help_text="Every cell this move opened, flagged or unflagged, in the order the server did it (the layout revealed by the end is in `game.board`).",
    )
    seq = serializers.IntegerField(help_text="The move's number in the game (1-based).")


class MoveOut(serializers.Serializer[Any]):
    seq = serializers.IntegerField(help_text="The move's number in the game (1-based).")
    action = serializers.CharField(
        help_text="`reveal`, `flag`, `chord`, `pause`, `resume`, `resign`, or the server's `abandon` (or its opening of a race's or a daily's start cell, a `reveal`)."
    )
    x = serializers.IntegerField(
        allow_null=True, help_text="The column, from 0; null for pause, resume, resign and abandon."
    )
    y = serializers.IntegerField(
        allow_null=True, help_text="The row, from 0; null for pause, resume, resign and abandon."
    )
    at_ms = serializers.IntegerField(
        help_text="The game clock at that move: elapsed ms, pauses excluded."
    )
    flagged = serializers.BooleanField(
        allow_null=True, help_text="For a flag move, whether the cell ended flagged; else null."
    )


GamePageOut = page_of("GamePageOut", GameOut)
MovePageOut = page_of("MovePageOut", MoveOut)


class BestTimeOut(serializers.Serializer[Any]):
    time_ms = serializers.IntegerField()
    game_id = serializers.UUIDField()
    achieved_at = serializers.DateTimeField()


class LuckTotalsOut(serializers.Serializer[Any]):
    """Luck against expectation (docs/STATS.md, Luck, measured): the coin flips together."""

    coin_flips_won = serializers.IntegerField(help_text="Forced guesses that opened no mine.")
    coin_flips_lost = serializers.IntegerField(help_text="Forced guesses that opened a mine.")
    expected_survivals = serializers.FloatField(
        help_text="The sum of (1 - p) over the forced guesses, p each one's chance of a mine."
    )
    luck = serializers.FloatField(
        help_text="Luck against expectation: coin_flips_won - expected_survivals."
    )


class LevelStatsOut(LuckTotalsOut):
    played = serializers.IntegerField()
    won = serializers.IntegerField()
    win_rate = serializers.FloatField(help_text="A fraction from 0 to 1; 0 at 0 games.")
    current_streak = serializers.IntegerField()
    best_streak = serializers.IntegerField()
    skill_streak = serializers.IntegerField(
        help_text="The run of wins that a loss on a forced guess neither counts nor breaks."
    )
    best_skill_streak = serializers.IntegerField()
    unlucky_losses = serializers.IntegerField(help_text="Losses on a forced guess.")
    guesses_survived = serializers.IntegerField(help_text="Forced guesses that opened no mine.")
    adjusted_streak = serializers.IntegerField(
        help_text="The luck-adjusted streak: wins in a row, a loss on a forced guess counting as a win."
    )
    best_adjusted_streak = serializers.IntegerField(help_text="The longest luck-adjusted streak.")
    best_time_ms = serializers.IntegerField(allow_null=True)
    best_time_game_id = serializers.UUIDField(allow_null=True)
    best_bbbv_per_s = serializers.FloatField(allow_null=True)
    best_bbbv_per_s_game_id = serializers.UUIDField(allow_null=True)
    average_win_ms = serializers.IntegerField(allow_null=True)
    best_times = BestTimeOut(many=True)
    # No-flag records (docs/STATS.md): the same bests among the wins without a flag.
    nf_best_time_ms = serializers.IntegerField(
        allow_null=True, help_text="The best time of a win without a flag ever placed (NF)."
    )
    nf_best_time_game_id = serializers.UUIDField(allow_null=True)
    nf_best_bbbv_per_s = serializers.FloatField(
        allow_null=True, help_text="The best 3BV/s of an NF win."
    )
    nf_best_bbbv_per_s_game_id = serializers.UUIDField(allow_null=True)


class ProfileStatsOut(serializers.Serializer[Any]):
    beginner = LevelStatsOut()
    intermediate = LevelStatsOut()
    hard = LevelStatsOut()
    expert = LevelStatsOut()
    extreme = LevelStatsOut()
    marathon = LevelStatsOut()
    custom = LevelStatsOut()


class RecentGameOut(serializers.Serializer[Any]):
    id = serializers.UUIDField()
    level = serializers.CharField()
    no_guess = serializers.BooleanField()
    state = serializers.ChoiceField(choices=["won", "lost"])
    end_reason = serializers.ChoiceField(choices=END_REASONS)
    elapsed_ms = serializers.IntegerField()
    result_stats = ResultStatsOut()
    ended_at = serializers.DateTimeField()


class DailyStatsOut(serializers.Serializer[Any]):
    current_streak = serializers.IntegerField(help_text="Days in a row with a daily won.")
    best_streak = serializers.IntegerField()
    played = serializers.IntegerField()
    won = serializers.IntegerField()
    best_rank = serializers.IntegerField(allow_null=True)


class ProfileDailyOut(DailyStatsOut):
    """API.md's profile `daily`, across the six levels, with the same per level played."""

    levels = serializers.DictField(child=DailyStatsOut())


class ProfileOut(serializers.Serializer[Any]):
    username = serializers.CharField()
    kind = serializers.ChoiceField(choices=["human", "bot", "guest"])
    date_joined = serializers.DateTimeField()
    stats = ProfileStatsOut()
    stats_no_guess = ProfileStatsOut()  # the same seven buckets, for no-guess games
    recent_games = RecentGameOut(many=True, help_text="The 20 newest ended solo games.")
    daily = ProfileDailyOut()


class LuckMonthOut(LuckTotalsOut):
    month = serializers.CharField(help_text="YYYY-MM, the month of the games' ends (UTC).")
    cumulative_luck = serializers.FloatField(
        help_text="The luck of every month up to this one, those not listed included."
    )


class LevelLuckOut(LuckTotalsOut):
    months = LuckMonthOut(
        many=True,
        help_text="Oldest first: the newest 24 months that had a forced guess.",
    )


class PlayerLuckOut(serializers.Serializer[Any]):
    """GET /api/users/{name}/luck (docs/STATS.md, Luck, measured)."""

    username = serializers.CharField()
    mode = serializers.ChoiceField(choices=["classic", "no_guess"])
    levels = serializers.DictField(
        child=LevelLuckOut(), help_text="The six levels and `custom`, each with its months."
    )


class InsightFiguresOut(serializers.Serializer[Any]):
    """What a bucket's analysed games add up to, in all or in one month (docs/STATS.md,
    Insights). A mean is null where nothing was there to average."""

    games = serializers.IntegerField(help_text="Analysed solo games.")
    wins = serializers.IntegerField()
    deduced_moves = serializers.IntegerField(
        help_text="Deduced reveals and chords, the first tap left out."
    )
    forced_guesses = serializers.IntegerField()
    avoidable_guesses = serializers.IntegerField()
    avoidable_per_game = serializers.FloatField(
        allow_null=True, help_text="Avoidable guesses / games."
    )
    avoidable_share = serializers.FloatField(
        allow_null=True, help_text="Avoidable guesses / all guesses (forced and avoidable)."
    )
    think_deduced_ms = serializers.FloatField(
        allow_null=True,
        help_text="The mean think time of a deduced move: the game clock since the move before "
        "it, a wait over 60 s counted as 60 s.",
    )
    think_guess_ms = serializers.FloatField(allow_null=True, help_text="The same, of a guess.")
    bbbv_per_s = serializers.FloatField(allow_null=True, help_text="The mean 3BV/s of the wins.")
    ioe = serializers.FloatField(allow_null=True, help_text="The mean IOE of the wins.")
    coin_flips_won = serializers.IntegerField(help_text="Forced guesses that opened no mine.")
    expected_survivals = serializers.FloatField(help_text="The sum of (1 - p) over them.")
    luck = serializers.FloatField(help_text="coin_flips_won - expected_survivals.")


class InsightMonthOut(InsightFiguresOut):
    month = serializers.CharField(help_text="YYYY-MM, the month of the games' ends (UTC).")
    cumulative_luck = serializers.FloatField(
        help_text="The luck of every month up to this one, those not listed included."
    )


class InsightHeatOut(serializers.Serializer[Any]):
    width = serializers.IntegerField(help_text="The level's board, or 10 for custom boards.")
    height = serializers.IntegerField()
    guesses = serializers.IntegerField(help_text="The guesses counted in the cells.")
    cells = serializers.ListField(
        child=serializers.ListField(child=serializers.IntegerField()),
        help_text="Guesses per cell, `height` rows of `width`; a custom board's cells are "
        "counted where they lie across and down the board, in tenths.",
    )


class LevelInsightsOut(InsightFiguresOut):
    coin_flips_lost = serializers.IntegerField(help_text="Forced guesses that opened a mine.")
    months = InsightMonthOut(
        many=True, help_text="Oldest first: the newest 24 months that had an analysed game."
    )
    heat = InsightHeatOut(help_text="Where the guesses were.")


class PlayerInsightsOut(serializers.Serializer[Any]):
    """GET /api/users/{name}/insights (docs/STATS.md, Insights)."""

    username = serializers.CharField()
    mode = serializers.ChoiceField(choices=["classic", "no_guess"])
    levels = serializers.DictField(
        child=LevelInsightsOut(), help_text="The six levels and `custom`, each with its months."
    )


class AccountPatchIn(serializers.Serializer[Any]):
    """PATCH /api/me: only `kind`, `human` or `bot` (a guest becomes a player by signing up)."""

    kind = serializers.ChoiceField(choices=["human", "bot"], required=False)


class OwnProfileSerializer(ProfileOut):
    """GET /api/me: the public profile, and what only its owner sees."""

    email = serializers.CharField(help_text="The account's address ('' for none); owner only.")
    email_verified = serializers.BooleanField()
    two_factor = serializers.BooleanField(help_text="Two-factor sign-in is on.")
    closed = serializers.BooleanField(help_text="The account is closed (reopened by signing in).")
