"""The players-per-machine bench's search (bench/load/capacity.py): which player counts it
tries, and what makes a cell pass, on made-up outcomes (the servers are not started here)."""

from __future__ import annotations

from typing import Any

from bench.load.capacity import next_count, verdict

SEARCH = {"start": 64, "maximum": 2048, "precision": 0.1}


def _search(capacity: int, **search: Any) -> list[int]:
    """The counts tried against a machine that serves up to `capacity` players."""
    outcomes: dict[int, bool] = {}
    tried = []
    while (count := next_count(outcomes, **(search or SEARCH))) is not None:
        assert count not in outcomes, f"{count} tried twice: {tried}"
        tried.append(count)
        outcomes[count] = count <= capacity
        assert len(tried) < 30, tried
    return tried


def test_it_doubles_then_halves_the_interval_until_within_the_precision() -> None:
    tried = _search(300)
    assert tried[:4] == [64, 128, 256, 512]
    passes = [n for n in tried if n <= 300]
    failures = [n for n in tried if n > 300]
    assert max(passes) <= 300 < min(failures)
    assert min(failures) - max(passes) <= max(passes) * 0.1


def test_a_failing_start_comes_down_first() -> None:
    tried = _search(20)
    assert tried[:3] == [64, 32, 16]
    assert max(n for n in tried if n <= 20) >= 18  # within 10 % of the answer


def test_it_stops_at_the_maximum_when_every_count_passes() -> None:
    assert _search(10**6, start=64, maximum=300, precision=0.1) == [64, 128, 256]


def test_nothing_passes_when_even_one_player_fails() -> None:
    assert _search(0) == [64, 32, 16, 8, 4, 2, 1]


def _cell(**changes: Any) -> dict[str, Any]:
    cell = {
        "players": 100,
        "think_ms": 1000,
        "moves_per_s": 95.0,
        "moves_all": {"p99_ms": 30.0},
        "errors": {},
    }
    return {**cell, **changes}


def test_a_cell_passes_only_fast_enough_without_errors_and_at_the_players_pace() -> None:
    limits = {"p99_ms": 50, "rate": 0.9}
    assert verdict(_cell(), **limits) == ""
    assert "p99" in verdict(_cell(moves_all={"p99_ms": 50.0}), **limits)
    assert "p99" in verdict(_cell(moves_all={}), **limits)  # no move at all is no pass
    assert "1 errors" in verdict(_cell(errors={"move: socket closed": 1}), **limits)
    assert "moves/s" in verdict(_cell(moves_per_s=89.0), **limits)


def test_the_plot_is_written_as_a_png(tmp_path: Any) -> None:
    from bench.load.capacity import plot

    cells = [_cell(players=n, moves_per_s=n * 0.98, moves_all={"p99_ms": n / 4}) for n in (64, 128)]
    target = tmp_path / "perf" / "capacity.png"
    plot(cells, target, "a title", 50)
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
