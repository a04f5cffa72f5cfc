"""The server clock of RULES.md (Time): pure arithmetic on datetimes the caller supplies.

A game's time is the active time between the server's receipt of the first tap and its
receipt of the move that ends the game, minus the paused intervals, in whole milliseconds.
The caller stores ``started_at``, the running total ``paused_ms`` of finished pauses, the
start of the current pause ``paused_at`` (or None) and ``ended_at`` (or None).

    >>> from datetime import datetime, timedelta, timezone
    >>> t0 = datetime(2026, 1, 1, tzinfo=timezone.utc)
    >>> paused = add_pause(paused_ms=0, paused_at=t0 + timedelta(seconds=5),
    ...                    resumed_at=t0 + timedelta(seconds=8))
    >>> elapsed_ms(started_at=t0, now=t0 + timedelta(seconds=10), paused_ms=paused,
    ...            paused_at=None, ended_at=None)
    7000
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta

__all__ = ["add_pause", "elapsed_ms"]

_MS = timedelta(milliseconds=1)


def _whole_ms(delta: timedelta) -> int:
    # Integer division of timedeltas is exact (microseconds), unlike total_seconds() * 1000.
    return delta // _MS


def elapsed_ms(
    *,
    started_at: datetime | None,
    now: datetime,
    paused_ms: int,
    paused_at: datetime | None,
    ended_at: datetime | None,
) -> int:
    """The game clock in whole milliseconds: 0 before the first tap, otherwise the time
    from ``started_at`` to the first of ``ended_at``, ``paused_at`` (a pause still open
    stops the clock) or ``now``, minus ``paused_ms``; never negative.

    >>> from datetime import datetime, timedelta, timezone
    >>> t0 = datetime(2026, 1, 1, tzinfo=timezone.utc)
    >>> elapsed_ms(started_at=None, now=t0, paused_ms=0, paused_at=None, ended_at=None)
    0
    >>> elapsed_ms(started_at=t0, now=t0 + timedelta(minutes=1), paused_ms=0,
    ...            paused_at=t0 + timedelta(seconds=2.5), ended_at=None)
    2500
    """
    if started_at is None:
        return 0
    stop = ended_at if ended_at is not None else now
    if paused_at is not None and paused_at < stop:
        # A game that ended (resigned, abandoned) while paused stopped counting at the pause.
        stop = paused_at
    return max(0, _whole_ms(stop - started_at) - paused_ms)


def add_pause(*, paused_ms: int, paused_at: datetime, resumed_at: datetime) -> int:
    """The new total of paused milliseconds once the pause begun at ``paused_at`` ends at
    ``resumed_at`` (a clock that went backwards adds nothing).

    >>> from datetime import datetime, timedelta
    >>> t = datetime(2026, 1, 1)
    >>> add_pause(paused_ms=1000, paused_at=t, resumed_at=t + timedelta(milliseconds=1500))
    2500
    """
    return paused_ms + max(0, _whole_ms(resumed_at - paused_at))


def daily_day_end(day: date) -> datetime:
    """The instant a daily's day ends: the next day's 00:00 UTC (RULES.md, The daily challenge;
    docs/DAILY.md). A daily game still running then is ended by the server."""
    return datetime.combine(day + timedelta(days=1), time(0, 0), tzinfo=UTC)
