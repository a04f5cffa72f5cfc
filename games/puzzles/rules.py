"""The puzzles' pure rules: a new puzzle's rating, what is provisional, the streak's and the
storm's ladders and clock, the puzzle of the day's draw, and the machine-paced attempt (docs
/PUZZLES.md). No Django, no database."""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Sequence
from datetime import date, datetime, timedelta

from games.puzzles.positions import CHAIN, MINES_LEFT, PATTERN, SINGLE, SUBSET, THEMES

# --- ratings (openskill on the race ratings' scale: accounts.standings.ratings) -----------------

# A new puzzle's rating by the hardest reasoning it needs, and the depth that reasoning usually
# takes; each number more adds DEPTH_STEP, each cell of the answer past the first CELL_STEP.
THEME_RATING = {SINGLE: 900.0, SUBSET: 1250.0, PATTERN: 1400.0, CHAIN: 1550.0, MINES_LEFT: 1650.0}
THEME_DEPTH = {SINGLE: 1, SUBSET: 2, PATTERN: 3, CHAIN: 3, MINES_LEFT: 2}
DEPTH_STEP = 60.0
CELL_STEP = 15.0
MAX_START = 2400.0
# How sure a new puzzle's rating is: tighter than a new player's (500), since theme and depth
# say something, loose enough that its first plays move it.
PUZZLE_SIGMA = 300.0
# A rating is provisional while its deviation is above this: 21 rated attempts for a new
# player, 8 to 12 rated plays for a new puzzle (measured, docs/PUZZLES.md).
PROVISIONAL_SIGMA = 250.0


def starting_rating(themes: Sequence[str], depth: int, cells: int) -> tuple[float, float]:
    """(mu, sigma) of a new puzzle from its hardest theme, its depth and its answer's size."""
    theme = themes[-1]
    mu = THEME_RATING[theme] + DEPTH_STEP * max(0, depth - THEME_DEPTH[theme])
    mu += CELL_STEP * max(0, cells - 1)
    return min(mu, MAX_START), PUZZLE_SIGMA


def provisional(sigma: float) -> bool:
    return sigma > PROVISIONAL_SIGMA


def themes_text(themes: Sequence[str]) -> str:
    """The stored form of a puzzle's themes: `,subset,chain,`, so that one LIKE finds a theme."""
    return "," + ",".join(themes) + ","


def themes_of(text: str) -> list[str]:
    return [t for t in text.split(",") if t]


def valid_theme(theme: str) -> bool:
    return theme in THEMES


# --- the streak and the storm ------------------------------------------------------------------

STREAK = "streak"
STORM = "storm"
# The rating the streak's n-th puzzle (0 first) is picked near: easy first, harder each time.
STREAK_START = 800.0
STREAK_STEP = 50.0
# The storm: three minutes from its first opening, on the server's clock; each failed puzzle
# takes STORM_PENALTY off the time left and the storm goes on with the next one.
STORM_DURATION = timedelta(minutes=3)
STORM_PENALTY = timedelta(seconds=10)
STORM_START = 800.0
STORM_STEP = 30.0


def run_target(kind: str, index: int) -> float:
    """The rating the `index`-th puzzle of a streak or a storm is picked near."""
    if kind == STREAK:
        return STREAK_START + STREAK_STEP * index
    return STORM_START + STORM_STEP * index


def storm_ends_at(started_at: datetime, failures: int) -> datetime:
    return started_at + STORM_DURATION - STORM_PENALTY * failures


# --- the puzzle of the day ---------------------------------------------------------------------

# Well played: at least this many rated plays by humans, and a rating no longer provisional.
DAILY_MIN_PLAYS = 10


def daily_anchor(day: date) -> uuid.UUID:
    """Where the day's draw starts among the puzzles' ids (random UUIDs, so any point is a fair
    draw): the first candidate id at or after it, wrapping round. The same day, the same point."""
    return uuid.UUID(
        bytes=hashlib.sha256(f"puzzle-of-the-day:{day.isoformat()}".encode()).digest()[:16]
    )


# --- fair play: machine time -------------------------------------------------------------------


def machine_paced(
    think_ms: int | None, gaps_ms: Sequence[int], *, min_think_ms: int, min_gap_ms: int
) -> bool:
    """Whether an attempt was played in machine time (docs/FAIRPLAY.md): its first opening
    less than `min_think_ms` after the puzzle was shown (`think_ms`; None: opened without
    being shown) and every later opening less than `min_gap_ms` after the one before."""
    think = 0 if think_ms is None else think_ms
    return think < min_think_ms and all(g < min_gap_ms for g in gaps_ms)


__all__ = [
    "CHAIN",
    "MINES_LEFT",
    "PATTERN",
    "PROVISIONAL_SIGMA",
    "SINGLE",
    "STORM",
    "STREAK",
    "SUBSET",
    "daily_anchor",
    "machine_paced",
    "provisional",
    "run_target",
    "starting_rating",
    "storm_ends_at",
    "themes_of",
    "themes_text",
]
