"""The flurry check and the account checks, pure (games.play.fairplay): what they hold, and
what a hand on a bad network does that they must not hold."""

from __future__ import annotations

import random

from games.play.fairplay import (
    AccountLimits,
    Win,
    account_findings,
    pace_correlation,
    pace_limit,
    superhuman_findings,
)
from tests.support.fairplay import hand_limits, move_times

LIMITS = hand_limits(max_bbbv_per_s=15.0, flurry_gap_ms=40, flurry_run=8)
ACCOUNT = AccountLimits(
    pace_wins=100, pace_min_intervals=500, min_pace_correlation=0.09, perfect_wins=20
)


def checks(intervals: list[int], bbbv: int = 9) -> list[str]:
    times = move_times(intervals)
    speed = bbbv / (times[-1] / 1000) if times[-1] else None
    return [
        f.check
        for f in superhuman_findings(bbbv=bbbv, bbbv_per_s=speed, times_ms=times, limits=LIMITS)
    ]


def test_a_whole_short_game_under_the_floor_is_a_flurry() -> None:
    assert checks([8] * 11) == ["flurry"]  # the finding: 12 moves, 94 ms
    assert checks([8] * 3) == ["flurry"]  # four moves, 24 ms
    assert checks([8] * 2) == []  # a first tap and a double click prove nothing


def test_a_long_run_under_the_floor_is_a_flurry_anywhere_in_a_game() -> None:
    rng = random.Random(1)
    human = [rng.randint(150, 900) for _ in range(20)]
    assert checks(human + [9] * 8 + human, bbbv=9) == ["flurry"]
    assert checks(human + [9] * 7 + human, bbbv=9) == []
    assert checks(human + [41] * 20 + human, bbbv=9) == []  # at 41 ms apart it is not judged here


def test_moves_packed_by_a_network_stall_are_not_a_flurry() -> None:
    # A hand 150-900 ms apart; a stall of a second delivers the next five moves at once
    # (the page shows nothing until a move is answered, so a hand does not go far ahead).
    rng = random.Random(2)
    gaps = [rng.randint(150, 900) for _ in range(15)] + [1100, 3, 2, 4, 3]
    gaps += [rng.randint(150, 900) for _ in range(15)]
    assert checks(gaps, bbbv=30) == []


def _wins(n: int, *, clicks_over: int = 0, flags: int = 0) -> list[Win]:
    return [Win(clicks=12 + clicks_over, bbbv=12, flags=flags) for _ in range(n)]


def test_perfect_efficiency_needs_every_one_of_the_last_wins_minimal_and_flagless() -> None:
    assert [f.check for f in account_findings(wins=_wins(20), limits=ACCOUNT)] == [
        "perfect_efficiency"
    ]
    assert account_findings(wins=_wins(19), limits=ACCOUNT) == []
    one_wasted = _wins(19) + _wins(1, clicks_over=1)
    assert account_findings(wins=one_wasted, limits=ACCOUNT) == []
    assert account_findings(wins=_wins(19) + _wins(1, flags=1), limits=ACCOUNT) == []
    # Cleared once by staff, it is not raised for the account again.
    assert account_findings(wins=_wins(20), limits=ACCOUNT, skip=["perfect_efficiency"]) == []
    assert account_findings(wins=_wins(20), limits=AccountLimits(100, 500, 0.09, 0)) == []


def _paced(rng: random.Random, n: int, pace: str) -> list[tuple[int, int, int]]:
    x, y, t, out = 4, 4, 0, [(4, 4, 0)]
    for _ in range(n):
        nx, ny = rng.randrange(9), rng.randrange(9)
        travel = ((nx - x) ** 2 + (ny - y) ** 2) ** 0.5
        if pace == "bot":
            t += int(rng.uniform(120, 450))
        else:
            t += int(rng.lognormvariate(5.3, 0.7) + 40 + 100 * (1 + travel) ** 0.5)
        x, y = nx, ny
        out.append((x, y, t))
    return out


def test_blind_pace_is_a_think_time_that_ignores_the_travel() -> None:
    rng = random.Random(3)
    bot = [Win(clicks=20, bbbv=12, flags=0, moves=_paced(rng, 20, "bot")) for _ in range(100)]
    hand = [Win(clicks=20, bbbv=12, flags=0, moves=_paced(rng, 20, "hand")) for _ in range(100)]
    # 2,000 intervals: held below 0.09 - 3 / sqrt(2000), about 0.023; 500 of them: below -0.044.
    assert (round(pace_limit(0.09, 2000), 3), round(pace_limit(0.09, 500), 3)) == (0.023, -0.044)
    rho, n = pace_correlation(w.moves for w in bot)
    assert n == 2000 and rho is not None and rho < pace_limit(0.09, n)
    found = account_findings(wins=bot, limits=ACCOUNT)
    assert [(f.check, f.limit) for f in found] == [("blind_pace", 0.0229)]
    assert account_findings(wins=hand, limits=ACCOUNT) == []
    # Too few intervals to tell (400 < 500): not judged.
    assert account_findings(wins=bot[:20], limits=ACCOUNT) == []
