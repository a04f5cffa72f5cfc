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

from games.play.models import Game, Move, Review
from tests.support import browser as support
from tests.support.boards import safe_cells
from tests.support.browser import CHROMIUM, browser, desktop, live, site  # noqa: F401  (fixtures)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed"),
    pytest.mark.filterwarnings("ignore:StreamingHttpResponse must consume"),
    pytest.mark.usefixtures("shipped_limits"),
]


def _hand_order() -> list[tuple[int, int]]:
    """The safe cells a hand opens after the first tap of the seeded Intermediate layout, each
    the nearest closed one to the last: worked out on the engine beforehand, so that the page
    is not read between two clicks (the clicks' own pace is the test's)."""
    board = support.layout_after_first_tap(16, 10, 25, 8, 5)
    order: list[tuple[int, int]] = []
    last = (8, 5)
    while closed := safe_cells(board):
        target = min(closed, key=lambda c: (abs(c[0] - last[0]) + abs(c[1] - last[1]), c))
        board.reveal(*target)
        order.append(target)
        last = target
    return order


def _play(page: Any, game_id: str, *, wait_for_answer: bool, gaps_ms: Any) -> list[int]:
    """Reveal every safe cell of the seeded Intermediate layout from the page, nearest first;
    returns the stored hand moves' intervals."""
    support.cell(page, 8, 5).click()
    expect(page.locator("#game")).to_have_attribute("data-state", "playing")
    # Where each cell is on the screen, read once (the board does not move): a mouse click
    # there costs one round trip, where a locator's click re-checks the cell every time.
    centres = {
        (x, y): (cx, cy)
        for x, y, cx, cy in page.eval_on_selector_all(
            "#board .cell",
            """cells => cells.map(c => { const r = c.getBoundingClientRect();
                return [+c.dataset.x, +c.dataset.y, r.x + r.width / 2, r.y + r.height / 2]; })""",
        )
    }
    for target in _hand_order():
        page.wait_for_timeout(next(gaps_ms))
        page.mouse.click(*centres[target])
        if wait_for_answer:  # a hand looks at what opened before the next move
            # checked every frame: expect() retries at 100 ms and more, slower than a hand
            page.wait_for_function(
                """([x, y]) => document.querySelector(
                    `#board .cell[data-x="${x}"][data-y="${y}"]`).dataset.v !== "#" """,
                arg=list(target),
                polling="raf",
            )
    expect(page.locator("#game")).to_have_attribute("data-state", "won")
    times = list(
        Move.objects.filter(game_id=game_id, action__in=("reveal", "flag", "chord"))
        .order_by("seq")
        .values_list("at_ms", flat=True)
    )
    return [b - a for a, b in itertools.pairwise(times)]


def test_a_hand_paced_game_on_the_page_is_not_held(desktop: Any) -> None:
    page, game_id = support.new_player_game(desktop, "hanna", "intermediate")
    # A quick hand's think times (80-260 ms, uneven): still inside a human's range
    # and above every shipped limit's threshold, at half the wall time of a slow hand's.
    rng = random.Random(5)
    gaps = iter(lambda: rng.randint(80, 260), None)
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
