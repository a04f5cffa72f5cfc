"""Puzzles in machine time (docs/FAIRPLAY.md, Puzzles in machine time): an attempt whose first
opening comes faster than a human reads the board, and every later one faster than a hand
clicks, moves no rating; after a few of them a human account's puzzle rating is held (off the
board, moving nothing) until staff clear it. Bots are never held. The suite's settings turn the
check off (machine-speed tests); these tests put the shipped limits back, and drive the server's
clock through the services' `now`."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from accounts.models import AccountKind, User
from games.puzzles import rules, services
from games.puzzles.models import Puzzle, PuzzleAttempt, PuzzleRating
from tests.support import puzzles as drawings
from tests.support.personas import client_for

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def shipped_limits(settings: Any) -> None:
    settings.PUZZLE_MIN_THINK_MS = 500
    settings.PUZZLE_MIN_GAP_MS = 100
    settings.PUZZLE_HOLD_AFTER = 3


def _play(player: User, puzzle: Puzzle, *, think_ms: int, gap_ms: int) -> PuzzleAttempt:
    """Show the puzzle, wait `think_ms`, then open its answer `gap_ms` apart."""
    at: datetime = timezone.now()
    services.puzzle_show(puzzle=puzzle, player=player, now=at)
    at += timedelta(milliseconds=think_ms)
    for x, y in drawings.solution_cells(puzzle):
        attempt = services.latest_attempt(player, puzzle)
        assert attempt is not None
        if services.current_view(puzzle, attempt)[y * puzzle.width + x] == "#":
            services.puzzle_open(puzzle_id=puzzle.id, player=player, x=x, y=y, now=at)
            at += timedelta(milliseconds=gap_ms)
    attempt = services.latest_attempt(player, puzzle)
    assert attempt is not None and attempt.state == "solved"
    return attempt


def test_the_rule() -> None:
    limits = {"min_think_ms": 500, "min_gap_ms": 100}
    assert rules.machine_paced(30, [5, 8], **limits)
    assert rules.machine_paced(None, [], **limits)  # opened without being shown
    assert not rules.machine_paced(2000, [5, 8], **limits)  # read first: a human
    assert not rules.machine_paced(30, [5, 400], **limits)  # one opening at a hand's pace
    assert not rules.machine_paced(30, [], min_think_ms=0, min_gap_ms=0)  # the check off


def test_a_human_pace_is_rated(alice: User) -> None:
    puzzle = drawings.generated(1)[0]
    attempt = _play(alice, puzzle, think_ms=4000, gap_ms=700)
    assert attempt.rated and not attempt.machine


def test_machine_time_moves_nothing_and_holds_the_account(alice: User) -> None:
    puzzles = drawings.generated(5)
    before = {p.pk: (p.rating, p.deviation) for p in puzzles}
    for puzzle in puzzles[:3]:
        attempt = _play(alice, puzzle, think_ms=40, gap_ms=10)
        assert attempt.machine and not attempt.rated
    row = PuzzleRating.objects.get(player=alice)
    assert (row.rating, row.rated_attempts) == (1500.0, 0)
    for puzzle in Puzzle.objects.filter(pk__in=[p.pk for p in puzzles[:3]]):
        assert (puzzle.rating, puzzle.deviation) == before[puzzle.pk]
    assert row.held and row.machine_attempts == 3
    # held: even a human pace now moves nothing, and the account is off the board
    attempt = _play(alice, puzzles[3], think_ms=5000, gap_ms=900)
    assert not attempt.rated
    assert client_for(alice).get("/api/puzzles/dashboard").json()["held"] is True
    assert client_for(alice).get("/api/leaderboards/puzzles").json()["results"] == []
    # staff clear it: the next attempt is rated again
    services.hold_clear(player=alice)
    assert _play(alice, puzzles[4], think_ms=5000, gap_ms=900).rated


def test_bots_are_never_held(db: Any) -> None:
    robot = User.objects.create_user(username="robot", kind=AccountKind.BOT)
    for puzzle in drawings.generated(4):
        attempt = _play(robot, puzzle, think_ms=1, gap_ms=1)
        assert (
            attempt.rated and not attempt.machine
        )  # on the bots' own board, where speed is the point
    assert not PuzzleRating.objects.get(player=robot).held


def test_staff_clear_a_hold_in_the_admin(alice: User) -> None:
    staff = User.objects.create_user(username="referee", is_staff=True, is_superuser=True)
    for puzzle in drawings.generated(3):
        _play(alice, puzzle, think_ms=40, gap_ms=10)
    row = PuzzleRating.objects.get(player=alice)
    assert row.held
    site = Client()
    site.force_login(staff)
    assert "alice" in site.get("/admin/games/puzzlerating/?held__exact=1").content.decode()
    done = site.post(
        "/admin/games/puzzlerating/",
        {"action": "clear_holds", "_selected_action": [str(row.pk)]},
    )
    assert done.status_code == 302
    row.refresh_from_db()
    assert not row.held and row.machine_attempts == 0
