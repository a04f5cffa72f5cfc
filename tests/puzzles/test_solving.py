"""Solving a puzzle (RULES.md, Puzzles, Solving; API.md, Puzzles): each opening must be of a cell
the numbers open at that moment prove safe; the first other opening fails, even a safe one; a
cell that became provable after openings is accepted; solved when every cell provable at the
start is open. And the refusals: 400 `out_of_bounds`, 409 `cell_open`, 409 `attempt_over`.

The puzzle is tests/support/puzzles.py's FLOW (safe at the start: (2, 0), (3, 1), (4, 1))."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from accounts.models import User
from accounts.scopes import ACCOUNT_READ, stored
from accounts.services import token_issue
from games.errors import GameError
from games.puzzles import services
from games.puzzles.models import Puzzle, PuzzleAttempt
from tests.support.http import assert_error
from tests.support.threads import at_once

pytestmark = pytest.mark.django_db


def _open(api: APIClient, puzzle: Puzzle, x: Any, y: Any) -> Any:
    return api.post(f"/api/puzzles/{puzzle.id}/open", {"x": x, "y": y}, format="json")


def test_a_safe_cell_no_number_proves_fails_the_attempt(alice_api: APIClient, flow: Puzzle) -> None:
    assert flow.layout[5] == "."  # (5, 0) holds no mine
    answer = _open(alice_api, flow, 5, 0)
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert body["correct"] is False
    attempt = body["puzzle"]["attempt"]
    assert attempt["state"] == "failed" and attempt["opened"] == []
    assert attempt["wrong"] == {"x": 5, "y": 0, "mine": False}
    assert {(c["x"], c["y"]) for c in body["puzzle"]["solution"]} == {(2, 0), (3, 1), (4, 1)}
    assert_error(_open(alice_api, flow, 2, 0), 409, "attempt_over")


def test_a_mine_fails_the_attempt(alice_api: APIClient, flow: Puzzle) -> None:
    body = _open(alice_api, flow, 4, 0).json()
    assert body["correct"] is False
    assert body["puzzle"]["attempt"]["wrong"] == {"x": 4, "y": 0, "mine": True}


def test_cells_provable_after_openings_count_and_the_start_set_solves(
    alice_api: APIClient, flow: Puzzle
) -> None:
    first = _open(alice_api, flow, 2, 0).json()
    assert first["correct"] is True
    attempt = first["puzzle"]["attempt"]
    assert attempt["state"] == "playing" and attempt["opened"] == [{"x": 2, "y": 0, "number": 1}]
    assert first["puzzle"]["board"][0][2] == "1"
    assert first["puzzle"]["solution"] is None and first["puzzle"]["source_game"] is None
    # (3, 0) was not provable at the start; the 1 just opened proves it
    second = _open(alice_api, flow, 3, 0).json()
    assert second["correct"] is True and second["puzzle"]["attempt"]["state"] == "playing"
    assert _open(alice_api, flow, 3, 1).json()["puzzle"]["attempt"]["state"] == "playing"
    last = _open(alice_api, flow, 4, 1).json()
    assert last["correct"] is True
    assert last["puzzle"]["attempt"]["state"] == "solved"
    assert last["puzzle"]["attempt"]["ended_at"] is not None
    # (5, 0) stays closed: the puzzle asks only for what the start proved
    assert last["puzzle"]["board"][0][5] == "#"


def test_the_attempt_starts_at_the_first_opening(alice_api: APIClient, flow: Puzzle) -> None:
    shown = alice_api.get(f"/api/puzzles/{flow.id}").json()
    assert shown["attempt"]["state"] == "playing" and shown["attempt"]["started_at"] is None
    assert Puzzle.objects.get(pk=flow.id).plays == 0
    _open(alice_api, flow, 2, 0)
    again = alice_api.get(f"/api/puzzles/{flow.id}").json()
    assert again["attempt"]["started_at"] is not None
    assert again["plays"] == 1


def test_refusals(alice_api: APIClient, flow: Puzzle, anon_api: APIClient, alice: User) -> None:
    assert_error(_open(alice_api, flow, 6, 0), 400, "out_of_bounds")
    assert_error(_open(alice_api, flow, -1, 0), 400, "out_of_bounds")
    for bad in ("2", 2.0, True, None):
        assert _open(alice_api, flow, bad, 0).status_code == 400
    assert_error(_open(alice_api, flow, 0, 0), 409, "cell_open")  # open from the start
    _open(alice_api, flow, 2, 0)
    assert_error(_open(alice_api, flow, 2, 0), 409, "cell_open")
    assert_error(_open(anon_api, flow, 3, 1), 401, "not_authenticated")
    reader = APIClient()
    reader.credentials(
        HTTP_AUTHORIZATION=f"Token {token_issue(user=alice, scopes=stored([ACCOUNT_READ]))[1]}"
    )
    assert_error(_open(reader, flow, 3, 1), 403, "missing_scope")
    assert_error(
        alice_api.post("/api/puzzles/nope/open", {"x": 0, "y": 0}, format="json"), 404, "not_found"
    )
    unknown = "00000000-0000-4000-8000-000000000000"
    assert_error(
        alice_api.post(f"/api/puzzles/{unknown}/open", {"x": 0, "y": 0}, format="json"),
        404,
        "not_found",
    )
    assert_error(alice_api.get(f"/api/puzzles/{unknown}"), 404, "not_found")
    # nothing refused was stored: still one opening, still playing
    attempt = PuzzleAttempt.objects.get(player=alice, puzzle=flow)
    assert attempt.state == "playing" and len(attempt.opened) == 1


def test_a_refused_opening_stores_no_attempt(alice_api: APIClient, flow: Puzzle) -> None:
    assert_error(_open(alice_api, flow, 0, 0), 409, "cell_open")
    assert PuzzleAttempt.objects.count() == 0


def test_a_later_attempt_is_practice(alice_api: APIClient, flow: Puzzle) -> None:
    _open(alice_api, flow, 4, 0)  # failed
    retried = alice_api.post(f"/api/puzzles/{flow.id}/retry")
    assert retried.status_code == 201
    attempt = retried.json()["attempt"]
    assert (
        attempt["state"] == "playing" and attempt["mode"] == "practice" and attempt["opened"] == []
    )
    assert retried.json()["solution"] is None  # the new attempt has not ended
    assert alice_api.post(f"/api/puzzles/{flow.id}/retry").status_code == 200  # the same one
    for x, y in ((2, 0), (3, 1), (4, 1)):
        body = _open(alice_api, flow, x, y).json()
    assert body["puzzle"]["attempt"]["state"] == "solved"
    assert body["puzzle"]["attempt"]["rated"] is False


@pytest.mark.django_db(transaction=True)
def test_openings_sent_at_once_count_once(alice: User) -> None:
    """Eight openings of the last cell at once, each in its own thread and connection: the
    player's row lock takes them one after the other, so one solves and the rest are refused;
    the rating moves once."""
    from tests.support import puzzles as drawings

    puzzle = drawings.store(drawings.FLOW)
    services.puzzle_open(puzzle_id=puzzle.id, player=alice, x=2, y=0)
    services.puzzle_open(puzzle_id=puzzle.id, player=alice, x=3, y=1)
    results: list[object] = []

    def open_last() -> None:
        try:
            results.append(
                services.puzzle_open(puzzle_id=puzzle.id, player=alice, x=4, y=1).correct
            )
        except GameError as refused:
            results.append(refused.code)

    at_once(8, open_last)
    assert sorted(map(str, results)) == ["True"] + ["attempt_over"] * 7
    attempt = PuzzleAttempt.objects.get(player=alice, puzzle=puzzle)
    assert attempt.state == "solved" and len(attempt.opened) == 3
    assert Puzzle.objects.get(pk=puzzle.pk).rated_plays == 1
