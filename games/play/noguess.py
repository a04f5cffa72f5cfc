"""No-guess layouts (RULES.md, No-guess boards; docs/NOGUESS.md): mines placed around a first
tap so that, from the protected 3x3 opening, every safe cell can be proven safe from the numbers
alone (never from the count of mines left).

Reject and retry: draw a uniform layout outside the opening (Python's generator: SystemRandom,
or the seeded one while GAME_TEST_SEED is set), keep it if ms-toollib's ``is_solvable`` clears
it from the opening, else draw again. Every no-guess layout is then equally likely. That is
ms-toollib's own ``laymine_solvable`` loop, run here so that the draws are seeded in tests and
bounded in tries and time (``laymine_solvable`` cannot be seeded, and at a density it cannot
serve it spins for its whole ``max_times``).

``is_solvable`` is Rust holding the GIL for the whole check (3.5 ms median on Marathon, up to
~80 ms). So the search runs in a small process pool (spawned once, lazily, or by ``warm()``), and
the request's thread only waits on the answer; when the pool is broken the search runs in the
calling thread instead. The worker function and what it imports are free of Django.

``layout_for`` answers the mines (flat indexes ``y * width + x``) or None when no no-guess
layout was found within the budget: the caller falls back to a classic layout and marks the
game classic (docs/NOGUESS.md, "When no board is found").
"""

from __future__ import annotations

import atexit
import logging
import multiprocessing
import random
import threading
import time
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass

# Custom boards: the densest no-guess board served, in mines per cell outside the opening, by
# board size (cells up to the bound, density); above it creation refuses: 400
# no_guess_unavailable. The share of uniform draws that are no-guess falls with the density and
# with the area (docs/NOGUESS.md has it measured per size and density by bench/noguess): each
# bound keeps that share at about a third or more, so the search's budget is never near.
DENSITY_BOUNDS: tuple[tuple[int, float], ...] = ((500, 0.20), (2500, 0.16), (10_000, 0.12))
MAX_DENSITY = DENSITY_BOUNDS[0][1]
# The budget of one search: this many draws or this much time, whichever ends first. The
# ranked levels accept at least half of the draws (Hard, the least), so 2,000 draws failing
# has a chance below 2^-2000; the time bound is what stops a hopeless custom search.
MAX_TRIES = 2000
TIME_BUDGET_S = 0.5
# How long the request waits on the pool before it gives up on it (the search's own budget
# and a margin for a cold start of the pool).
WAIT_S = 5.0
POOL_WORKERS = 1

_log = logging.getLogger(__name__)


def max_density(width: int, height: int) -> float:
    """The densest no-guess custom board of this size that is served."""
    cells = width * height
    return next((d for most, d in DENSITY_BOUNDS if cells <= most), DENSITY_BOUNDS[-1][1])


def max_mines(width: int, height: int) -> int:
    """The most mines of a no-guess custom board of this size."""
    return int(max_density(width, height) * (width * height - 9))


def refuses(width: int, height: int, mines: int) -> bool:
    """Whether a no-guess board of this size is refused at creation (custom boards only: the
    six levels are always served)."""
    return mines > max_mines(width, height)


def opening(width: int, height: int, x: int, y: int) -> set[int]:
    """The protected 3x3 around (x, y) that never holds a mine, as flat indexes."""
    return {
        (y + dy) * width + (x + dx)
        for dy in (-1, 0, 1)
        for dx in (-1, 0, 1)
        if 0 <= x + dx < width and 0 <= y + dy < height
    }


def _numbers(width: int, height: int, mines: list[int]) -> list[list[int]]:
    """ms-toollib's board: one list per row, -1 for a mine, else the count of mines around."""
    import ms_toollib

    board = [[0] * width for _ in range(height)]
    for m in mines:
        board[m // width][m % width] = -1
    numbered: list[list[int]] = ms_toollib.cal_board_numbers(board)
    return numbered


def solvable(width: int, height: int, mines: list[int], x: int, y: int) -> bool:
    """ms-toollib's verdict: cleared from (x, y) by deduction, numbers only."""
    import ms_toollib

    # ms-toollib counts rows first: its (x0, y0) is our (y, x).
    return bool(ms_toollib.is_solvable(_numbers(width, height, mines), y, x))


@dataclass(frozen=True)
class LayoutAsk:
    """What a no-guess layout is asked for: a width x height board of `mines` mines, first
    tapped at (x, y); `seed` None draws from SystemRandom, else from a generator seeded with
    it (GAME_TEST_SEED in tests, a daily's secret draw). It crosses to the pool's process."""

    width: int
    height: int
    mines: int
    x: int
    y: int
    seed: str | None = None
    # Wall time the search may take before it gives up (NOGUESS_BUDGET_S: TIME_BUDGET_S in
    # production; the suite sets it high, since a loaded machine must not make a correct
    # search fail: its tests check boards, not speed).
    budget_s: float = TIME_BUDGET_S

    def __str__(self) -> str:
        return f"{self.width}x{self.height}/{self.mines} at ({self.x}, {self.y})"


def search(
    ask: LayoutAsk, max_tries: int = MAX_TRIES, budget_s: float | None = None
) -> tuple[list[int] | None, int]:
    """Reject and retry: (the sorted mines of the first solvable uniform draw, draws made), or
    (None, draws made) when the budget (`budget_s`, else the ask's) ran out."""
    if budget_s is None:
        budget_s = ask.budget_s
    rng: random.Random = random.Random(ask.seed) if ask.seed is not None else random.SystemRandom()
    protected = opening(ask.width, ask.height, ask.x, ask.y)
    population = [i for i in range(ask.width * ask.height) if i not in protected]
    deadline = time.monotonic() + budget_s
    for tries in range(1, max_tries + 1):
        cells = sorted(rng.sample(population, ask.mines))
        if solvable(ask.width, ask.height, cells, ask.x, ask.y):
            return cells, tries
        if time.monotonic() > deadline:
            return None, tries
    return None, max_tries


_pool: ProcessPoolExecutor | None = None
_pool_lock = threading.Lock()


def _executor() -> ProcessPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            # spawn, not fork: the server process has threads (the race clock, the pool of
            # connections) that a fork would copy in whatever state they were in.
            _pool = ProcessPoolExecutor(
                max_workers=POOL_WORKERS, mp_context=multiprocessing.get_context("spawn")
            )
        return _pool


def _drop_pool(broken: ProcessPoolExecutor) -> None:
    global _pool
    with _pool_lock:
        if _pool is broken:
            _pool = None
    broken.shutdown(wait=False, cancel_futures=True)


@atexit.register
def _shutdown() -> None:
    if _pool is not None:
        _pool.shutdown(wait=False, cancel_futures=True)


def warm() -> None:
    """Start the pool's process now (it takes a few hundred milliseconds), not at the first
    no-guess tap."""
    _executor().submit(search, LayoutAsk(9, 9, 10, 4, 4, "warm"), 1).result(timeout=WAIT_S * 6)


def prestart() -> None:
    """Start the pool's worker without waiting for it (a no-guess game was just created: its
    first tap then finds the worker up, instead of paying its start-up, about 0.5 s)."""
    try:
        _executor().submit(search, LayoutAsk(9, 9, 10, 4, 4, "prestart"), 1)
    except (BrokenProcessPool, OSError, RuntimeError):
        _log.warning("no-guess pool would not start", exc_info=True)


def layout_for(ask: LayoutAsk, *, in_thread: bool = True) -> list[int] | None:
    """A no-guess layout as asked, or None when none was found in time. When the pool cannot
    answer, the search runs in the caller's thread, unless `in_thread` is False (a background
    dealer, which must not hold the server's GIL: it tries again later)."""
    pool = _executor()
    try:
        future: Future[tuple[list[int] | None, int]] = pool.submit(search, ask)
        found, tries = future.result(timeout=max(WAIT_S, ask.budget_s + WAIT_S))
    except (BrokenProcessPool, TimeoutError, OSError, RuntimeError):
        _drop_pool(pool)
        if not in_thread:
            _log.warning("no-guess pool unusable: no layout this time", exc_info=True)
            return None
        _log.warning("no-guess pool unusable: searching in this thread", exc_info=True)
        found, tries = search(ask)
    if found is None:
        _log.warning("no no-guess layout for %s after %d draws", ask, tries)
    return found


__all__ = [
    "DENSITY_BOUNDS",
    "MAX_DENSITY",
    "LayoutAsk",
    "layout_for",
    "max_density",
    "max_mines",
    "opening",
    "prestart",
    "refuses",
    "search",
    "solvable",
    "warm",
]
