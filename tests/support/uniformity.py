"""Where the mines of no-guess layouts fall, against a reference sampler (docs/NOGUESS.md,
"Uniformity"): the reference draws uniform layouts outside the opening and keeps those that the
independent solver (tests/support/deduction.py) clears, i.e. exact rejection sampling, so every
no-guess board is equally likely in it by construction. Shared by the test and bench/noguess."""

from __future__ import annotations

import math
import random
from collections.abc import Iterable

from games.play import noguess
from tests.support.deduction import solve

CLASSES = ("corner", "edge", "interior")


def cell_class(cell: int, width: int, height: int) -> str:
    x, y = cell % width, cell // width
    on_x, on_y = x in (0, width - 1), y in (0, height - 1)
    return "corner" if on_x and on_y else "edge" if on_x or on_y else "interior"


def reference_layouts(
    width: int, height: int, mines: int, at: tuple[int, int], n: int, rng: random.Random
) -> list[list[int]]:
    """`n` layouts accepted by rejection sampling from uniform ones, checked by our solver."""
    protected = noguess.opening(width, height, *at)
    population = [c for c in range(width * height) if c not in protected]
    out: list[list[int]] = []
    while len(out) < n:
        cells = sorted(rng.sample(population, mines))
        if solve(width, height, cells, at).cleared:
            out.append(cells)
    return out


def generator_layouts(
    width: int, height: int, mines: int, at: tuple[int, int], n: int, seed: str
) -> list[list[int]]:
    """`n` layouts of the server's generator (games.play.noguess.search), seeded."""
    out = []
    for i in range(n):
        found, _ = noguess.search(noguess.LayoutAsk(width, height, mines, *at, f"{seed}:{i}"))
        assert found is not None
        out.append(found)
    return out


def class_counts(layouts: Iterable[list[int]], width: int, height: int) -> list[int]:
    counts = dict.fromkeys(CLASSES, 0)
    for layout in layouts:
        for cell in layout:
            counts[cell_class(cell, width, height)] += 1
    return [counts[c] for c in CLASSES]


def chi_square(a: list[int], b: list[int]) -> tuple[float, int, float]:
    """Pearson's chi-square test of homogeneity of two count vectors: (statistic, degrees of
    freedom, p-value). The p-value is exact for 2 degrees of freedom (exp(-x/2)) and from the
    Wilson-Hilferty approximation otherwise."""
    total_a, total_b = sum(a), sum(b)
    total = total_a + total_b
    stat = 0.0
    for ca, cb in zip(a, b, strict=True):
        column = ca + cb
        for observed, row in ((ca, total_a), (cb, total_b)):
            expected = row * column / total
            stat += (observed - expected) ** 2 / expected
    df = len(a) - 1
    return stat, df, _survival(stat, df)


def _survival(x: float, df: int) -> float:
    if df == 2:
        return math.exp(-x / 2)
    z = ((x / df) ** (1 / 3) - (1 - 2 / (9 * df))) / math.sqrt(2 / (9 * df))
    return 0.5 * math.erfc(z / math.sqrt(2))


def cell_frequencies(layouts: list[list[int]], cells: int) -> list[float]:
    """Each cell's share of layouts holding a mine there."""
    counts = [0] * cells
    for layout in layouts:
        for c in layout:
            counts[c] += 1
    return [n / len(layouts) for n in counts]
