"""The proof of no-guess boards (docs/NOGUESS.md, "How it is tested"): for every level,
500 no-guess games dealt by the server, seeded, each replayed by an independent solver
(tests/support/deduction.py: exact deduction on the frontier, numbers only, never the count of
mines left; it shares no code with ms-toollib, the generator's checker) from the recorded
opening: not one needs a guess.

The 500 go through the API's service layer: games.play.services.no_guess_layout, the very call
the first tap of POST .../reveal makes (seeded by GAME_TEST_SEED, through the generator's
process pool), with the first tap at a seeded random cell, and the engine placing the layout as
that tap does. NOGUESS_HTTP_BOARDS games per level (3 by default) also go the whole way through
HTTP (POST /api/games, the reveal, /moves for the recorded opening). 500 x 6 through HTTP takes
minutes: `make test-noguess` runs that long form (NOGUESS_HTTP_BOARDS=500).
Marathon's 500 are the longest (3,200 cells each, solved in Python): each level's 500 are
solved in five tests of 100, which the suite's workers share, and one more test deals the
500 again to check they all differ (500 is the number docs/NOGUESS.md states)."""

from __future__ import annotations

import os
import random

import pytest

from games.engine import LEVELS, Board
from games.play import noguess, services
from tests.support.deduction import solve
from tests.support.http import post
from tests.support.noguess import layout_and_opening, mine_indexes

pytestmark = pytest.mark.django_db

BOARDS = 500
# The 500 of a level are solved in PARTS tests of 100 (board n in part n % PARTS), so that the
# suite's workers share them; one more test per level deals all 500 and checks they differ.
PARTS = 5
HTTP_BOARDS = int(os.environ.get("NOGUESS_HTTP_BOARDS", "3"))


def _layout(settings, level: str, n: int, x: int, y: int) -> list[int]:
    """Board n of `level` as the first tap at (x, y) deals it, accepted by the engine as that
    tap's layout, its opening free of mines."""
    spec = LEVELS[level]
    # One seed per board: the seeded generator would deal the same board to the same tap.
    settings.GAME_TEST_SEED = f"no-guess-500-{level}-{n}"
    layout = services.no_guess_layout(
        width=spec.width, height=spec.height, mines=spec.mines, x=x, y=y
    )
    assert layout is not None, "no no-guess board found within the budget"
    board = Board.new(spec.width, spec.height, spec.mines)
    board.reveal(x, y, layout=layout)  # the engine accepts it as the first tap's layout
    mines = mine_indexes(board)
    assert mines == layout and not set(mines) & noguess.opening(spec.width, spec.height, x, y)
    return mines


@pytest.mark.parametrize("part", range(PARTS))
@pytest.mark.parametrize("level", list(LEVELS))
def test_500_no_guess_boards_of_each_level_need_no_guess(settings, level, part):
    spec = LEVELS[level]
    taps = random.Random(level)
    needed_guess = []
    for n in range(BOARDS):
        x, y = taps.randrange(spec.width), taps.randrange(spec.height)
        if n % PARTS != part:
            continue
        mines = _layout(settings, level, n, x, y)
        if not solve(spec.width, spec.height, mines, (x, y)).cleared:
            needed_guess.append((n, x, y))
    assert needed_guess == []


@pytest.mark.parametrize("level", list(LEVELS))
def test_the_500_boards_of_each_level_all_differ(settings, level):
    spec = LEVELS[level]
    taps = random.Random(level)
    seen = set()
    for n in range(BOARDS):
        x, y = taps.randrange(spec.width), taps.randrange(spec.height)
        seen.add(tuple(_layout(settings, level, n, x, y)))
    assert len(seen) == BOARDS  # 500 different boards


@pytest.mark.parametrize("level", list(LEVELS))
def test_no_guess_games_dealt_through_http_need_no_guess(alice_api, settings, level):
    spec = LEVELS[level]
    taps = random.Random(f"http-{level}")
    seen = set()
    for n in range(HTTP_BOARDS):
        settings.GAME_TEST_SEED = f"no-guess-http-{level}-{n}"  # one seed, one board
        created = alice_api.post("/api/games", {"level": level, "no_guess": True}, format="json")
        assert created.status_code == 201 and created.json()["no_guess"] is True
        at = {"x": taps.randrange(spec.width), "y": taps.randrange(spec.height)}
        tapped = post(alice_api, created.json()["id"], "reveal", at)
        assert tapped.status_code == 200 and tapped.json()["game"]["no_guess"] is True
        moves = alice_api.get(f"/api/games/{created.json()['id']}/moves").json()["results"]
        assert (moves[0]["x"], moves[0]["y"]) == (at["x"], at["y"])
        _, mines, opening = layout_and_opening(created.json()["id"])
        assert opening == (at["x"], at["y"])
        assert solve(spec.width, spec.height, mines, opening).cleared
        seen.add(tuple(mines))
    assert len(seen) == HTTP_BOARDS


def test_the_seeded_generator_deals_the_same_board_again_and_another_for_another_seed(settings):
    settings.GAME_TEST_SEED = "again"
    first = services.no_guess_layout(width=30, height=16, mines=60, x=3, y=3)
    assert first == services.no_guess_layout(width=30, height=16, mines=60, x=3, y=3)
    settings.GAME_TEST_SEED = "another"
    assert first != services.no_guess_layout(width=30, height=16, mines=60, x=3, y=3)
