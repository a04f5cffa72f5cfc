"""Fixtures of the fair play tests, which run with the limits as shipped (the suite's settings
relax them, since the other tests play at machine speed): tests/support/fairplay.py."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from accounts.models import User
from tests.support.fairplay import ship_limits
from tests.support.personas import PASSWORD, client_for


@pytest.fixture
def shipped_limits(settings: Any) -> None:
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
