"""Throttle rates set for one test (the suite's settings raise them all): the `rates` fixture,
made visible to every test package by tests/conftest.py."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from django.core.cache import cache
from rest_framework.throttling import SimpleRateThrottle


@pytest.fixture
def rates(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., None]]:
    """`rates(auth="3/min", ...)` sets those throttle rates (None: that throttle off) for the
    test, on a cleared cache. DRF reads rates from SimpleRateThrottle.THROTTLE_RATES, bound at
    import: patched as the suite does."""
    cache.clear()

    def set_rates(**overrides: str | None) -> None:
        current = dict(SimpleRateThrottle.THROTTLE_RATES)
        monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", {**current, **overrides})

    yield set_rates
    cache.clear()
