"""The generator (games/puzzles/generator.py; docs/PUZZLES.md, The generator): puzzles from the
moments a player missed a deduction and from deductions of more than one number, kept only when
exact, not trivial and new up to symmetry; never from a game still sealed (a race or a daily
still being played); made after the analysis, off the request path, and by the back-fill."""

from __future__ import annotations

import io
import random
from typing import Any

import ms_toollib
import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from games.engine import Board
from games.play.analysis_jobs import AnalysisWorker
from games.play.models import Game
from games.puzzles import generator, positions
from games.puzzles.models import Puzzle, PuzzleSource
from tests.support import puzzles as drawings
from tests.support.boards import game_from_ascii
from tests.support.http import post

# The first tap at (0, 0) opens all but the bottom row's right part: the position of
# tests/support/puzzles.py's SUBSET, where (3, 4) and (5, 4) are provably safe.
LAYOUT = [
    "......",
    "......",
    "......",
    "......",
    "..*.*.",
]
GUESS = [(0, 0), (2, 4)]  # a mine, with two safe cells provable: an avoidable guess
DEDUCE = [(0, 0), (5, 4), (3, 4)]  # (5, 4) takes two numbers: a deduction worth a puzzle


def _play(api: APIClient, taps: list[tuple[int, int]]) -> str:
    game = game_from_ascii(api, LAYOUT)
    for x, y in taps:
        answer = post(api, game["id"], "reveal", {"x": x, "y": y})
        assert answer.status_code == 200, answer.content
    return str(game["id"])


@pytest.mark.django_db
def test_an_avoidable_guess_becomes_a_puzzle_after_the_analysis(alice_api: APIClient) -> None:
    game_id = _play(alice_api, GUESS)
    assert Puzzle.objects.count() == 0  # nothing on the request path
    assert AnalysisWorker().run_once() == 1
    puzzle = Puzzle.objects.get()
    expected = drawings.drawn(drawings.SUBSET)
    assert puzzle.view == expected.view and puzzle.mines == 2
    assert expected.xy(puzzle.solution) == {(3, 4), (5, 4)}
    assert str(puzzle.source_game_id) == game_id and puzzle.source_seq == 2
    assert puzzle.origin == generator.ORIGIN_GUESS and puzzle.theme == "subset"
    assert puzzle.layout == "".join(LAYOUT).replace("o", ".")
    assert PuzzleSource.objects.get(game_id=game_id).puzzles == 1


@pytest.mark.django_db
def test_the_same_position_from_another_game_is_not_kept_twice(alice_api: APIClient) -> None:
    first = _play(alice_api, GUESS)
    second = _play(alice_api, DEDUCE)
    assert generator.generate_for_game(first) == 1
    specs = generator.specs_for_game(Game.objects.get(pk=second))
    assert [s.origin for s in specs] == [generator.ORIGIN_DEDUCTION]  # found again...
    assert generator.generate_for_game(second) == 0  # ...and refused: the same key
    assert Puzzle.objects.count() == 1
    assert PuzzleSource.objects.get(game_id=second).candidates == 1
    assert generator.generate_for_game(first) == 0  # each game is looked at once


@pytest.mark.django_db
def test_a_sealed_game_is_never_read(alice_api: APIClient) -> None:
    """A race or daily game is sealed while its race or day runs (games.play.models.Game)."""
    game_id = _play(alice_api, GUESS)
    Game.objects.filter(pk=game_id).update(sealed=True)
    assert generator.generate_for_game(game_id) == 0
    assert not PuzzleSource.objects.exists()
    assert list(generator.backlog()) == []
    Game.objects.filter(pk=game_id).update(sealed=False)  # the race, or the day, is over
    assert generator.generate_for_game(game_id) == 1


@pytest.mark.django_db
def test_a_game_still_running_is_never_read(alice_api: APIClient) -> None:
    game = game_from_ascii(alice_api, LAYOUT)
    post(alice_api, game["id"], "reveal", {"x": 0, "y": 0})
    assert generator.generate_for_game(game["id"]) == 0
    assert list(generator.backlog()) == []


@pytest.mark.django_db
def test_the_backfill_looks_at_each_stored_game_once(alice_api: APIClient) -> None:
    _play(alice_api, GUESS)
    out, err = io.StringIO(), io.StringIO()
    call_command("backfill_puzzles", stdout=out, stderr=err)
    assert "1 games looked at, 1 new puzzles" in out.getvalue()
    assert "custom" in out.getvalue() and "subset" in out.getvalue()
    assert "100.0%" in err.getvalue()  # the progress bar
    again = io.StringIO()
    call_command("backfill_puzzles", "--quiet", stdout=again)
    assert "0 games looked at, 0 new puzzles" in again.getvalue()


def test_a_game_without_a_move_log_gives_the_position_before_its_losing_tap() -> None:
    """Seeded demo games keep no moves: their last position is still what the player saw."""
    rows = ["oooooo", "oooooo", "oooooo", "oooooo", "ooX.*."]
    spec = generator.last_position(Board.from_ascii(rows))
    assert spec is not None and spec.origin == generator.ORIGIN_LAST and spec.seq == 0
    assert spec.view == drawings.drawn(drawings.SUBSET).view
    won = Board.from_ascii(["oooooo", "oooooo", "oooooo", "oooooo", "oo*o*o"])
    assert generator.last_position(won) is None


def test_trivial_positions_are_not_kept() -> None:
    d = drawings.drawn(drawings.TRIVIAL)
    assert generator.judge(d.width, d.height, d.mines, d.view, seq=3, origin="x") is None
    kept = drawings.drawn(drawings.SINGLE)
    assert generator.judge(kept.width, kept.height, kept.mines, kept.view, seq=3, origin="x")


def _toollib_safe(spec: generator.PuzzleSpec) -> set[int]:
    w = spec.width
    grid = [
        [
            10 if spec.view[y * w + x] == positions.CLOSED else int(spec.view[y * w + x])
            for x in range(w)
        ]
        for y in range(spec.height)
    ]
    probs, _ = ms_toollib.cal_probability_onboard(grid, float(spec.mines))
    return {
        y * w + x
        for y in range(spec.height)
        for x in range(w)
        if spec.view[y * w + x] == positions.CLOSED and probs[y][x] == 0.0
    }


def test_the_answers_agree_with_ms_toollib_on_500_generated_puzzles() -> None:
    """The generator's answer to each puzzle (its cells provably safe) is exactly the set of
    cells ms-toollib's own enumeration gives a chance of 0, on 500 puzzles from games a quick
    player played to the end on Beginner and Intermediate boards (about 6 s of CPU: 775 games,
    the generator's positions, ms-toollib's answers; no time is asserted)."""
    rng = random.Random(2026)
    specs: list[generator.PuzzleSpec] = []
    while len(specs) < 500:
        size = rng.choice([(9, 9, 10), (16, 10, 25)])
        layout, moves = drawings.quick_game(*size, rng)
        specs += generator.candidates(width=size[0], height=size[1], layout=layout, moves=moves)
    disagree: list[Any] = [s for s in specs[:500] if _toollib_safe(s) != set(s.solution)]
    assert disagree == []
    assert all(s.solution and len(s.solution) <= generator.MAX_SOLUTION for s in specs)
    themes = {t for s in specs for t in s.themes}
    assert themes >= {"subset", "pattern", "chain", "mines_left"}
