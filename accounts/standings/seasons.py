"""Race seasons (docs/RACES.md, Seasons): calendar quarters in UTC, January-March, April-June,
July-September and October-December, named `2026Q4`. Pure arithmetic on the datetimes the
caller gives: the season of a rated race is the one its result was rated in, by the server's
clock.

    >>> from datetime import datetime, timezone
    >>> season_of(datetime(2026, 12, 31, 23, 59, 59, tzinfo=timezone.utc))
    '2026Q4'
    >>> season_of(datetime(2027, 1, 1, tzinfo=timezone.utc))
    '2027Q1'
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

__all__ = ["InvalidSeason", "parse_season", "season_of", "season_starts", "seasons_before"]

_NAME = re.compile(r"([0-9]{4})Q([1-4])")


class InvalidSeason(ValueError):
    """Not a season's name (`2026Q4`), or a season that has not begun."""


def season_of(at: datetime) -> str:
    """The season holding the instant `at` (an aware datetime, read in UTC).

    >>> from datetime import datetime, timedelta, timezone
    >>> paris = timezone(timedelta(hours=1))
    >>> season_of(datetime(2027, 1, 1, 0, 30, tzinfo=paris))  # 23:30 UTC on December 31
    '2026Q4'
    """
    utc = at.astimezone(UTC)
    return f"{utc.year:04d}Q{(utc.month - 1) // 3 + 1}"


def season_starts(season: str) -> datetime:
    """The first instant of a season, 00:00 UTC on the first day of its quarter.

    >>> season_starts("2027Q2")
    datetime.datetime(2027, 4, 1, 0, 0, tzinfo=datetime.timezone.utc)
    """
    year, quarter = _parts(season)
    return datetime(year, 3 * quarter - 2, 1, tzinfo=UTC)


def parse_season(text: str, *, now: datetime) -> str:
    """A season asked for: `current` (the season holding `now`) or a name, a season that has
    begun by `now`. Anything else raises InvalidSeason.

    >>> from datetime import datetime, timezone
    >>> now = datetime(2026, 12, 7, tzinfo=timezone.utc)
    >>> parse_season("current", now=now), parse_season("2026Q3", now=now)
    ('2026Q4', '2026Q3')
    >>> parse_season("2027Q1", now=now)
    Traceback (most recent call last):
    ...
    accounts.standings.seasons.InvalidSeason: 2027Q1 has not begun
    """
    if text == "current":
        return season_of(now)
    _parts(text)
    if season_starts(text) > now:
        raise InvalidSeason(f"{text} has not begun")
    return text


def seasons_before(season: str, count: int) -> list[str]:
    """The `count` seasons that came before `season`, newest first.

    >>> seasons_before("2027Q1", 2)
    ['2026Q4', '2026Q3']
    """
    year, quarter = _parts(season)
    out = []
    for _ in range(count):
        year, quarter = (year - 1, 4) if quarter == 1 else (year, quarter - 1)
        out.append(f"{year:04d}Q{quarter}")
    return out


def _parts(season: str) -> tuple[int, int]:
    found = _NAME.fullmatch(season) if isinstance(season, str) else None
    if found is None or int(found.group(1)) < 1:
        raise InvalidSeason(f"{season!r} is not a season: YYYYQn, n from 1 to 4")
    return int(found.group(1)), int(found.group(2))
