"""The profile of API.md: username, date joined, stats per level, the 20 newest ended games."""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from accounts.models import User
from accounts.standings import daily as daily_standings
from accounts.standings.selectors import stats_by_mode
from demineur_site.formats import iso
from games.play import selectors
from games.play.presenters import result_stats


def profile_dict(user: User) -> dict[str, Any]:
    """The same for everyone, the player included (/api/me): a flagged account is not named
    anywhere; its games say `unranked_reason: "flagged"` (docs/FAIRPLAY.md)."""
    stats = stats_by_mode(user_id=user.pk)
    return {
        "username": user.username,
        "kind": user.kind,
        "date_joined": iso(user.date_joined),
        "stats": stats[False],
        "stats_no_guess": stats[True],
        # API.md, Daily challenge: the daily streak and results (accounts.standings.daily).
        "daily": daily_standings.profile_daily(user_id=user.pk, today=timezone.now().date()),
        "recent_games": [
            {
                "id": str(g.id),
                "level": g.level,
                "no_guess": g.no_guess,
                "state": g.state,
                "end_reason": g.end_reason,
                "elapsed_ms": g.elapsed_ms,
                "result_stats": result_stats(g),
                "ended_at": iso(g.ended_at),
            }
            for g in selectors.recent_games(user=user)
        ],
    }
