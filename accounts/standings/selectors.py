"""Reads of the accounts tables (the boards have their own module: accounts.standings.leaderboards)."""

from __future__ import annotations

from typing import Any

from accounts.models import STATS_BUCKETS, PlayerStats
from accounts.standings.presenters import stats_dict
from demineur_site.db_router import lagging_reads


def stats_for_user(*, user_id: int) -> dict[str, dict[str, Any]]:
    """All seven buckets, zeros and nulls where nothing was played (API.md, Fine points)."""
    with lagging_reads() as alias:  # a profile may lag (demineur_site.db_router)
        rows = {row.level: row for row in PlayerStats.objects.using(alias).filter(user_id=user_id)}
    return {bucket: stats_dict(rows.get(bucket)) for bucket in STATS_BUCKETS}
