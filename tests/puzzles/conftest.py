"""The puzzles' fixtures: a stored puzzle to solve (tests/support/puzzles.py)."""

from __future__ import annotations

from typing import Any

import pytest

from games.puzzles.models import Puzzle
from tests.support import puzzles as drawings


@pytest.fixture
def flow(db: Any) -> Puzzle:
    return drawings.store(drawings.FLOW)
