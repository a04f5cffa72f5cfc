"""The superhuman checks, pure (games.play.fairplay.superhuman_findings), against rhythms a hand
makes and rhythms only a program makes."""

from __future__ import annotations

import random

from games.play.fairplay import most_in_window, superhuman_findings
from tests.support.fairplay import hand_limits, move_times

LIMITS = hand_limits()


def checks(**kwargs: object) -> list[str]:
    return [f.check for f in superhuman_findings(limits=LIMITS, **kwargs)]  # type: ignore[arg-type]


def test_a_human_rhythm_passes() -> None:
    rng = random.Random(7)
    # A fast human: 120 to 900 ms between clicks, thinking pauses now and then.
    gaps = [rng.randint(120, 900) + (2000 if rng.random() < 0.1 else 0) for _ in range(80)]
    assert checks(bbbv=60, bbbv_per_s=3.2, times_ms=move_times(gaps)) == []


def test_a_solver_rhythm_is_caught_by_burst_and_rhythm() -> None:
    found = checks(bbbv=60, bbbv_per_s=4.0, times_ms=move_times([8] * 60))
    assert "burst" in found and "rhythm" in found


def test_a_metronome_is_caught_even_at_human_speed() -> None:
    rng = random.Random(3)
    gaps = [200 + rng.randint(-3, 3) for _ in range(40)]
    assert checks(bbbv=60, bbbv_per_s=4.0, times_ms=move_times(gaps)) == ["metronome"]


def test_the_rhythm_checks_need_enough_moves() -> None:
    assert checks(bbbv=5, bbbv_per_s=4.0, times_ms=move_times([200] * 20)) == []


def test_3bv_per_s_above_the_limit_is_caught_from_the_minimum_3bv_on() -> None:
    assert checks(bbbv=10, bbbv_per_s=10.5, times_ms=[0, 500]) == ["bbbv_per_s"]
    assert checks(bbbv=10, bbbv_per_s=10.0, times_ms=[0, 500]) == []
    # A tiny board won by a lucky double click: any 3BV/s, nothing superhuman.
    assert checks(bbbv=3, bbbv_per_s=25.0, times_ms=[0, 120]) == []


def test_burst_counts_the_most_moves_in_any_second() -> None:
    assert most_in_window([0, 999, 1000, 1999]) == 2
    assert most_in_window(list(range(0, 1000, 40))) == 25
    assert checks(bbbv=60, bbbv_per_s=4.0, times_ms=list(range(0, 1000, 40))) == []
    assert "burst" in checks(bbbv=60, bbbv_per_s=4.0, times_ms=list(range(0, 1000, 38)))


def test_the_examples_in_the_docstrings_hold() -> None:
    import doctest

    from accounts.standings import records
    from demineur_site import env, formats
    from games.play import fairplay

    for module in (fairplay, records, formats, env):
        failed, attempted = doctest.testmod(module)
        assert attempted > 0 and failed == 0, module.__name__
