"""Analysis time of finished games (games.play.analysis.analyse), per level: p50 / p99 / max.

Games are played by a bot on seeded layouts: it opens every cell ms-toollib proves safe, one
reveal at a time in reading order, and when none is left it guesses the least likely cell (as
a strong player would), so a game has a realistic count of deduced moves and a few guesses.
The analysis of each finished game is then timed alone, in this process (it runs in the
analysis worker's thread in production, off the request path): wall time, and the process's
CPU time, which the load of a shared machine does not inflate.

    .venv/bin/python -m bench.analysis.run                  # four levels, 50 games each
    .venv/bin/python -m bench.analysis.run --games 10 --levels beginner,expert
"""

from __future__ import annotations

import random
import statistics
import time

import ms_toollib

from bench import cli
from bench.harness.report import Progress, say, show, table
from bench.harness.timing import percentile
from games.engine import LEVELS, Board
from games.play.analysis import MoveIn, analyse


def play(level: str, seed: int) -> tuple[list[str], list[MoveIn]]:
    """One finished game of `level`: its layout (engine ASCII) and its moves."""
    spec = LEVELS[level]
    w, h = spec.width, spec.height
    rng = random.Random(seed)
    board = Board.new(w, h, spec.mines)
    x0, y0 = rng.randrange(w), rng.randrange(h)
    board.reveal(x0, y0, rng)
    moves = [MoveIn(1, "reveal", x0, y0)]
    while not board.ended:
        view = board.render(layout=False)
        grid = [[10 if ch in "#F" else int(ch) for ch in row] for row in view]
        probs, _ = ms_toollib.cal_probability_onboard(grid, float(spec.mines))
        closed = [(x, y) for y in range(h) for x in range(w) if view[y][x] == "#"]
        safe = [(x, y) for x, y in closed if probs[y][x] == 0.0]
        if not safe:
            low = min(probs[y][x] for x, y in closed)
            safe = [rng.choice([(x, y) for x, y in closed if probs[y][x] == low])]
        for x, y in safe:
            if board.ended:
                break
            if board.render(layout=False)[y][x] != "#":
                continue
            board.reveal(x, y)
            moves.append(MoveIn(len(moves) + 1, "reveal", x, y))
    return board.to_ascii(), moves


def main(argv: list[str] | None = None) -> int:
    parser = cli.parser(__doc__)
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--levels", default="beginner,hard,expert,marathon")
    parser.add_argument("--seed", type=int, default=21)
    args = parser.parse_args(argv)
    rows: list[list[object]] = []
    for level in args.levels.split(","):
        spec = LEVELS[level]
        times: list[float] = []
        cpu: list[float] = []  # the process's CPU: what a shared machine's load does not inflate
        moves_n: list[int] = []
        guesses = 0
        exact = 0
        won = 0
        progress = Progress(args.games, f"{level} games analysed", every=10)
        for g in range(args.games):
            layout, moves = play(level, args.seed * 1000 + g)
            started, cpu_started = time.perf_counter(), time.process_time()
            result = analyse(width=spec.width, height=spec.height, layout=layout, moves=moves)
            times.append((time.perf_counter() - started) * 1000)
            cpu.append((time.process_time() - cpu_started) * 1000)
            moves_n.append(len(moves))
            guesses += result.forced_guesses + result.avoidable_guesses
            exact += result.exact
            won += not any(m.lost for m in result.moves)
            progress.step(f"(the last {times[-1]:.0f} ms)")
        rows.append([level, args.games, won, f"{statistics.mean(moves_n):.0f}", guesses,
                     f"{percentile(times, 50):.1f}", f"{percentile(times, 99):.1f}",
                     f"{max(times):.1f}", f"{percentile(cpu, 50):.1f}",
                     f"{percentile(cpu, 99):.1f}", f"{exact}/{args.games}"])  # fmt: skip
    head = ["level", "games", "won", "moves/game", "guesses", "p50 ms", "p99 ms", "max ms",
            "cpu p50 ms", "cpu p99 ms", "exact"]  # fmt: skip
    say("")
    show(table(head, rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
