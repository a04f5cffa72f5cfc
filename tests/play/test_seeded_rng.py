"""The seam between the server's test seed and the tests that rebuild a layout from it: with
GAME_TEST_SEED set, the server places the mines with games.play.services.seeded_rng, so
tests.support.boards.layout_after_first_tap (used by the browser tests) draws the very board
the server stored. Without the seed the generator is the OS's, never a seeded one."""

from __future__ import annotations

import random

import pytest

from games.play import services
from games.play.models import Game
from tests.support.boards import layout, layout_after_first_tap, mines, mines_of
from tests.support.http import start


@pytest.mark.parametrize(
    ("level", "size", "tap"), [("beginner", (9, 9, 10), (4, 4)), ("expert", (30, 16, 60), (0, 0))]
)
def test_the_layout_rebuilt_from_the_seed_is_the_one_the_server_stored(
    alice_api, settings, level, size, tap
):
    settings.GAME_TEST_SEED = "seam-check"
    game = start(alice_api, level, at=tap)
    rebuilt = layout_after_first_tap("seam-check", *size, *tap)
    assert mines_of(rebuilt) == mines(game["id"])
    assert rebuilt.to_ascii() == layout(game["id"])


def test_the_same_seed_and_size_give_the_same_generator_and_another_size_another():
    draws = [services.seeded_rng("s", 9, 9, 10).random() for _ in range(2)]
    assert draws[0] == draws[1]
    assert services.seeded_rng("s", 9, 9, 11).random() != draws[0]
    assert services.seeded_rng("t", 9, 9, 10).random() != draws[0]


def test_without_the_test_seed_the_mines_come_from_the_system_generator(settings):
    settings.GAME_TEST_SEED = ""
    game = Game(width=9, height=9, mines=10)
    assert isinstance(services._rng_for(game), random.SystemRandom)
