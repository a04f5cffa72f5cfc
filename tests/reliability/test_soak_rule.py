"""The soak's growth rule (bench/soak/soak.py; docs/RELIABILITY.md, "Soak"): the median of
the last third of the samples against the median of the middle third, with a tolerance."""

from __future__ import annotations

from bench.soak.soak import COUNT, MEMORY, judge_series

MB = 1024  # the memory series are in kB


def test_memory_that_levels_off_passes() -> None:
    # Warm-up (imports, caches) in the first third, then flat with noise.
    values = [60 * MB, 75 * MB, 85 * MB] + [90 * MB + (i % 3) * 200 for i in range(27)]
    verdict = judge_series("worker RSS", values, "kB", MEMORY)
    assert verdict is not None
    assert not verdict.grows


def test_memory_that_keeps_growing_fails() -> None:
    # 1 MB a sample, never levelling off: the last third is 20 MB ahead of the middle one,
    # past 5 % + 4 MB of it.
    values = [90 * MB + i * MB for i in range(60)]
    verdict = judge_series("worker RSS", values, "kB", MEMORY)
    assert verdict is not None
    assert verdict.grows
    assert verdict.last > verdict.limit


def test_growth_within_the_tolerance_passes() -> None:
    # 6 MB more in the last third: inside 5 % + 4 MB of a 90 MB middle third (8.5 MB).
    values = [90 * MB] * 20 + [96 * MB] * 10
    verdict = judge_series("worker RSS", values, "kB", MEMORY)
    assert verdict is not None
    assert not verdict.grows


def test_connections_that_pile_up_fail() -> None:
    # One more open descriptor every sample: a socket or database connection leak.
    values = [float(20 + i) for i in range(60)]
    verdict = judge_series("worker fds", values, "count", COUNT)
    assert verdict is not None
    assert verdict.grows


def test_connections_that_come_and_go_pass() -> None:
    values = [float(30 + (i * 7) % 9) for i in range(30)]  # 30..38, no trend
    verdict = judge_series("worker sockets", values, "count", COUNT)
    assert verdict is not None
    assert not verdict.grows


def test_too_few_samples_are_not_judged() -> None:
    assert judge_series("worker RSS", [1.0] * 8, "kB", MEMORY) is None
