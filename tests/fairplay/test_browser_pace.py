# ruff: noqa: F811  (the browser fixtures are imported from tests/support, then requested)
"""Play at a hand's pace through the real page (Chromium, the game's socket, the server's
clock) with the shipped limits: the flurry check must not take the transport's packing of
moves for a program. Local only: a real network's stalls are not reproduced here (the
limits in docs/FAIRPLAY.md say how the check allows for them)."""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest
from playwright.sync_api import expect

from games.models import Game, Move, Review
from tests.support import browser as support
from tests.support.boards import mines_of
from tests.support.browser import CHROMIUM, browser, desktop, live, site  # noqa: F401  (fixtures)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed"),
    pytest.mark.filterwarnings("ignore:StreamingHttpResponse must consume"),
    pytest.mark.usefixtures("shipped_limits"),
]


def _play(page: Any, game_id: str, *, wait_for_answer: bool, gaps_ms: Any) -> list[int]:
    """Reveal every safe cell of the seeded Intermediate layout from the page, nearest first;
    returns the stored hand moves' intervals."""
    support.cell(page, 8, 5).click()
    expect(page.locator("#game")).to_have_attribute("data-state", "playing")
    mines = mines_of(support.layout_after_first_tap(16, 10, 25, 8, 5))
    last = (8, 5)
    while True:
        shown = page.eval_on_selector_all(
            "#board .cell", "cells => cells.map(c => [+c.dataset.x, +c.dataset.y, c.dataset.v])"
        )
        closed = [(x, y) for x, y, v in shown if v == "#" and (x, y) not in mines]
        if not closed:
            break
        target = min(closed, key=lambda c: (abs(c[0] - last[0]) + abs(c[1] - last[1]), c))
        page.wait_for_timeout(next(gaps_ms))
        support.cell(page, *target).click()
        if wait_for_answer:  # a hand looks at what opened before the next move
            expect(support.cell(page, *target)).not_to_have_attribute("data-v", "#")
        last = target
    expect(page.locator("#game")).to_have_attribute("data-state", "won")
    times = list(
        Move.objects.filter(game_id=game_id, action__in=("reveal", "flag", "chord"))
        .order_by("seq")
        .values_list("at_ms", flat=True)
    )
    return [b - a for a, b in itertools.pairwise(times)]


def test_a_hand_paced_game_on_the_page_is_not_held(desktop: Any) -> None:
    page, game_id = support.new_player_game(desktop, "hanna", "intermediate")
    rng = random.Random(5)
    gaps = iter(lambda: rng.randint(120, 700), None)
    intervals = _play(page, game_id, wait_for_answer=True, gaps_ms=gaps)
    game = Game.objects.get(pk=game_id)
    assert len(intervals) >= 10
    assert (game.ranked, game.unranked_reason) == (True, None), Review.objects.first()


def test_a_fast_clicker_that_does_not_wait_for_answers_is_not_a_flurry(desktop: Any) -> None:
    # 60-90 ms between clicks without looking: faster than a hand keeps up, and the moves
    # travel on one socket one behind the other; they arrive spaced, not packed.
    page, game_id = support.new_player_game(desktop, "fiona", "intermediate")
    rng = random.Random(6)
    gaps = iter(lambda: rng.randint(60, 90), None)
    intervals = _play(page, game_id, wait_for_answer=False, gaps_ms=gaps)
    review = Review.objects.filter(game_id=game_id).first()
    checks = [f["check"] for f in review.findings] if review else []
    assert "flurry" not in checks, (checks, intervals)
