"""What a profile shows of a player's statistics at one level (API.md, Stats per level)."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from accounts.standings.models import PlayerStats
from accounts.standings.records import luck_totals
from demineur_site.formats import iso


def empty_stats() -> dict[str, Any]:
    return stats_dict(None)


def _str(value: UUID | None) -> str | None:
    return str(value) if value is not None else None


def _speed(value: float | None) -> float | None:
    return round(value, 3) if value is not None else None


def stats_dict(row: PlayerStats | None) -> dict[str, Any]:
    """API.md "Stats per level", plus the games where each streak began and ended and when
    each best was achieved."""
    if row is None:
        row = PlayerStats()
    return {
        "played": row.played,
        "won": row.won,
        "win_rate": round(row.won / row.played, 4) if row.played else 0.0,
        "current_streak": row.current_streak,
        "best_streak": row.best_streak,
        # Luck (API.md, No-guess games and analysis; docs/ANALYSIS.md)
        "skill_streak": row.skill_streak,
        "best_skill_streak": row.best_skill_streak,
        "unlucky_losses": row.unlucky_losses,
        "guesses_survived": row.guesses_survived,
        # Luck, measured (docs/STATS.md): the coin flips of every month, and the streaks had
        # every forced guess gone the player's way.
        **luck_totals(row.luck_months or {}),
        "adjusted_streak": row.adjusted_streak,
        "best_adjusted_streak": row.best_adjusted_streak,
        "best_time_ms": row.best_time_ms,
        "best_time_game_id": _str(row.best_time_game),
        "best_bbbv_per_s": _speed(row.best_bbbv_per_s),
        "best_bbbv_per_s_game_id": _str(row.best_bbbv_per_s_game),
        "average_win_ms": round(row.total_win_ms / row.won) if row.won else None,
        "best_times": list(row.best_times or []),
        "current_streak_first_game_id": _str(row.current_streak_first_game),
        "current_streak_last_game_id": _str(row.current_streak_last_game),
        "best_streak_first_game_id": _str(row.best_streak_first_game),
        "best_streak_last_game_id": _str(row.best_streak_last_game),
        "best_time_achieved_at": iso(row.best_time_at),
        "best_bbbv_per_s_achieved_at": iso(row.best_bbbv_per_s_at),
        # No-flag records (docs/STATS.md): the same bests among the wins without a flag.
        "nf_best_time_ms": row.nf_best_time_ms,
        "nf_best_time_game_id": _str(row.nf_best_time_game),
        "nf_best_bbbv_per_s": _speed(row.nf_best_bbbv_per_s),
        "nf_best_bbbv_per_s_game_id": _str(row.nf_best_bbbv_per_s_game),
    }
