"""The insights' table (docs/STATS.md, Insights), beside the standings' other tables
(accounts.standings.models) and under the same app label; accounts.apps imports it with them."""

from __future__ import annotations

from django.conf import settings
from django.db import models


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
