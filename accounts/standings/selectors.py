"""Reads of the accounts tables (the boards have their own module: accounts.standings.leaderboards)."""

from __future__ import annotations

from typing import Any

from accounts.models import STATS_BUCKETS
from accounts.standings.models import PlayerStats
from accounts.standings.presenters import stats_dict
from accounts.standings.records import bucket_for, luck_series, luck_totals
from demineur_site.db_router import lagging_reads


def stats_for_user(*, user_id: int, no_guess: bool = False) -> dict[str, dict[str, Any]]:
    """All seven buckets of one mode, zeros and nulls where nothing was played (API.md, Fine
    points)."""
    return stats_by_mode(user_id=user_id)[no_guess]


def stats_by_mode(*, user_id: int) -> dict[bool, dict[str, dict[str, Any]]]:
    """The seven buckets of classic games (False) and of no-guess games (True: a profile's
    `stats_no_guess`, API.md No-guess games), from one read."""
    with lagging_reads() as alias:  # a profile may lag (demineur_site.db_router)
        rows = {row.level: row for row in PlayerStats.objects.using(alias).filter(user_id=user_id)}
    return {
        mode: {bucket: stats_dict(rows.get(bucket_for(bucket, mode))) for bucket in STATS_BUCKETS}
        for mode in (False, True)
    }


# The months of coin flips a luck answer lists per level, newest kept (docs/STATS.md).
LUCK_MONTHS_SHOWN = 24


def luck_by_level(*, user_id: int, no_guess: bool = False) -> dict[str, dict[str, Any]]:
    """`GET /api/users/{name}/luck` (docs/STATS.md, Luck, measured): per bucket of one mode,
    the coin flips in all and per month (the newest LUCK_MONTHS_SHOWN months that had any),
    from the same rows as the profile's statistics: one read of at most seven rows."""
    buckets = {bucket_for(bucket, no_guess): bucket for bucket in STATS_BUCKETS}
    with lagging_reads() as alias:
        months = dict(
            PlayerStats.objects.using(alias)
            .filter(user_id=user_id, level__in=list(buckets))
            .values_list("level", "luck_months")
        )
    return {
        level: {
            **luck_totals(months.get(bucket) or {}),
            "months": luck_series(months.get(bucket) or {})[-LUCK_MONTHS_SHOWN:],
        }
        for bucket, level in buckets.items()
    }
