"""Per-player statistics per level. Filled in by the statistics work (issue 3)."""

from __future__ import annotations

from datetime import datetime
from typing import Any


def record_game_end(
    *,
    user_id: int,
    level: str,
    won: bool,
    game_id: Any,
    elapsed_ms: int,
    bbbv_per_s: float | None,
    ended_at: datetime,
) -> None:
    """Called by the games service inside the transaction that ends a game."""
    return None


BUCKETS = ("beginner", "intermediate", "hard", "expert", "extreme", "marathon", "custom")


def empty_stats() -> dict[str, Any]:
    return {
        "played": 0,
        "won": 0,
        "win_rate": 0.0,
        "current_streak": 0,
        "best_streak": 0,
        "best_time_ms": None,
        "best_time_game_id": None,
        "best_bbbv_per_s": None,
        "best_bbbv_per_s_game_id": None,
        "average_win_ms": None,
        "best_times": [],
    }


def stats_for_user(*, user_id: int) -> dict[str, dict[str, Any]]:
    """All seven buckets, zeros and nulls where nothing was played (API.md, Fine points)."""
    return {bucket: empty_stats() for bucket in BUCKETS}
