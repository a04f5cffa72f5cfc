"""The replay's counters and probability overlay on Marathon games (docs/ANALYSIS.md, The
probability overlay; docs/STATS.md, The counters of a game): what each costs per finished game,
p50 / p99 / max, wall and the process's CPU, and what one step of the overlay costs to answer.

The games are played by a flagging bot on seeded layouts: a first tap, then every cell
ms-toollib proves safe opened one reveal at a time, every cell it proves a mine flagged as it is
found (a flag is a step of the replay that computes nothing), the least likely cell guessed
when nothing is proven. For each finished game, in this process (the analysis worker's
thread in production, off the request path):

- **counters**: the counts of the whole game from its moves (`counters.counts_of`, as the
  integrity check replays them) and the layout's ZiNi (`counters.zini_of`, computed at the end);
- **overlay**: every step's chances, compressed (`probabilities.overlay`, what the worker
  stores beside the analysis);
- **a step's answer**: one step inflated from its chunk and written as API.md's rows
  (`probabilities.step_grid` + `chances`), what GET /api/games/{id}/probabilities does after
  its one query, at every step of the game.

    .venv/bin/python -m bench.overlay.run                  # 40 Marathon games
    .venv/bin/python -m bench.overlay.run --games 10 --level expert

Writes bench/overlay/results.json.
"""

from __future__ import annotations

import random
import statistics
import time
from pathlib import Path
from typing import Any

from bench import cli
from bench.harness.database import setup_django
from bench.harness.report import Progress, Run, say, show, table
from bench.harness.timing import figures

RESULTS = Path(__file__).resolve().parent / "results.json"


def play(level: str, seed: int) -> tuple[list[str], list[Any], list[tuple[str, list[Any]]]]:
    """One finished game: its layout (engine ASCII), its moves and each move's (action, changes)."""
    import ms_toollib

    from games.engine import LEVELS, Board
    from games.play.analysis import MoveIn

    spec = LEVELS[level]
    w, h = spec.width, spec.height
    rng = random.Random(seed)
    board = Board.new(w, h, spec.mines)
    x0, y0 = rng.randrange(w), rng.randrange(h)
    out = board.reveal(x0, y0, rng)
    moves = [MoveIn(1, "reveal", x0, y0)]
    counted: list[tuple[str, list[Any]]] = [("reveal", out.change_dicts())]

    def move(action: str, x: int, y: int) -> None:
        done = board.flag(x, y, True) if action == "flag" else board.reveal(x, y)
        moves.append(MoveIn(len(moves) + 1, action, x, y, True if action == "flag" else None))
        counted.append((action, done.change_dicts()))

    while not board.ended:
        view = board.render(layout=False)
        grid = [[10 if ch in "#F" else int(ch) for ch in row] for row in view]
        probs, _ = ms_toollib.cal_probability_onboard(grid, float(spec.mines))
        closed = [(x, y) for y in range(h) for x in range(w) if view[y][x] == "#"]
        for x, y in closed:
            if probs[y][x] >= 1.0:
                move("flag", x, y)
        safe = [(x, y) for x, y in closed if probs[y][x] == 0.0]
        if not safe:
            low = min(probs[y][x] for x, y in closed if probs[y][x] < 1.0)
            safe = [rng.choice([(x, y) for x, y in closed if probs[y][x] == low])]
        for x, y in safe:
            if board.ended:
                break
            if board.render(layout=False)[y][x] == "#":
                move("reveal", x, y)
    return board.to_ascii(), moves, counted


def main(argv: list[str] | None = None) -> int:
    parser = cli.parser(__doc__)
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--level", default="marathon")
    parser.add_argument("--seed", type=int, default=41)
    parser.add_argument("--results", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    setup_django(migrate=False)  # counters names its models; no query is made

    from games.engine import LEVELS
    from games.play.counters import counts_of, zini_of
    from games.play.probabilities import chances, overlay, step_grid

    spec = LEVELS[args.level]
    record = Run("overlay")
    wall: dict[str, list[float]] = {"counters": [], "overlay": [], "both": [], "step": []}
    cpu: dict[str, list[float]] = {"counters": [], "overlay": [], "both": []}
    steps: list[int] = []
    sizes: list[int] = []
    exact = 0
    progress = Progress(args.games, f"{args.level} games", every=5)
    for g in range(args.games):
        layout, moves, counted = play(args.level, args.seed * 1000 + g)
        mines = [(x, y) for y, row in enumerate(layout) for x, ch in enumerate(row) if ch in "*MX"]
        started, cpu_started = time.perf_counter(), time.process_time()
        counts_of(counted)
        zini_of(spec.width, spec.height, mines)
        mid, cpu_mid = time.perf_counter(), time.process_time()
        made = overlay(width=spec.width, height=spec.height, layout=layout, moves=moves)
        end, cpu_end = time.perf_counter(), time.process_time()
        wall["counters"].append((mid - started) * 1000)
        wall["overlay"].append((end - mid) * 1000)
        wall["both"].append((end - started) * 1000)
        cpu["counters"].append((cpu_mid - cpu_started) * 1000)
        cpu["overlay"].append((cpu_end - cpu_mid) * 1000)
        cpu["both"].append((cpu_end - cpu_started) * 1000)
        cells = spec.width * spec.height
        for step in range(made.steps):
            at = time.perf_counter()
            chances(step_grid(made.chunks[step // 32], step % 32, cells), spec.width)
            wall["step"].append((time.perf_counter() - at) * 1000)
        steps.append(made.steps)
        sizes.append(made.size)
        exact += made.exact
        progress.step(f"({made.steps} steps, overlay {wall['overlay'][-1]:.0f} ms)")
    results: dict[str, Any] = {
        "level": args.level,
        "games": args.games,
        "steps_mean": round(statistics.mean(steps), 1),
        "steps_max": max(steps),
        "stored_bytes_mean": round(statistics.mean(sizes)),
        "stored_bytes_max": max(sizes),
        "exact": exact,
        "wall": {name: figures(values) for name, values in wall.items()},
        "cpu": {name: figures(values) for name, values in cpu.items()},
    }
    record.write(results, args.results)
    head = ["what", "n", "wall p50 ms", "wall p99 ms", "wall max ms", "cpu p50 ms", "cpu p99 ms"]
    rows = []
    for name in ("counters", "overlay", "both", "step"):
        w = results["wall"][name]
        c = results["cpu"].get(name, {})
        rows.append([name, w["n"], w["p50_ms"], w["p99_ms"], w["max_ms"],
                     c.get("p50_ms", "—"), c.get("p99_ms", "—")])  # fmt: skip
    say("")
    show(table(head, rows))
    say(
        f"steps a game: mean {results['steps_mean']}, max {results['steps_max']}; stored: mean "
        f"{results['stored_bytes_mean']} B, max {results['stored_bytes_max']} B; "
        f"exact {exact}/{args.games}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
