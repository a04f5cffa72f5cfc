"""Reads of the accounts tables (the boards have their own module: accounts.standings.leaderboards)."""

from __future__ import annotations

from typing import Any

from accounts.models import STATS_BUCKETS
from accounts.standings.models import PlayerStats
from accounts.standings.presenters import stats_dict
from accounts.standings.records import bucket_for
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
