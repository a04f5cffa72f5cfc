"""Puzzle generation per finished game (games.puzzles.generator.candidates), per level: the time
it adds after the game's analysis (p50 / p99 / max, wall and the process's CPU), and what it
yields: puzzles per game and per theme, before the store's dedupe across games.

Two players make the games, both with a move log as the server stores one:
- `strong` (bench.analysis.run.play): opens every cell ms-toollib proves safe, guesses only
  when nothing is provable; its puzzles come from deductions of more than one number;
- `quick` (tests/support/puzzles.py): opens what one number proves, else guesses at random,
  so it misses deductions; its puzzles come from avoidable guesses too.
Each game is analysed first (its labels feed the generator, as in production); only the
generator is timed. Nothing touches a database.

    .venv/bin/python -m bench.puzzles.run                     # six levels, 40 games each
    .venv/bin/python -m bench.puzzles.run --games 10 --levels beginner,expert --players quick
"""

from __future__ import annotations

import random
import time
from collections import Counter

from bench import cli
from bench.harness.database import setup_django
from bench.harness.report import Progress, say, show, table
from bench.harness.timing import percentile


def main(argv: list[str] | None = None) -> int:
    parser = cli.parser(__doc__)
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--levels", default="beginner,intermediate,hard,expert,extreme,marathon")
    parser.add_argument("--players", default="strong,quick")
    parser.add_argument("--seed", type=int, default=40)
    args = parser.parse_args(argv)
    setup_django(migrate=False)  # the generator's module names its tables; no query is made

    from bench.analysis.run import play as strong_game
    from games.engine import LEVELS
    from games.play.analysis import analyse
    from games.puzzles.generator import candidates
    from games.puzzles.positions import THEMES
    from tests.support.puzzles import quick_game

    rows: list[list[object]] = []
    themes_rows: list[list[object]] = []
    for who in args.players.split(","):
        for level in args.levels.split(","):
            spec = LEVELS[level]
            wall: list[float] = []
            cpu: list[float] = []
            analysis_ms: list[float] = []
            made = 0
            themes: Counter[str] = Counter()
            keys: set[str] = set()
            progress = Progress(args.games, f"{who} {level} games", every=10)
            for g in range(args.games):
                seed = args.seed * 1000 + g
                if who == "strong":
                    layout, moves = strong_game(level, seed)
                else:
                    layout, moves = quick_game(
                        spec.width, spec.height, spec.mines, random.Random(seed)
                    )
                started = time.perf_counter()
                result = analyse(width=spec.width, height=spec.height, layout=layout, moves=moves)
                analysis_ms.append((time.perf_counter() - started) * 1000)
                labels = {m.seq: m.label for m in result.moves}
                started, cpu_started = time.perf_counter(), time.process_time()
                specs = candidates(
                    width=spec.width, height=spec.height, layout=layout, moves=moves, labels=labels
                )
                wall.append((time.perf_counter() - started) * 1000)
                cpu.append((time.process_time() - cpu_started) * 1000)
                made += len(specs)
                keys |= {s.key for s in specs}
                themes.update(s.themes[-1] for s in specs)
                progress.step(f"(the last {wall[-1]:.0f} ms, {len(specs)} puzzles)")
            rows.append([who, level, args.games, made, len(keys), f"{made / args.games:.2f}",
                         f"{percentile(analysis_ms, 50):.1f}",
                         f"{percentile(wall, 50):.1f}", f"{percentile(wall, 99):.1f}",
                         f"{max(wall):.1f}", f"{percentile(cpu, 50):.1f}",
                         f"{percentile(cpu, 99):.1f}"])  # fmt: skip
            themes_rows.append([who, level, *(themes[t] for t in THEMES)])
    say("")
    head = ["player", "level", "games", "puzzles", "distinct", "per game", "analysis p50 ms",
            "p50 ms", "p99 ms", "max ms", "cpu p50 ms", "cpu p99 ms"]  # fmt: skip
    show(table(head, rows))
    say("")
    show(table(["player", "level", *THEMES], themes_rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
