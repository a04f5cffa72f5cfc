"""API.md, "What is refused and what is a no-op": an accepted no-op takes a `seq` and changes
nothing, as any client sees it. The refusals and no-ops checked against what the server
stored, the replays and the order of `changes` on drawn layouts: tests/play/test_move_answers.py."""

from __future__ import annotations

import pytest

from tests.support.http import post, start

pytestmark = pytest.mark.django_db


def test_a_chord_on_a_zero_is_an_accepted_no_op(alice_api):
    game = start(alice_api)
    zero = next(
        (x, y) for y, row in enumerate(game["board"]) for x, ch in enumerate(row) if ch == "0"
    )
    answer = post(alice_api, game["id"], "chord", {"x": zero[0], "y": zero[1]}).json()
    assert (answer["seq"], answer["changes"]) == (2, [])
