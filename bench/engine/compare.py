"""Two versions of games/engine.py and the anchor on the worst Marathon reveal, in one run.

    git show HEAD:games/engine.py > /tmp/engine_before.py
    .venv/bin/python -m bench.engine.compare /tmp/engine_before.py --repeats 300

The other version is loaded from a file (any older engine.py, e.g. from git) next to the
current ``games.engine``. Every round calls each case once, in turn, so a load spike from
other processes hits all of them alike; the medians and the ratio to the anchor's
``py_flat`` flood fill (rules_bench.py, see bench_engine) are printed every 100 rounds and
at the end. Before each call, untimed, a full garbage collection: it also evicts the CPU
caches, as the rest of a request does in a server (``--hot`` leaves it out). The worst reveal is bench_engine's: seed 216, first tap in the centre, 2,778
cells opened, timed on a board whose mines are already placed (decoded, untimed).

Cases, for each engine: ``decode`` of that board; ``reveal`` as the engine returns it;
``reveal + JSON`` the reveal plus the move answer's ``[{"x", "y", "v"}, ...]`` as
games/presenters.changes_list builds it from ``Outcome.changes`` (and, for an engine that
has it, from ``Outcome.change_dicts()``).
"""

from __future__ import annotations

import gc
import importlib.util
import random
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from bench import cli
from bench.engine import bench_engine
from bench.harness.report import machine, say
from bench.harness.timing import median
from games import engine as current

Case = tuple[Callable[[], Any], Callable[[Any], object]]
COLLECT = True  # --hot turns it off


def collect() -> None:
    if COLLECT:
        gc.collect()


def load_engine(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location("engine_other", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules["engine_other"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def json_changes(outcome: Any) -> list[dict[str, Any]]:
    return [{"x": c.x, "y": c.y, "v": c.v} for c in outcome.changes]  # presenters.changes_list


def engine_cases(label: str, engine: ModuleType, seed: int) -> tuple[dict[str, Case], bytes]:
    """The cases of one engine, and its encoding of the board they start from."""
    board_cls = engine.Board
    board = board_cls.new(80, 40, 240)
    board.reveal(*bench_engine.CENTRE, rng=random.Random(seed))
    placed: bytes = board_cls.from_ascii(
        [row.replace("o", ".") for row in board.to_ascii()]
    ).encode()
    x, y = bench_engine.CENTRE

    def fresh() -> Any:
        collect()  # untimed: no case pays for the garbage the case before it left
        return board_cls.decode(placed)

    def data() -> bytes:
        collect()
        return placed

    cases: dict[str, Case] = {
        f"{label}: decode": (data, board_cls.decode),
        f"{label}: reveal": (fresh, lambda b: b.reveal(x, y)),
        f"{label}: reveal + JSON via .changes": (fresh, lambda b: json_changes(b.reveal(x, y))),
    }
    if hasattr(engine.Outcome, "change_dicts"):
        cases[f"{label}: reveal + JSON via .change_dicts()"] = (
            fresh,
            lambda b: b.reveal(x, y).change_dicts(),
        )
    return cases, placed


def report(samples: dict[str, list[float]], anchor_name: str) -> None:
    theirs = median(samples[anchor_name])
    for name, values in samples.items():
        middle = median(values)
        say(f"  {name:48s} median {middle:7.3f} ms  {middle / theirs:5.2f} x anchor")


def main() -> None:
    parser = cli.parser(__doc__)
    parser.add_argument("other", type=Path, help="another engine.py (e.g. from git show)")
    parser.add_argument("--repeats", type=int, default=300, help="rounds")
    parser.add_argument("--seed", type=int, default=216, help="bench_engine's worst seed")
    parser.add_argument("--anchor", type=Path, default=bench_engine.ANCHOR)
    parser.add_argument(
        "--hot",
        action="store_true",
        help="no garbage collection between calls (caches stay warm: each case's data is"
        " still in the CPU caches more often than in a server, which does other work between"
        " two moves)",
    )
    args = parser.parse_args()
    global COLLECT
    COLLECT = not args.hot
    anchor = bench_engine.load_anchor(args.anchor)
    placed = current.Board.from_ascii(
        [row.replace("o", ".") for row in bench_engine.first_tap(args.seed)[0].to_ascii()]
    ).encode()
    prepare, run = bench_engine.anchor_cases(anchor, placed)["anchor py_flat"]

    def anchor_state() -> Any:
        collect()
        return prepare()

    cases: dict[str, Case] = {"anchor py_flat": (anchor_state, run)}
    before, before_placed = engine_cases("before", load_engine(args.other), args.seed)
    now, now_placed = engine_cases("now", current, args.seed)
    if not before_placed == now_placed == placed:
        raise SystemExit("the two engines do not lay out and encode the same board")
    cases.update(before)
    cases.update(now)
    say(f"machine: {machine()}")
    say(
        f"{len(cases)} cases, {args.repeats} rounds, seed {args.seed},"
        f" {'hot' if args.hot else 'gc.collect() before each call'}"
    )
    samples: dict[str, list[float]] = {name: [] for name in cases}
    done = 0
    while done < args.repeats:
        batch = min(100, args.repeats - done)
        for name, values in bench_engine.interleaved(cases, batch).items():
            samples[name] += values
        done += batch
        say(f"after {done} rounds:")
        report(samples, "anchor py_flat")


if __name__ == "__main__":
    main()
