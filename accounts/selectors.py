"""Reads of the accounts tables (the boards have their own module: accounts.leaderboards)."""

from __future__ import annotations

from typing import Any

from .models import STATS_BUCKETS, PlayerStats
from .presenters import stats_dict


def stats_for_user(*, user_id: int) -> dict[str, dict[str, Any]]:
    """All seven buckets, zeros and nulls where nothing was played (API.md, Fine points)."""
    rows = {row.level: row for row in PlayerStats.objects.filter(user_id=user_id)}
    return {bucket: stats_dict(rows.get(bucket)) for bucket in STATS_BUCKETS}
