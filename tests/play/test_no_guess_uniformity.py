"""RULES.md, No-guess boards: mines stay uniformly random among no-guess boards. The server's
layouts (games.play.noguess: uniform draws kept when ms-toollib clears them) against exact
rejection sampling checked by the independent solver (tests/support/uniformity.py): where the
mines fall -- corners, edges, interior -- does not differ beyond chance (docs/NOGUESS.md,
"Uniformity", has the figure from bench/noguess)."""

from __future__ import annotations

import random

from tests.support.deduction import solve
from tests.support.uniformity import (
    chi_square,
    class_counts,
    generator_layouts,
    reference_layouts,
)

# Beginner, first tap in the middle: on the smallest board the rim is the largest share of
# cells, so a generator that preferred easy (or hard) corners would show most here.
WIDTH, HEIGHT, MINES, AT = 9, 9, 10, (4, 4)
N = 1500


def test_no_guess_mines_fall_on_corners_edges_and_interior_as_exact_rejection_sampling_puts_them():
    ours = generator_layouts(WIDTH, HEIGHT, MINES, AT, N, seed="uniformity")
    reference = reference_layouts(WIDTH, HEIGHT, MINES, AT, N, random.Random("uniformity"))
    assert all(solve(WIDTH, HEIGHT, layout, AT).cleared for layout in ours[:200])
    a, b = class_counts(ours, WIDTH, HEIGHT), class_counts(reference, WIDTH, HEIGHT)
    stat, df, p = chi_square(a, b)
    assert df == 2
    # p < 0.001 would be a visible bias: with these seeds the statistic is far from it.
    assert p > 0.001, (a, b, stat, p)


def test_the_chi_square_test_sees_a_biased_sampler():
    """The test can fail: a sampler that avoids the corners is caught."""
    ours = generator_layouts(WIDTH, HEIGHT, MINES, AT, N, seed="uniformity")
    corners = {0, WIDTH - 1, WIDTH * (HEIGHT - 1), WIDTH * HEIGHT - 1}
    biased = [layout for layout in ours if not corners & set(layout)]
    a, b = class_counts(ours, WIDTH, HEIGHT), class_counts(biased, WIDTH, HEIGHT)
    assert chi_square(a, b)[2] < 0.001
