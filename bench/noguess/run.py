"""No-guess generation (games/play/noguess.py; docs/NOGUESS.md), measured:

    .venv/bin/python -m bench.noguess.run            # every part (~3 min on this machine)
    .venv/bin/python -m bench.noguess.run --boards 100 --parts levels

Parts (``--parts``, comma-separated):

- ``levels``: per level, the wall time of one no-guess layout as the first tap gets it
  (``noguess.layout_for``: the spawned pool, its round trip included) at a random first tap,
  p50 / p99 / max over ``--boards``, and the draws it took; beside it the same search in the
  calling thread (``noguess.search``), ms-toollib's own ``laymine_solvable`` (not seedable),
  and the same reject-and-retry with the tests' Python solver as the checker (the "own solver"
  candidate);
- ``densities``: the share of uniform draws that are no-guess, per board size and density
  (where the custom bounds come from);
- ``uniformity``: Beginner with the first tap in the middle, ``--uniform-boards`` layouts of
  the generator against exact rejection sampling checked by the tests' solver, and against
  plain uniform (classic) layouts: mines per corner / edge / interior cell, the chi-square of
  generator vs reference, and the per-cell mine frequency of each as a grid.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from importlib.metadata import version

import ms_toollib

from bench import cli
from bench.harness.report import say
from bench.harness.timing import median, percentile
from games.engine import LEVELS, Level
from games.play import noguess  # free of Django: no settings needed
from tests.support.deduction import solve
from tests.support.uniformity import (
    CLASSES,
    cell_class,
    cell_frequencies,
    chi_square,
    class_counts,
    generator_layouts,
    reference_layouts,
)


def _row(values_s: list[float]) -> str:
    ms = [v * 1000 for v in values_s]
    return f"{median(ms):7.2f} {percentile(ms, 99):7.2f} {max(ms):7.2f}"


def _own_search(width: int, height: int, mines: int, x: int, y: int, rng: random.Random) -> int:
    protected = noguess.opening(width, height, x, y)
    population = [c for c in range(width * height) if c not in protected]
    for tries in range(1, 100_000):
        if solve(width, height, sorted(rng.sample(population, mines)), (x, y)).cleared:
            return tries
    raise RuntimeError("no board")


def levels(boards: int) -> None:
    say("## Generation per level (ms: p50 p99 max)")
    noguess.warm()
    trips = []
    for _ in range(200):
        t = time.perf_counter()
        trip = noguess.LayoutAsk(9, 9, 10, 4, 4, "trip")
        noguess._executor().submit(noguess.search, trip, 1).result()
        trips.append(time.perf_counter() - t)
    say(f"pool round trip (a 1-draw Beginner search): {_row(trips)}")
    say(
        "| level | layout_for (pool) p50 / p99 / max | search inline | laymine_solvable |"
        " own solver as checker | draws mean / max |"
    )
    say("|---|---|---|---|---|---|")
    rng = random.Random("bench-noguess")
    at_bounds = [
        Level(f"custom {w}x{h} at its bound", w, h, noguess.max_mines(w, h))
        for w, h in ((22, 22), (50, 50), (100, 100))
    ]
    for spec in [*LEVELS.values(), *at_bounds]:
        pooled, inline, lib, own, draws = [], [], [], [], []
        own_n = max(10, boards // 10)
        for i in range(boards):
            x, y = rng.randrange(spec.width), rng.randrange(spec.height)
            t = time.perf_counter()
            found = noguess.layout_for(noguess.LayoutAsk(spec.width, spec.height, spec.mines, x, y))
            pooled.append(time.perf_counter() - t)
            assert found is not None
            t = time.perf_counter()
            ask = noguess.LayoutAsk(spec.width, spec.height, spec.mines, x, y, f"b{i}")
            _, tries = noguess.search(ask)
            inline.append(time.perf_counter() - t)
            draws.append(tries)
            t = time.perf_counter()
            _, ok = ms_toollib.laymine_solvable(spec.height, spec.width, spec.mines, y, x, 100_000)
            lib.append(time.perf_counter() - t)
            assert ok
            if i < own_n and spec.name in LEVELS:
                t = time.perf_counter()
                _own_search(spec.width, spec.height, spec.mines, x, y, rng)
                own.append(time.perf_counter() - t)
        say(
            f"| {spec.name} | {_row(pooled)} | {_row(inline)} | {_row(lib)} |"
            f" {_row(own) + f' (n={own_n})' if own else '-'} |"
            f" {statistics.mean(draws):.2f} / {max(draws)} |"
        )


def densities() -> None:
    say("\n## Share of uniform draws that are no-guess (first tap in the middle)")
    sizes = ((9, 9), (16, 16), (30, 16), (50, 50), (100, 100))
    rates = (0.10, 0.12, 0.15, 0.16, 0.18, 0.20, 0.22)
    say("| board | " + " | ".join(f"{d:.2f}" for d in rates) + " |")
    say("|---|" + "---|" * len(rates))
    for width, height in sizes:
        cells = []
        n = 200 if width * height <= 2500 else 40
        for d in rates:
            mines = int(d * (width * height - 9))
            rng = random.Random(f"{width}x{height}:{d}")
            protected = noguess.opening(width, height, width // 2, height // 2)
            population = [c for c in range(width * height) if c not in protected]
            ok = sum(
                noguess.solvable(
                    width, height, sorted(rng.sample(population, mines)), width // 2, height // 2
                )
                for _ in range(n)
            )
            cells.append(f"{ok / n:.2f}")
        say(f"| {width}x{height} (n={n}) | " + " | ".join(cells) + " |")


def uniformity(n: int) -> None:
    width, height, mines, at = 9, 9, 10, (4, 4)
    say(f"\n## Uniformity: Beginner, first tap (4, 4), {n} layouts each")
    ours = generator_layouts(width, height, mines, at, n, seed="bench-uniformity")
    reference = reference_layouts(width, height, mines, at, n, random.Random("bench-reference"))
    rng = random.Random("bench-classic")
    protected = noguess.opening(width, height, *at)
    population = [c for c in range(width * height) if c not in protected]
    classic = [sorted(rng.sample(population, mines)) for _ in range(n)]
    free = {c: 0 for c in CLASSES}
    for cell in population:
        free[cell_class(cell, width, height)] += 1
    say("| sampler | " + " | ".join(f"mines per {c} cell" for c in CLASSES) + " |")
    say("|---|---|---|---|")
    for name, layouts in (
        ("generator (ms-toollib check)", ours),
        ("reference (own solver check)", reference),
        ("uniform classic", classic),
    ):
        counts = class_counts(layouts, width, height)
        shares = [f"{k / (free[c] * n):.4f}" for k, c in zip(counts, CLASSES, strict=True)]
        say(f"| {name} | " + " | ".join(shares) + " |")
    a, b = class_counts(ours, width, height), class_counts(reference, width, height)
    stat, df, p = chi_square(a, b)
    say(f"\nchi-square generator vs reference: {stat:.2f} (df {df}), p = {p:.3f}")
    stat, df, p = chi_square(a, class_counts(classic, width, height))
    say(f"chi-square generator vs uniform classic: {stat:.2f} (df {df}), p = {p:.2g}")
    for name, layouts in (("generator", ours), ("reference", reference), ("classic", classic)):
        freq = cell_frequencies(layouts, width * height)
        say(f"\n{name}: mine frequency per cell (%), the opening shown as --")
        for y in range(height):
            row = []
            for x in range(width):
                c = y * width + x
                row.append(" --" if c in protected else f"{100 * freq[c]:3.0f}")
            say("    " + " ".join(row))


def main() -> None:
    parser = cli.parser(__doc__)
    parser.add_argument("--boards", type=int, default=300)
    parser.add_argument("--uniform-boards", type=int, default=4000)
    parser.add_argument("--parts", default="levels,densities,uniformity")
    args = parser.parse_args()
    parts = args.parts.split(",")
    say(f"python {sys.version.split()[0]}, ms-toollib {version('ms_toollib')}")
    if "levels" in parts:
        levels(args.boards)
    if "densities" in parts:
        densities()
    if "uniformity" in parts:
        uniformity(args.uniform_boards)


if __name__ == "__main__":
    main()
