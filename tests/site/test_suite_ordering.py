"""The suite's own dealing (tests/support/ordering.py): which tests count as driving the
worker's Chromium, which tests/conftest.py closes before any other test."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support import ordering


class _Item:
    def __init__(self, fixturenames: tuple[str, ...], markers: tuple[str, ...] = ()) -> None:
        self.fixturenames = fixturenames
        self._markers = {name: getattr(pytest.mark, name) for name in markers}

    def get_closest_marker(self, name: str) -> Any:
        return self._markers.get(name)


def test_a_test_that_takes_its_browser_context_at_run_time_still_drives_the_browser() -> None:
    # tests/browser/test_dialogs.py names only `live` and asks for `desktop` or `phone` by name:
    # counted as no browser test, the worker's Chromium was closed under its module's fixture.
    assert ordering.drives_a_browser(_Item(("live", "request"), markers=("browser",)))
    assert ordering.drives_a_browser(_Item(("browser", "live")))
    assert not ordering.drives_a_browser(_Item(("db", "client")))


def test_the_browser_tests_are_dealt_first() -> None:
    items = [_Item(("db",)), _Item(("live",), markers=("browser",)), _Item(("browser",))]
    plain, marked, named = items
    ordering.long_first(items)
    assert items[:2] == [marked, named] and items[2] is plain
