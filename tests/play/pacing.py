"""Players with a pace, for the fair-play tests and measurements: each plays a whole game
through the services (games.play.services), and the server clock they play against is
driven by the test (django.utils.timezone.now, which the services read), so every stored
move's `at_ms` is the pace the player was given, exactly, with no real waiting.

* a **paced solver**: it reveals safe cells (it reads the layout: how a solver finds them
  does not matter to the clock) and sleeps a random delay before each move, as a bot that
  ranked first on the human board did with 120-450 ms;
* a **model hand**: its time before a move is a thinking time plus the travel of the hand
  to the next cell by Fitts's law (longer the farther the cell). A model, not a recording of
  people: docs/FAIRPLAY.md says what it is used for and what it cannot show.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from unittest import mock

from accounts.models import User
from games.play import services
from games.play.models import Game

T0 = datetime(2026, 11, 29, 12, 0, 0, tzinfo=UTC)
Cell = tuple[int, int]


class ServerClock:
    """The server's clock, moved by hand (the services read django.utils.timezone.now)."""

    def __init__(self, start: datetime = T0) -> None:
        self.now = start

    def advance(self, ms: float) -> None:
        self.now += timedelta(milliseconds=ms)


@contextmanager
def server_clock(start: datetime = T0) -> Iterator[ServerClock]:
    clock = ServerClock(start)
    with mock.patch("django.utils.timezone.now", side_effect=lambda: clock.now):
        yield clock


@contextmanager
def machine_speed_clock(step_ms: float = 1.0) -> Iterator[ServerClock]:
    """The server's clock moves `step_ms` each time it is read, starting from the real now: a
    client that plays through the API as fast as it can plays at machine speed by the server's
    clock, however busy the machine running the test is."""
    from django.utils import timezone

    clock = ServerClock(timezone.now())

    def read() -> datetime:
        clock.advance(step_ms)
        return clock.now

    with mock.patch("django.utils.timezone.now", side_effect=read):
        yield clock


def _closed_safe(rows: list[str]) -> list[Cell]:
    return [(x, y) for y, row in enumerate(rows) for x, ch in enumerate(row) if ch == "."]


def _zeros(rows: list[str]) -> set[Cell]:
    """The closed safe cells with no mine around them (each opens a cascade)."""
    mines = {(x, y) for y, row in enumerate(rows) for x, ch in enumerate(row) if ch in "*MX"}
    return {
        (x, y)
        for (x, y) in _closed_safe(rows)
        if not any((x + dx, y + dy) in mines for dx in (-1, 0, 1) for dy in (-1, 0, 1))
    }


def next_cell(rows: list[str], last: Cell, *, efficient: bool, rng: random.Random) -> Cell:
    """The next safe cell to reveal: the nearest one to the last move (ties at random); an
    efficient player opens the cascades (zeros) first, so that it clicks exactly the 3BV."""
    closed = _closed_safe(rows)
    if efficient:
        zeros = _zeros(rows)
        closed = [c for c in closed if c in zeros] or closed
    return min(closed, key=lambda c: (math.dist(c, last), rng.random()))


@dataclass
class Pace:
    """How long a player takes before a move (ms), from the distance its hand travels."""

    before_move: Callable[[float], float]


def paced_solver(rng: random.Random, low_ms: float = 120, high_ms: float = 450) -> Pace:
    """The bot of the finding: a random delay, whatever the board."""
    return Pace(lambda _distance: rng.uniform(low_ms, high_ms))


def model_hand(
    rng: random.Random, *, think_ms: float = 200, spread: float = 0.7, ms_per_bit: float = 100
) -> Pace:
    """A hand: a thinking time (log-normal around `think_ms`) and Fitts's travel time,
    40 ms + `ms_per_bit` x log2(1 + distance in cells)."""
    return Pace(
        lambda distance: (
            rng.lognormvariate(math.log(think_ms), spread)
            + 40
            + ms_per_bit * math.log2(1 + distance)
        )
    )


def play_win(
    player: User,
    clock: ServerClock,
    pace: Pace,
    *,
    level: str = "beginner",
    first_tap: Cell = (4, 4),
    efficient: bool = False,
    rng: random.Random | None = None,
) -> Game:
    """One game won through the services at `pace`; returns the ended Game."""
    rng = rng or random.Random(0)
    game = services.game_create(player=player, level=level)
    clock.advance(1500)  # looking at the new board before the first tap
    result = services.game_move(
        game_id=game.id, player=player, action="reveal", x=first_tap[0], y=first_tap[1]
    )
    last = first_tap
    while result.game.state == "playing":
        assert result.board is not None
        cell = next_cell(result.board.to_ascii(), last, efficient=efficient, rng=rng)
        clock.advance(pace.before_move(math.dist(cell, last)))
        result = services.game_move(
            game_id=game.id, player=player, action="reveal", x=cell[0], y=cell[1]
        )
        last = cell
    game.refresh_from_db()
    assert game.state == "won", game.state
    return game
