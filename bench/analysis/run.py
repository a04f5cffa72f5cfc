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

import argparse
import random
import statistics
import sys
import time

import ms_toollib

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


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=50)
    ap.add_argument("--levels", default="beginner,hard,expert,marathon")
    ap.add_argument("--seed", type=int, default=21)
    args = ap.parse_args(argv)
    print(
        "level        games  won  moves/game  guesses  p50 ms   p99 ms   max ms"
        "  cpu p50  cpu p99  exact"
    )
    for level in args.levels.split(","):
        spec = LEVELS[level]
        times: list[float] = []
        cpu: list[float] = []  # the process's CPU: what a shared machine's load does not inflate
        moves_n: list[int] = []
        guesses = 0
        exact = 0
        won = 0
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
            print(f"  {level} game {g + 1}/{args.games}: {times[-1]:.0f} ms", file=sys.stderr)
        print(
            f"{level:<12} {args.games:>5}  {won:>3}  {statistics.mean(moves_n):>10.0f}  {guesses:>7}"
            f"  {pct(times, 0.5):>6.1f}  {pct(times, 0.99):>7.1f}  {max(times):>7.1f}"
            f"  {pct(cpu, 0.5):>7.1f}  {pct(cpu, 0.99):>7.1f}  {exact}/{args.games}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
