"""The server's own arenas (docs/ARENAS.md, Scheduled arenas): ARENA_SCHEDULE's next slot is
made by the race clock's tick, once, listed as scheduled, and started at its instant."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from games.arenas import services
from games.arenas.models import Arena
from tests.support.races import tick

pytestmark = pytest.mark.django_db


def test_the_next_slot_of_each_schedule_is_made_once(settings: Any, anon_api: Any) -> None:
    settings.ARENA_SCHEDULE = [
        ("beginner", 60, 30, False, "humans"),
        ("expert", 1440, 120, True, "bots"),
    ]
    now = datetime(2026, 12, 2, 10, 17, tzinfo=UTC)
    assert services.schedule_arenas(now=now) == 2
    assert services.schedule_arenas(now=now + timedelta(minutes=5)) == 0  # already made
    hourly = Arena.objects.get(level="beginner")
    assert hourly.starts_at == datetime(2026, 12, 2, 11, 0, tzinfo=UTC)
    assert hourly.ends_at - hourly.starts_at == timedelta(minutes=30)
    assert (hourly.name, hourly.created_by, hourly.players) == ("Hourly Beginner", None, "humans")
    daily = Arena.objects.get(level="expert")
    assert daily.starts_at == datetime(2026, 12, 3, 0, 0, tzinfo=UTC)
    assert (daily.no_guess, daily.players, daily.name) == (True, "bots", "Daily Expert no-guess")
    listed = anon_api.get("/api/arenas?state=scheduled").json()["results"]
    assert [a["name"] for a in listed] == ["Hourly Beginner", "Daily Expert no-guess"]
    # the next hour makes the next slot
    assert services.schedule_arenas(now=datetime(2026, 12, 2, 11, 0, 1, tzinfo=UTC)) == 1


def test_the_race_clock_makes_and_starts_the_schedule(settings: Any) -> None:
    settings.ARENA_SCHEDULE = [("beginner", 60, 30, False, "humans")]
    services._last_schedule = None
    tick()
    arena = Arena.objects.get(schedule__startswith="beginner")
    assert arena.state == "scheduled"
    services._last_schedule = None
    tick(arena.starts_at + timedelta(milliseconds=1))
    arena.refresh_from_db()
    assert arena.state == "running"
    assert Arena.objects.filter(state="scheduled").count() == 1  # the next hour's is made
