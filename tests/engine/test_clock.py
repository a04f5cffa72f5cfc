"""The server clock of RULES.md (Time), on fixed datetimes."""

from __future__ import annotations

import doctest
from datetime import UTC, datetime, timedelta

from games import clock
from games.clock import add_pause, elapsed_ms

T0 = datetime(2026, 3, 1, 12, 0, 0, tzinfo=UTC)


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def test_docstring_examples_hold() -> None:
    failed, attempted = doctest.testmod(clock)
    assert attempted > 5
    assert failed == 0


def test_zero_before_the_first_tap() -> None:
    assert elapsed_ms(started_at=None, now=at(99), paused_ms=0, paused_at=None, ended_at=None) == 0


def test_running_clock_counts_from_the_first_tap() -> None:
    assert (
        elapsed_ms(started_at=at(0), now=at(41.21), paused_ms=0, paused_at=None, ended_at=None)
        == 41_210
    )


def test_finished_pauses_are_subtracted() -> None:
    paused = add_pause(paused_ms=0, paused_at=at(10), resumed_at=at(25))
    assert paused == 15_000
    assert (
        elapsed_ms(started_at=at(0), now=at(40), paused_ms=paused, paused_at=None, ended_at=None)
        == 25_000
    )


def test_the_clock_stands_still_during_a_pause() -> None:
    readings = {
        elapsed_ms(started_at=at(0), now=at(now), paused_ms=2_000, paused_at=at(12), ended_at=None)
        for now in (12, 13, 600, 86_400)
    }
    assert readings == {10_000}


def test_the_clock_stops_at_the_end() -> None:
    readings = {
        elapsed_ms(started_at=at(0), now=at(now), paused_ms=1_000, paused_at=None, ended_at=at(30))
        for now in (30, 31, 3_600)
    }
    assert readings == {29_000}


def test_a_game_ended_during_a_pause_stops_at_the_pause() -> None:
    # Resigned or abandoned while paused: the paused stretch is not playing time.
    assert (
        elapsed_ms(started_at=at(0), now=at(500), paused_ms=0, paused_at=at(20), ended_at=at(400))
        == 20_000
    )


def test_whole_milliseconds_are_truncated_not_rounded() -> None:
    started = T0
    now = T0 + timedelta(microseconds=1_999)
    assert elapsed_ms(started_at=started, now=now, paused_ms=0, paused_at=None, ended_at=None) == 1


def test_never_negative() -> None:
    # A server clock that stepped back, or pauses recorded longer than the game.
    assert elapsed_ms(started_at=at(10), now=at(5), paused_ms=0, paused_at=None, ended_at=None) == 0
    assert (
        elapsed_ms(started_at=at(0), now=at(5), paused_ms=9_000, paused_at=None, ended_at=None) == 0
    )


def test_add_pause_accumulates() -> None:
    total = 0
    for start, end in ((5, 7), (10, 10.5), (20, 21.25)):
        total = add_pause(paused_ms=total, paused_at=at(start), resumed_at=at(end))
    assert total == 2_000 + 500 + 1_250


def test_add_pause_ignores_a_clock_that_went_backwards() -> None:
    assert add_pause(paused_ms=700, paused_at=at(10), resumed_at=at(9)) == 700


def test_naive_datetimes_work_alike() -> None:
    start = datetime(2026, 3, 1, 12, 0, 0)
    assert (
        elapsed_ms(
            started_at=start,
            now=start + timedelta(seconds=3),
            paused_ms=0,
            paused_at=None,
            ended_at=None,
        )
        == 3_000
    )


def test_a_whole_game_with_pauses() -> None:
    # Tap at 0 s, pause 10-15 s, pause 30-60 s, last move at 70 s: 70 - 5 - 30 = 35 s.
    paused = add_pause(paused_ms=0, paused_at=at(10), resumed_at=at(15))
    paused = add_pause(paused_ms=paused, paused_at=at(30), resumed_at=at(60))
    mid_pause = elapsed_ms(
        started_at=at(0), now=at(45), paused_ms=5_000, paused_at=at(30), ended_at=None
    )
    assert mid_pause == 25_000
    final = elapsed_ms(
        started_at=at(0), now=at(99), paused_ms=paused, paused_at=None, ended_at=at(70)
    )
    assert final == 35_000
