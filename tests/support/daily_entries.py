"""Rows of a day's board made directly, to seed a whole board in one bulk_create (the histogram
test, tests/standings/test_daily_board_histogram.py, and the daily bench, bench/daily/run.py):
a ranked daily game's row as accounts.standings.daily leaves it, unsaved."""

from __future__ import annotations

from dataclasses import asdict
from datetime import datetime
from typing import Any

from accounts.models import User
from accounts.standings import daily
from accounts.standings.models import DailyEntry


def ranked_entry(
    user: User,
    board: daily.DailyBoard,
    *,
    game_id: Any,
    state: str,
    time_ms: int | None,
    opened: int,
    at: datetime,
) -> DailyEntry:
    """`user`'s row on `board` (its day, level and pool) for a ranked daily game in `state`
    (playing, won or lost) as of `at`, scored as accounts.standings.daily scores it."""
    return DailyEntry(
        user=user,
        game_id=game_id,
        **asdict(board),  # the board's day, level and pool: the row is one of its rows
        ranked=True,
        state=state,
        time_ms=time_ms,
        opened=opened,
        score=daily.score(state, time_ms=time_ms, opened=opened),
        achieved_at=at,
    )
