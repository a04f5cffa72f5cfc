"""Race helpers: alice, bob and carol race (tests/support/personas.py); the race clock is
driven by the tests (games.races.services.race_clock_tick) with a controlled `now`. The
hidden layouts of the racers' games: tests/support/boards.py."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import User
from accounts.standings import ratings
from games.races import services as races
from games.races.clock import RaceClock
from games.races.models import Race
from tests.support.personas import client_for


def tick(at: datetime | None = None) -> int:
    """One tick of the race clock at `at` (default: now)."""
    return races.race_clock_tick(now=at or timezone.now())


def start_now(race_id: str) -> None:
    """End the race's countdown at once: its deadline moved to now, then one tick. A race the
    race clock has started already (its countdown's deadline passed while a starved worker
    waited) has come to the same end."""
    now = timezone.now()
    if not Race.objects.filter(pk=race_id, state="countdown").update(starts_at=now, deadline=now):
        assert Race.objects.get(pk=race_id).state == "running"
    tick(now)


def open_room(host: User, level: str = "beginner") -> dict[str, Any]:
    """`host` opens a race room on `level` (POST /api/races): the Race as answered."""
    return dict(client_for(host).post("/api/races", {"level": level}, format="json").json())


def racing(
    api: APIClient, others: list[APIClient], level: str = "beginner", no_guess: bool = False
) -> dict[str, Any]:
    """`api` creates a race on `level` (a no-guess one with `no_guess`), every other client
    joins, all are ready; the countdown ends. Returns the Race as it is once started."""
    body = api.post("/api/races", {"level": level, "no_guess": no_guess}, format="json").json()
    for other in others:
        assert other.post(f"/api/races/{body['id']}/join").status_code == 200
    for client in [api, *others]:
        assert client.post(f"/api/races/{body['id']}/ready", {}, format="json").status_code == 200
    start_now(body["id"])
    started = api.get(f"/api/races/{body['id']}").json()
    assert started["state"] == "running"
    return dict(started)


@pytest.fixture
def race_clock(live: str) -> Iterator[RaceClock]:
    """The server's race clock (countdowns, starts, ends, quick matches) in the test process
    beside the live site (tests/support/browser.py), every 100 ms, as it runs in a server's."""
    clock = RaceClock(interval_s=0.1)
    clock.start()
    yield clock
    clock.stop()


@pytest.fixture
def established_ratings(monkeypatch: pytest.MonkeyPatch) -> None:
    """No rating is provisional (accounts.standings.ratings.PROVISIONAL_SIGMA above a new
    player's sigma): a test of a board's order sees its players after their first race."""
    monkeypatch.setattr(ratings, "PROVISIONAL_SIGMA", ratings.SIGMA + 1)
