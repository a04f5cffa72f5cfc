"""The fair play tests run with the limits as shipped (the suite's settings relax them, since
the other tests play at machine speed): their fixtures are in tests/support/fairplay.py."""

from __future__ import annotations

from tests.support.fairplay import robo, robo_api, shipped_limits, staff  # noqa: F401  (fixtures)
