"""The daily room's table: one of a UTC day's six dailies."""

from __future__ import annotations

from django.db import models
from django.utils import timezone

from games.play.models import BoardSize


class DailyChallenge(BoardSize):
    """One of a UTC day's six dailies (RULES.md, The daily challenge; docs/DAILY.md): a no-guess
    layout with its start cell already opened, which every daily game of that day and level
    starts as a copy of. Dealt by games.daily.services only; never leaves the server before the
    day has ended (`closed_at`: the day's end was handled)."""

    day = models.DateField()
    level = models.CharField(max_length=16)
    # The engine's codec of the board with the start cell opened (mines included).
    board = models.BinaryField()
    start_x = models.PositiveSmallIntegerField()
    start_y = models.PositiveSmallIntegerField()
    bbbv = models.PositiveIntegerField()
    opened = models.PositiveIntegerField()  # safe cells the opening opened
    created_at = models.DateTimeField(default=timezone.now)
    closed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["day", "level"], name="daily_day_level_unique"),
        ]

    def __str__(self) -> str:
        return f"daily {self.day} {self.level}"
