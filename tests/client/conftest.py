"""The Python client (clients/python) against the real site: uvicorn on a thread of the test
process, on the test database (tests/support/browser.py's `site` and `live`)."""

from __future__ import annotations

from tests.support.browser import live, site  # noqa: F401  (fixtures)
from tests.support.races import race_clock  # noqa: F401  (fixture)
