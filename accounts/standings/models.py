"""The standings room's tables: what players achieved (statistics, records, race ratings, the
daily's entries and statistics). Their app label stays `accounts`: no table was renamed."""

from __future__ import annotations

from datetime import UTC, datetime

from django.conf import settings
from django.db import models
from django.utils import timezone

from accounts.models import BoardPool, User

# The `prev_at` of the first record of a chain: "no earlier record" (see PersonalRecord).
CHAIN_START = datetime(1970, 1, 1, tzinfo=UTC)


class PlayerStats(models.Model):
    """One player's statistics at one level (or the `custom` bucket), kept up to date by
    accounts.standings.stats.record_game_end in the transaction that ends each game, and never
    recomputed from the games on read. Also the source of the streak leaderboards."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="stats"
    )
    level = models.CharField(max_length=16)
    # The streak boards this row ranks on (BoardPool): the owner's pool at their last game end,
    # `none` once the account is flagged.
    pool = models.CharField(max_length=5, choices=BoardPool.choices, default=BoardPool.HUMAN)
    played = models.PositiveIntegerField(default=0)
    won = models.PositiveIntegerField(default=0)
    total_win_ms = models.BigIntegerField(default=0)  # for the average time of wins
    # The running streak: the games where it began and (so far) ended, and when it reached
    # its length (the tie-break of the current-streak board: who got there first).
    current_streak = models.PositiveIntegerField(default=0)
    current_streak_first_game = models.UUIDField(null=True, blank=True)
    current_streak_last_game = models.UUIDField(null=True, blank=True)
    current_streak_at = models.DateTimeField(null=True, blank=True)
    best_streak = models.PositiveIntegerField(default=0)
    best_streak_first_game = models.UUIDField(null=True, blank=True)
    best_streak_last_game = models.UUIDField(null=True, blank=True)
    best_streak_at = models.DateTimeField(null=True, blank=True)
    best_time_ms = models.BigIntegerField(null=True, blank=True)
    best_time_game = models.UUIDField(null=True, blank=True)
    best_time_at = models.DateTimeField(null=True, blank=True)
    best_bbbv_per_s = models.FloatField(null=True, blank=True)
    best_bbbv_per_s_game = models.UUIDField(null=True, blank=True)
    best_bbbv_per_s_at = models.DateTimeField(null=True, blank=True)
    # The five best winning times, fastest first: [{time_ms, game_id, achieved_at}, ...].
    # Kept here so a profile is one indexed read.
    best_times = models.JSONField(default=list, blank=True)
    # The same two bests among the wins without a flag ever placed (NF, docs/STATS.md).
    nf_best_time_ms = models.BigIntegerField(null=True, blank=True)
    nf_best_time_game = models.UUIDField(null=True, blank=True)
    nf_best_time_at = models.DateTimeField(null=True, blank=True)
    nf_best_bbbv_per_s = models.FloatField(null=True, blank=True)
    nf_best_bbbv_per_s_game = models.UUIDField(null=True, blank=True)
    nf_best_bbbv_per_s_at = models.DateTimeField(null=True, blank=True)
    # Luck (RULES.md, No-guess boards, Analysis): losses on a forced guess, forced guesses
    # survived, and the skill streak (a run of wins that an unlucky loss neither counts nor breaks).
    unlucky_losses = models.PositiveIntegerField(default=0, db_default=0)
    guesses_survived = models.PositiveIntegerField(default=0, db_default=0)
    skill_streak = models.PositiveIntegerField(default=0, db_default=0)
    best_skill_streak = models.PositiveIntegerField(default=0, db_default=0)
    best_skill_streak_at = models.DateTimeField(null=True, blank=True)  # when it was reached
    # Luck, measured (docs/STATS.md): the luck-adjusted streak (an unlucky loss counts as the
    # win it would have been), and the coin flips per month of the games' ends (UTC),
    # {"2026-11": [won, lost, expected survivals]}: a profile reads luck from this row alone.
    adjusted_streak = models.PositiveIntegerField(default=0, db_default=0)
    best_adjusted_streak = models.PositiveIntegerField(default=0, db_default=0)
    luck_months = models.JSONField(default=dict, blank=True)
    updated_at = models.DateTimeField(null=True, blank=True)
    # Sort keys of the streak boards (see Meta.indexes), kept by PostgreSQL itself.
    best_streak_key = models.GeneratedField(
        expression=models.ExpressionWrapper(
            models.Value(0) - models.F("best_streak"), output_field=models.IntegerField()
        ),
        output_field=models.IntegerField(),
        db_persist=True,
    )
    current_streak_key = models.GeneratedField(
        expression=models.ExpressionWrapper(
            models.Value(0) - models.F("current_streak"), output_field=models.IntegerField()
        ),
        output_field=models.IntegerField(),
        db_persist=True,
    )
    best_skill_streak_key = models.GeneratedField(  # the `sort=skill` streak board's
        expression=models.ExpressionWrapper(
            models.Value(0) - models.F("best_skill_streak"), output_field=models.IntegerField()
        ),
        output_field=models.IntegerField(),
        db_persist=True,
    )

    class Meta:
        db_table = "accounts_player_stats"
        constraints = [
            models.UniqueConstraint(fields=["user", "level"], name="player_stats_user_level"),
        ]
        indexes = [
            # Streak boards: longest first, then who got there first. The negated length is
            # a stored column so one ascending row comparison orders a page and counts the
            # rows ahead of a player, all from the index (an expression index could not
            # serve index-only scans).
            models.Index(
                fields=["level", "pool", "best_streak_key", "best_streak_at", "user"],
                include=["id"],
                name="stats_best_streak_board",
                condition=models.Q(best_streak__gt=0),
            ),
            models.Index(
                fields=["level", "pool", "current_streak_key", "current_streak_at", "user"],
                include=["id"],
                name="stats_current_streak_board",
                condition=models.Q(current_streak__gt=0),
            ),
            models.Index(
                fields=["level", "pool", "best_skill_streak_key", "best_skill_streak_at", "user"],
                include=["id"],
                name="stats_skill_streak_board",
                condition=models.Q(best_skill_streak__gt=0),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} {self.level}: {self.won}/{self.played}"


class PlayerInsight(models.Model):
    """What one player's analysed solo games of one statistics bucket add up to (docs/STATS.md,
    Insights), added to by accounts.standings.insights.record_game in the transaction that
    stores each game's analysis, so the insights page reads sums and never the games."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="insights"
    )
    level = models.CharField(max_length=16)  # the bucket, as PlayerStats.level
    # {"2026-11": [3, 1, ...], "earlier": [...]}: the sums of each of the newest 24 months of
    # the games' ends (UTC) and of every month before them together, in the order of
    # insights.MONTH_KEYS.
    months = models.JSONField(default=dict, blank=True)
    # Where the guesses were: {"width", "height", "cells": [count, ...] row by row}, on the
    # level's board, or on a 10 x 10 grid of positions for custom boards.
    heat = models.JSONField(default=dict, blank=True)

    class Meta:
        db_table = "accounts_player_insight"
        constraints = [
            models.UniqueConstraint(fields=["user", "level"], name="player_insight_user_level"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} {self.level}: insights"


class RecordKind(models.TextChoices):
    TIME = "time"
    SPEED = "speed"
    # The no-flag boards' chains (`?style=nf`): the wins without a flag ever placed.
    NF_TIME = "nf_time"
    NF_SPEED = "nf_speed"


class PersonalRecord(models.Model):
    """One link of a player's record chain at a ranked level, for one board (time or speed).

    A won game stays in the chain while no LATER game of the same player and level is
    strictly better; `score` is "lower is better" (time_ms, or -3BV/s). Along a chain,
    scores never decrease with time, so for a rolling period starting at `c` the player's
    best game in the period is the first link with achieved_at >= c: exactly the link whose
    predecessor is older than c. Storing the predecessor's time (`prev_at`) makes a period's
    board a plain filter -- achieved_at >= c AND prev_at < c gives one row per player with no
    grouping -- and the all-time board is the chain heads (prev_at = CHAIN_START).
    """

    # db_index=False: the record_chain index starts with the user.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False
    )
    level = models.CharField(max_length=16)
    pool = models.CharField(max_length=5, choices=BoardPool.choices, default=BoardPool.HUMAN)
    kind = models.CharField(max_length=8, choices=RecordKind.choices)
    score = models.FloatField()
    time_ms = models.BigIntegerField()
    bbbv_per_s = models.FloatField(null=True, blank=True)
    game_id = models.UUIDField()
    achieved_at = models.DateTimeField()
    prev_at = models.DateTimeField()

    class Meta:
        db_table = "accounts_personal_record"
        indexes = [
            # The player's own chain, in time order (writes and the `me` row).
            models.Index(fields=["user", "level", "kind", "achieved_at"], name="record_chain"),
            # The board indexes cover every column a count, a rank or an OFFSET walk reads
            # (the id included), so those run as index-only scans; only the 50 rows of a
            # page are read from the table.
            # All time: chain heads in rank order.
            models.Index(
                fields=["level", "pool", "kind", "score", "achieved_at", "user"],
                name="record_all_time",
                include=["id"],
                condition=models.Q(prev_at=CHAIN_START),
            ),
            # Long periods: walk in rank order, filtering on the period.
            models.Index(
                fields=["level", "pool", "kind", "score", "achieved_at", "user"],
                name="record_rank",
                include=["prev_at", "id"],
            ),
            # Counting a long period: (links with prev_at < start) - (links with achieved_at <
            # start). No INCLUDE, so btree deduplication packs the many equal prev_at of the
            # chain heads: the cheapest index to walk.
            models.Index(fields=["level", "pool", "kind", "prev_at"], name="record_prev"),
            # Short periods: the few links newer than the start, sorted afterwards.
            models.Index(
                fields=["level", "pool", "kind", "achieved_at"],
                name="record_recent",
                include=["prev_at", "score", "user", "id"],
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} {self.level} {self.kind} {self.score} @ {self.achieved_at}"


class RaceRating(models.Model):
    """A player's race rating for one level (accounts.standings.ratings: openskill's Plackett-Luce), with
    their race statistics. `pool` is the board pool (human, bot; none once flagged)."""

    player = models.ForeignKey(User, on_delete=models.CASCADE, related_name="race_ratings")
    level = models.CharField(max_length=16)
    pool = models.CharField(max_length=5)
    mu = models.FloatField()
    sigma = models.FloatField()
    rating = models.IntegerField()  # round(mu): what is shown and ranked
    races = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    podiums = models.PositiveIntegerField(default=0)
    rated_races = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        db_table = "games_racerating"  # moved from the games app without touching its table
        constraints = [
            models.UniqueConstraint(fields=["player", "level"], name="race_rating_once"),
        ]
        indexes = [
            models.Index(
                fields=["level", "pool", "-rating", "updated_at", "player"], name="race_board"
            )
        ]

    def __str__(self) -> str:
        return f"{self.player_id} {self.level} {self.rating}"


class SeasonRating(models.Model):
    """A player's race rating of one season (accounts.standings.seasons: a calendar quarter,
    UTC) for one level or its no-guess bucket: started fresh each season, moved by the same
    rated races as the lasting RaceRating, with the season's race statistics. Quick match reads
    only the lasting rating (docs/RACES.md, Seasons)."""

    player = models.ForeignKey(User, on_delete=models.CASCADE, related_name="season_ratings")
    season = models.CharField(max_length=6)  # "2026Q4"
    level = models.CharField(max_length=16)  # as RaceRating.level: "expert" or "expert:ng"
    pool = models.CharField(max_length=5)
    mu = models.FloatField()
    sigma = models.FloatField()
    rating = models.IntegerField()  # round(mu)
    races = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    podiums = models.PositiveIntegerField(default=0)
    rated_races = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        # Under the games app's label, as the lasting ratings' table is named from it: its
        # migration sits with the Racer's column it came with (games 0005).
        app_label = "games"
        db_table = "games_seasonrating"
        constraints = [
            models.UniqueConstraint(
                fields=["player", "season", "level"], name="season_rating_once"
            ),
        ]
        indexes = [
            models.Index(
                fields=["season", "level", "pool", "-rating", "updated_at", "player"],
                name="season_board",
            )
        ]

    def __str__(self) -> str:
        return f"{self.player_id} {self.season} {self.level} {self.rating}"


# --- The daily challenge (RULES.md; docs/DAILY.md) -------------------------------------------


class DailyEntry(models.Model):
    """One player's daily game of one day and level (RULES.md, The daily challenge): a row of
    that day's board and of the player's calendar. Written by accounts.standings.daily only.

    `score` is "lower is better" and, with `achieved_at` and the user id, orders the board:
    the winners by time, then the games that ended without a win by safe cells opened (more
    first), then the games still running. `pool` is the board the row ranks on: the player's
    board pool while the game is ranked, else `none` (a guest's, a paused or held game's, a
    flagged or closed account's)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False
    )
    day = models.DateField()
    level = models.CharField(max_length=16)
    game_id = models.UUIDField(unique=True)
    pool = models.CharField(max_length=5, choices=BoardPool.choices)
    ranked = models.BooleanField()  # the game's `ranked` (a pause or a hold unranks it)
    state = models.CharField(max_length=8)  # the game's: playing, paused, won, lost
    time_ms = models.BigIntegerField(null=True, blank=True)
    opened = models.PositiveIntegerField(default=0)
    bbbv_per_s = models.FloatField(null=True, blank=True)
    score = models.BigIntegerField()
    achieved_at = models.DateTimeField()
    place = models.PositiveIntegerField(null=True, blank=True)  # fixed at the day's end

    class Meta:
        db_table = "accounts_daily_entry"
        constraints = [
            # One attempt per player, level and day, whatever two requests at once try.
            models.UniqueConstraint(fields=["user", "day", "level"], name="daily_entry_once"),
        ]
        indexes = [
            models.Index(
                fields=["day", "level", "pool", "score", "achieved_at", "user"],
                name="daily_board",
            ),
            models.Index(fields=["user", "day"], name="daily_calendar"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} daily {self.day} {self.level} {self.state}"


class DailyStats(models.Model):
    """A player's daily statistics for one level, or `all` across the six (the profile's
    `daily`): played, won, the daily streak (days in a row with a daily won: `current_streak`
    is the run that ended on `last_won_day`, shown as 0 once a day has passed without a win)
    and the best final place. Written by accounts.standings.daily only."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    level = models.CharField(max_length=16)  # a level, or "all"
    played = models.PositiveIntegerField(default=0)
    won = models.PositiveIntegerField(default=0)
    current_streak = models.PositiveIntegerField(default=0)
    best_streak = models.PositiveIntegerField(default=0)
    last_won_day = models.DateField(null=True, blank=True)
    best_rank = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        db_table = "accounts_daily_stats"
        constraints = [
            models.UniqueConstraint(fields=["user", "level"], name="daily_stats_once"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} daily {self.level}"


# --- The account's lifecycle (docs/ACCOUNTS.md) ----------------------------------------------
