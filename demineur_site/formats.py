"""The one way the API writes a timestamp: UTC, always with microseconds, `Z` for UTC.

Every date in every answer (games, profiles, boards, best times) goes through `iso`, so two
fields of one answer never differ in format, and stored timestamps sort as strings.
"""

from __future__ import annotations

from datetime import UTC, datetime


def iso(value: datetime | None) -> str | None:
    """
    >>> iso(datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC))
    '2026-01-02T03:04:05.000000Z'
    >>> iso(None) is None
    True
    """
    if value is None:
        return None
    return value.astimezone(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")
