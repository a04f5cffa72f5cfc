"""Fair play helpers: the limits as shipped or relaxed (the suite's settings relax them, since
most tests play at machine speed), the leaderboard rows a fair play test looks at, and the
fair play tests' fixtures (a folder's conftest.py imports them to use them)."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from accounts.models import User
from games.play.fairplay import Limits
from tests.support.personas import PASSWORD, client_for


def hand_limits(**overrides: Any) -> Limits:
    """The pure checks' limits as the fair play tests use them: a human hand's, with
    `overrides` (the 3BV/s limit, the flurry) per test module."""
    values: dict[str, Any] = {
        "max_bbbv_per_s": 10.0,
        "min_bbbv": 10,
        "max_moves_per_second": 25,
        "max_median_rhythm_ms": 70,
        "min_rhythm_variation": 0.1,
        "rhythm_min_moves": 30,
    }
    return Limits(**(values | overrides))


def move_times(intervals: list[int]) -> list[int]:
    """The game clock at each move, from the intervals between moves (the first move at 0)."""
    out = [0]
    for gap in intervals:
        out.append(out[-1] + gap)
    return out


def ship_limits(settings: Any) -> None:
    defaults = settings.FAIRPLAY_DEFAULTS
    settings.FAIRPLAY_MAX_BBBV_PER_S = dict(defaults["MAX_BBBV_PER_S"])
    settings.FAIRPLAY_MIN_BBBV = dict(defaults["MIN_BBBV"])
    settings.FAIRPLAY_MAX_MOVES_PER_SECOND = defaults["MAX_MOVES_PER_SECOND"]
    settings.FAIRPLAY_MIN_MEDIAN_INTERVAL_MS = defaults["MIN_MEDIAN_INTERVAL_MS"]
    settings.FAIRPLAY_MIN_INTERVAL_VARIATION = defaults["MIN_INTERVAL_VARIATION"]
    settings.FAIRPLAY_RHYTHM_MIN_MOVES = defaults["RHYTHM_MIN_MOVES"]
    settings.FAIRPLAY_FLURRY_GAP_MS = defaults["FLURRY_GAP_MS"]
    settings.FAIRPLAY_FLURRY_RUN = defaults["FLURRY_RUN"]
    settings.FAIRPLAY_PACE_WINS = defaults["PACE_WINS"]
    settings.FAIRPLAY_PACE_MIN_INTERVALS = defaults["PACE_MIN_INTERVALS"]
    settings.FAIRPLAY_MIN_PACE_CORRELATION = defaults["MIN_PACE_CORRELATION"]
    settings.FAIRPLAY_PERFECT_WINS = defaults["PERFECT_WINS"]


def relax_limits(settings: Any) -> None:
    """What the rest of the suite runs with: nothing is superhuman."""
    settings.FAIRPLAY_MAX_MOVES_PER_SECOND = 10**6
    settings.FAIRPLAY_MIN_MEDIAN_INTERVAL_MS = 0
    settings.FAIRPLAY_MIN_INTERVAL_VARIATION = -1
    settings.FAIRPLAY_MAX_BBBV_PER_S = {k: 1e9 for k in settings.FAIRPLAY_MAX_BBBV_PER_S}
    settings.FAIRPLAY_FLURRY_GAP_MS = 0
    settings.FAIRPLAY_PACE_WINS = 0
    settings.FAIRPLAY_PERFECT_WINS = 0


def board(api: APIClient, level: str, kind: str = "times", **params: str) -> dict[str, Any]:
    query = "&".join(f"{k}={v}" for k, v in params.items())
    response = api.get(f"/api/leaderboards/{level}/{kind}?{query}")
    assert response.status_code == 200, response.content
    return response.json()


def players_on(page: dict[str, Any]) -> list[str]:
    return [row["player"] for row in page["results"]]


@pytest.fixture
def shipped_limits(settings: Any) -> None:
    """The fair play limits as shipped, for this test."""
    ship_limits(settings)


@pytest.fixture
def robo(db: Any) -> User:
    """A declared bot account."""
    return User.objects.create_user(username="robo", password=PASSWORD, kind="bot")


@pytest.fixture
def robo_api(robo: User) -> APIClient:
    return client_for(robo)


@pytest.fixture
def staff(db: Any) -> User:
    return User.objects.create_user(
        username="referee", password=PASSWORD, is_staff=True, is_superuser=True
    )
