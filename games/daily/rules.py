"""The daily challenge's pure rules: the day an instant belongs to, a day's bounds, the secret
draw of a day's board, and the share line. No Django, no database."""

from __future__ import annotations

import hashlib
import hmac
import random
from datetime import UTC, date, datetime, time

from games import clock

# The day boundary: 00:00 UTC, for every player wherever they are (docs/DAILY.md).
DAY_ZONE = UTC
# How many layouts the dealer tries for one daily before it gives up for this tick (each try
# is one no-guess search, games.play.noguess; a daily is always no-guess).
DEAL_TRIES = 20


def day_of(now: datetime) -> date:
    """The daily day that `now` (aware) falls in."""
    return now.astimezone(DAY_ZONE).date()


def day_start(day: date) -> datetime:
    return datetime.combine(day, time(0, 0), tzinfo=DAY_ZONE)


def day_end(day: date) -> datetime:
    """The instant the day ends (the next day's 00:00 UTC): API.md's `ends_at`."""
    return clock.daily_day_end(day)


def parse_day(raw: str) -> date | None:
    """`YYYY-MM-DD`, or None for anything else."""
    if len(raw) != 10:
        return None
    try:
        return date.fromisoformat(raw)
    except ValueError:
        return None


def draw(secret: str, day: date, level: str, attempt: int = 0) -> random.Random:
    """The generator of one daily's start cell and layout: an HMAC of the day and level under
    the server's secret, so that the same day gives the same board on every server and nobody
    without the secret can compute a future day's (the date alone is not enough)."""
    digest = hmac.new(
        secret.encode(), f"{day.isoformat()}:{level}:{attempt}".encode(), hashlib.sha256
    ).hexdigest()
    return random.Random(digest)


def share_line(
    *,
    day: date,
    level_name: str,
    won: bool,
    time_ms: int | None,
    opened: int,
    safe_cells: int,
    rank: int | None,
    players: int,
    bbbv_per_s: float | None,
) -> str:
    """The result line a player copies (the issue's example: "Démineur daily 2026-12-03
    Expert 41.2 s, #12 of 340, 3BV/s 2.9"): the player's own numbers, nothing of the board."""
    head = f"Démineur daily {day.isoformat()} {level_name}"
    if won and time_ms is not None:
        result = f"{time_ms / 1000:.1f} s"
    else:
        result = f"{opened}/{safe_cells} cells"
    parts = [f"{head} {result}"]
    if rank is not None and players:
        parts.append(f"#{rank} of {players}")
    if won and bbbv_per_s is not None:
        parts.append(f"3BV/s {bbbv_per_s:.1f}")
    return ", ".join(parts)
