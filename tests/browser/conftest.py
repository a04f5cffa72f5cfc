"""Browser tests: the fixtures and helpers are in tests/support/browser.py."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.browser import (  # noqa: F401  (fixtures)
    CHROMIUM,
    browser,
    desktop,
    laptop,
    live,
    phone,
    site,
)
from tests.support.races import established_ratings, race_clock  # noqa: F401  (fixtures)


def pytest_collection_modifyitems(items: list[Any]) -> None:
    # WhiteNoise serves static files with a sync iterator, which Django's ASGI handler
    # warns about on every file; that is expected here and says nothing about the pages.
    no_chromium = pytest.mark.skip(
        reason="Debian's chromium is not installed (apt-get install -y chromium): browser test skipped"
    )
    for item in items:
        if item.get_closest_marker("browser"):
            item.add_marker(pytest.mark.filterwarnings("ignore:StreamingHttpResponse must consume"))
            if CHROMIUM is None:
                item.add_marker(no_chromium)
