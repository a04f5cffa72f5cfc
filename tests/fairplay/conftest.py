"""Fair play tests run with the limits as shipped (the suite's settings relax them, since
the other tests play at machine speed)."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from accounts.models import User
from tests.support.personas import client_for


@pytest.fixture
def shipped_limits(settings: Any) -> None:
    ship_limits(settings)


def ship_limits(settings: Any) -> None:
    defaults = settings.FAIRPLAY_DEFAULTS
    settings.FAIRPLAY_MAX_BBBV_PER_S = dict(defaults["MAX_BBBV_PER_S"])
    settings.FAIRPLAY_MIN_BBBV = dict(defaults["MIN_BBBV"])
    settings.FAIRPLAY_MAX_MOVES_PER_SECOND = defaults["MAX_MOVES_PER_SECOND"]
    settings.FAIRPLAY_MIN_MEDIAN_INTERVAL_MS = defaults["MIN_MEDIAN_INTERVAL_MS"]
    settings.FAIRPLAY_MIN_INTERVAL_VARIATION = defaults["MIN_INTERVAL_VARIATION"]
    settings.FAIRPLAY_RHYTHM_MIN_MOVES = defaults["RHYTHM_MIN_MOVES"]


def relax_limits(settings: Any) -> None:
    """What the rest of the suite runs with: nothing is superhuman."""
    settings.FAIRPLAY_MAX_MOVES_PER_SECOND = 10**6
    settings.FAIRPLAY_MIN_MEDIAN_INTERVAL_MS = 0
    settings.FAIRPLAY_MIN_INTERVAL_VARIATION = -1
    settings.FAIRPLAY_MAX_BBBV_PER_S = {k: 1e9 for k in settings.FAIRPLAY_MAX_BBBV_PER_S}


@pytest.fixture
def robo(db: Any) -> User:
    """A declared bot account."""
    return User.objects.create_user(username="robo", password="correct horse battery", kind="bot")


@pytest.fixture
def robo_api(robo: User) -> APIClient:
    return client_for(robo)


@pytest.fixture
def staff(db: Any) -> User:
    return User.objects.create_user(
        username="referee", password="correct horse battery", is_staff=True, is_superuser=True
    )


def board(api: APIClient, level: str, kind: str = "times", **params: str) -> dict[str, Any]:
    query = "&".join(f"{k}={v}" for k, v in params.items())
    response = api.get(f"/api/leaderboards/{level}/{kind}?{query}")
    assert response.status_code == 200, response.content
    return response.json()


def players_on(page: dict[str, Any]) -> list[str]:
    return [row["player"] for row in page["results"]]
