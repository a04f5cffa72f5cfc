"""How often the shipped fair-play checks hold a paced solver, and how often they hold model
hands (false positives), measured by playing whole games through the services on a scratch
database with the server clock driven by tests/play/pacing.py. Not a test: a measurement
for docs/FAIRPLAY.md. Random layouts (no GAME_TEST_SEED); the pacing seeds are fixed.

    SQLITE_PATH=/tmp/fp-measure.sqlite3 DJANGO_SETTINGS_MODULE=demineur_site.settings_test \\
        .venv/bin/python -m tests.play.measure_holds --accounts 20 --wins 40

Then, for the seeded demo data (no move logs: only the 3BV/s and efficiency checks apply),
`--demo` reads every human win already in the database (run seed_demo on it first).
"""

from __future__ import annotations

import argparse
import itertools
import os
import random
import sys
from collections import Counter
from typing import Any

import django


def _setup() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "demineur_site.settings_test")
    django.setup()
    from django.conf import settings

    defaults = settings.FAIRPLAY_DEFAULTS
    settings.FAIRPLAY_MAX_BBBV_PER_S = dict(defaults["MAX_BBBV_PER_S"])
    settings.FAIRPLAY_MIN_BBBV = dict(defaults["MIN_BBBV"])
    for key in (
        "MAX_MOVES_PER_SECOND",
        "MIN_MEDIAN_INTERVAL_MS",
        "MIN_INTERVAL_VARIATION",
        "RHYTHM_MIN_MOVES",
        "FLURRY_GAP_MS",
        "FLURRY_RUN",
        "PACE_WINS",
        "PACE_MIN_INTERVALS",
        "MIN_PACE_CORRELATION",
        "PERFECT_WINS",
    ):
        setattr(settings, f"FAIRPLAY_{key}", defaults[key])
    settings.GAME_TEST_SEED = ""


def _paces() -> dict[str, Any]:
    from tests.play.pacing import model_hand, paced_solver

    return {
        "paced solver 120-450 ms": lambda rng: paced_solver(rng),
        "paced solver 200-1200 ms": lambda rng: paced_solver(rng, 200, 1200),
        "hand: think 200 ms, 100 ms/bit": lambda rng: model_hand(rng),
        "hand: think 300 ms, 50 ms/bit": lambda rng: model_hand(
            rng, think_ms=300, spread=0.8, ms_per_bit=50
        ),
        "hand: think 400 ms, 30 ms/bit": lambda rng: model_hand(
            rng, think_ms=400, spread=0.9, ms_per_bit=30
        ),
    }


def measure(accounts: int, wins: int, level: str) -> None:
    import statistics

    from accounts.models import User
    from games.play.fairplay import HAND_ACTIONS, pace_correlation
    from games.play.models import Move, Review
    from tests.play.pacing import play_win, server_clock

    for p_index, (label, make) in enumerate(_paces().items()):
        held_accounts, first_held, held_games = 0, [], 0
        checks: Counter[str] = Counter()
        speeds: list[float] = []
        medians: list[float] = []
        variations: list[float] = []
        pooled: list[list[tuple[int, int, int]]] = []
        for a in range(accounts):
            rng = random.Random(1000 * p_index + a)
            player = User.objects.create_user(username=f"m{p_index}x{a}", password="x" * 12)
            pace = make(rng)
            first = None
            with server_clock() as clock:
                for w in range(wins):
                    clock.advance(60_000)
                    tap = (rng.randrange(9), rng.randrange(9))
                    game = play_win(player, clock, pace, level=level, first_tap=tap, rng=rng)
                    moves = list(
                        Move.objects.filter(game=game, action__in=HAND_ACTIONS)
                        .order_by("seq")
                        .values_list("x", "y", "at_ms")
                    )
                    gaps = [b[2] - a[2] for a, b in itertools.pairwise(moves)]
                    if len(gaps) >= 2 and game.bbbv_per_s is not None:
                        speeds.append(game.bbbv_per_s)
                        medians.append(statistics.median(gaps))
                        variations.append(statistics.pstdev(gaps) / statistics.fmean(gaps))
                    pooled.append(moves)
                    review = Review.objects.filter(game=game).first()
                    if review is not None:
                        held_games += 1
                        checks.update(f["check"] for f in review.findings)
                        first = w + 1 if first is None else first
            if first is not None:
                held_accounts += 1
                first_held.append(first)
        first_held.sort()
        median_first = first_held[len(first_held) // 2] if first_held else None
        deciles = statistics.quantiles(speeds, n=10)
        rho, n = pace_correlation(pooled)
        print(
            f"{label:34} per game: 3BV/s p10 {deciles[0]:.2f} p50 {statistics.median(speeds):.2f} "
            f"p90 {deciles[-1]:.2f}, median interval {statistics.median(medians):.0f} ms, "
            f"CV {statistics.median(variations):.2f}; pooled pace correlation {rho:.3f} "
            f"over {n} intervals"
        )
        print(
            f"{label:34} accounts held {held_accounts}/{accounts}, games held "
            f"{held_games}/{accounts * wins}, first held at win (median) {median_first}, "
            f"checks {dict(checks)}"
        )
        sys.stdout.flush()


def demo() -> None:
    """The seeded demo games (no move logs): the per-game 3BV/s check and perfect efficiency."""
    from django.conf import settings

    from accounts.models import AccountKind
    from games.engine import LEVELS
    from games.play.fairplay import Win, account_findings, account_limits, limits_for
    from games.play.models import Game

    wins = (
        Game.objects.filter(
            state="won", player__kind=AccountKind.HUMAN, level__in=list(LEVELS), race__isnull=True
        )
        .order_by("player_id", "-ended_at")
        .values_list("player_id", "level", "bbbv", "bbbv_per_s", "clicks")
    )
    games = players_held = 0
    speed_held: Counter[str] = Counter()
    by_player: dict[int, list[Win]] = {}
    for player_id, level, bbbv, speed, clicks in wins.iterator():
        games += 1
        lim = limits_for(level)
        if speed is not None and bbbv >= lim.min_bbbv and speed > lim.max_bbbv_per_s:
            speed_held[level] += 1
        by_player.setdefault(player_id, []).append(Win(clicks=clicks, bbbv=bbbv, flags=0))
    for player_wins in by_player.values():
        # Every window of ACCOUNT_WINS consecutive wins (flags unknown: counted as none).
        n = settings.FAIRPLAY_PERFECT_WINS
        if any(
            account_findings(wins=player_wins[i : i + n], limits=account_limits())
            for i in range(max(len(player_wins) - n + 1, 0))
        ):
            players_held += 1
    print(
        f"demo: {games} human wins of {len(by_player)} players; held for 3BV/s: "
        f"{sum(speed_held.values())} {dict(speed_held)}; accounts held for perfect efficiency: "
        f"{players_held}"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--accounts", type=int, default=20)
    parser.add_argument("--wins", type=int, default=40)
    parser.add_argument("--level", default="beginner")
    parser.add_argument("--demo", action="store_true")
    args = parser.parse_args()
    _setup()
    from django.core.management import call_command

    if args.demo:
        demo()
        return
    call_command("migrate", verbosity=0)
    measure(args.accounts, args.wins, args.level)


if __name__ == "__main__":
    main()
