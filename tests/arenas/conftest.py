"""Arena tests against the real site: the fixtures are in tests/support/."""

from __future__ import annotations

from tests.support.browser import live, site  # noqa: F401  (fixtures)
from tests.support.races import race_clock  # noqa: F401  (fixture)
