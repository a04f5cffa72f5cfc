"""cProfile of the worst Marathon move as games/services plays it: decode the stored board,
reveal, the move answer's JSON changes, encode. For the current engine or an older file.

    .venv/bin/python -m bench.engine.profile_move                      # games.engine
    git show HEAD:games/engine.py > /tmp/engine_before.py
    .venv/bin/python -m bench.engine.profile_move /tmp/engine_before.py

Prints the functions with the most time of their own (cProfile inflates small calls such as
``list.append``: read the shares, not the absolute times; bench_engine has the timings).
"""

from __future__ import annotations

import cProfile
import pstats
import random
from pathlib import Path
from types import ModuleType
from typing import Any

from bench import cli
from bench.engine import bench_engine
from bench.engine.compare import load_engine
from bench.harness.report import say
from games import engine as current


def main() -> None:
    parser = cli.parser(__doc__)
    parser.add_argument("other", type=Path, nargs="?", help="an engine.py file (default: now)")
    parser.add_argument("--moves", type=int, default=300)
    parser.add_argument("--seed", type=int, default=216, help="bench_engine's worst seed")
    parser.add_argument("--top", type=int, default=12)
    args = parser.parse_args()
    engine: ModuleType = load_engine(args.other) if args.other else current
    board = engine.Board.new(80, 40, 240)
    board.reveal(*bench_engine.CENTRE, rng=random.Random(args.seed))
    placed = engine.Board.from_ascii([r.replace("o", ".") for r in board.to_ascii()]).encode()
    fast = hasattr(engine.Outcome, "change_dicts")

    def move() -> Any:
        played = engine.Board.decode(placed)
        outcome = played.reveal(*bench_engine.CENTRE)
        if fast:
            changes = outcome.change_dicts()
        else:  # games/presenters.changes_list
            changes = [{"x": c.x, "y": c.y, "v": c.v} for c in outcome.changes]
        played.encode()
        return changes

    say(f"{args.moves} worst moves with {args.other or 'games.engine'}")
    profile = cProfile.Profile()
    profile.enable()
    for _ in range(args.moves):
        move()
    profile.disable()
    pstats.Stats(profile).sort_stats("tottime").print_stats(args.top)


if __name__ == "__main__":
    main()
