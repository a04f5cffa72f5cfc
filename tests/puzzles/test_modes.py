"""The modes (RULES.md, Puzzles, Modes; docs/PUZZLES.md): the next puzzle near one's rating, the
puzzle of the day (the same for everyone), the streak (rising difficulty, no clock, the first
failure ends it) and the storm (three minutes on the server's clock from its first opening, a
failure costs ten seconds). The storm's clock is moved by moving its stored start, never by
sleeping."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import User
from accounts.services import guest_create
from games.puzzles import rules, services
from games.puzzles.models import Puzzle, PuzzleOfTheDay, PuzzleRating, PuzzleRun
from tests.support import puzzles as drawings
from tests.support.http import assert_error

pytestmark = pytest.mark.django_db


def _solve(api: APIClient, puzzle: dict[str, Any]) -> dict[str, Any]:
    """Open every cell of the puzzle's answer (the stored one: the test knows it)."""
    stored = Puzzle.objects.get(pk=puzzle["id"])
    answer: dict[str, Any] = {}
    for x, y in drawings.solution_cells(stored):
        if (answer.get("puzzle") or puzzle)["board"][y][x] == "#":
            answer = api.post(
                f"/api/puzzles/{stored.id}/open", {"x": x, "y": y}, format="json"
            ).json()
            assert answer["correct"] is True, answer
    assert answer["puzzle"]["attempt"]["state"] == "solved"
    return answer


def _fail(api: APIClient, puzzle: dict[str, Any]) -> dict[str, Any]:
    stored = Puzzle.objects.get(pk=puzzle["id"])
    x, y = drawings.a_mine(stored)
    answer = api.post(f"/api/puzzles/{stored.id}/open", {"x": x, "y": y}, format="json").json()
    assert answer["correct"] is False
    return answer


# --- the next puzzle ---------------------------------------------------------------------------


def test_next_is_near_the_rating_untried_and_kept_until_played(
    alice_api: APIClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(services, "CHOOSE_AMONG", 1)  # the nearest, not one of the five nearest
    near, far, other = drawings.generated(3, ratings=[1520.0, 2300.0, 1400.0])
    assert far.rating > other.rating
    first = alice_api.get("/api/puzzles/next").json()
    assert first["id"] == str(near.id) and first["attempt"]["started_at"] is None
    assert alice_api.get("/api/puzzles/next").json()["id"] == str(near.id)  # until it is played
    _solve(alice_api, first)
    after = alice_api.get("/api/puzzles/next").json()
    assert after["id"] in (str(far.id), str(other.id))  # tried: never again


def test_next_filters_by_theme(alice_api: APIClient) -> None:
    subset = drawings.store(drawings.SUBSET)
    drawings.store(drawings.CHAIN)
    got = alice_api.get("/api/puzzles/next?theme=subset").json()
    assert got["id"] == str(subset.id) and "subset" in got["themes"]
    assert alice_api.get("/api/puzzles/next?theme=chain").json()["themes"] == ["chain"]
    assert_error(alice_api.get("/api/puzzles/next?theme=pattern"), 404, "not_found")
    assert_error(alice_api.get("/api/puzzles/next?theme=nope"), 400, "invalid")


def test_next_needs_a_player_guests_included(anon_api: APIClient) -> None:
    drawings.store(drawings.SUBSET)
    assert_error(anon_api.get("/api/puzzles/next"), 401, "not_authenticated")
    browser = Client()
    browser.force_login(guest_create())  # a guest's browser session
    assert browser.get("/api/puzzles/next").status_code == 200


# --- the puzzle of the day ---------------------------------------------------------------------


def test_the_daily_is_the_same_for_everyone_and_drawn_once(
    alice_api: APIClient, bob_api: APIClient, anon_api: APIClient
) -> None:
    puzzles = drawings.generated(4)
    well_played = puzzles[2]
    Puzzle.objects.filter(pk=well_played.pk).update(rated_plays=40, deviation=150.0)
    a, b, anyone = (api.get("/api/puzzles/daily").json() for api in (alice_api, bob_api, anon_api))
    assert a["id"] == b["id"] == anyone["id"] == str(well_played.id)
    assert a["daily"] == services.day_of(services.timezone.now()).isoformat()
    assert a["attempt"]["mode"] == "daily" and anyone["attempt"] is None
    assert PuzzleOfTheDay.objects.count() == 1
    Puzzle.objects.filter(pk=puzzles[0].pk).update(rated_plays=90, deviation=100.0)
    assert bob_api.get("/api/puzzles/daily").json()["id"] == str(well_played.id)  # kept all day
    _solve(alice_api, a)
    assert PuzzleRating.objects.get(player__username="alice").rated_attempts == 1  # rated


def test_the_daily_draw_depends_only_on_the_day() -> None:
    drawings.generated(6)
    now = services.timezone.now()
    first = services.puzzle_of_the_day(now=now).puzzle_id
    PuzzleOfTheDay.objects.all().delete()
    assert services.puzzle_of_the_day(now=now).puzzle_id == first
    tomorrow = services.puzzle_of_the_day(now=now + timedelta(days=1)).puzzle_id
    assert tomorrow != first  # a puzzle is the puzzle of one day only


def test_no_daily_without_puzzles(anon_api: APIClient) -> None:
    assert_error(anon_api.get("/api/puzzles/daily"), 404, "not_found")


# --- the streak --------------------------------------------------------------------------------


def test_the_streak_rises_and_ends_at_the_first_failure(
    alice: User, alice_api: APIClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(services, "CHOOSE_AMONG", 1)
    ratings = [rules.run_target(rules.STREAK, i) for i in range(4)]
    made = drawings.generated(4, ratings=ratings[::-1])  # stored hardest first
    by_rating = {p.rating: str(p.id) for p in made}
    started = alice_api.post("/api/puzzles/streak")
    assert started.status_code == 201
    run = started.json()
    assert run["kind"] == "streak" and run["state"] == "running" and run["ends_at"] is None
    assert run["puzzle"]["id"] == by_rating[ratings[0]]  # the easiest first
    answer = _solve(alice_api, run["puzzle"])
    assert answer["run"]["score"] == 1 and answer["run"]["state"] == "running"
    assert answer["run"]["puzzle"]["id"] == by_rating[ratings[1]]  # then harder
    answer = _solve(alice_api, answer["run"]["puzzle"])
    failed = _fail(alice_api, answer["run"]["puzzle"])
    assert failed["run"]["state"] == "ended" and failed["run"]["score"] == 2
    assert failed["run"]["puzzle"] is None
    assert [p["state"] for p in failed["run"]["puzzles"]] == ["solved", "solved", "failed"]
    assert PuzzleRating.objects.get(player=alice).best_streak == 2
    assert alice_api.get("/api/puzzles/streak").json()["id"] == run["id"]
    # streak attempts are not rated
    assert PuzzleRating.objects.get(player=alice).rated_attempts == 0
    board = alice_api.get("/api/leaderboards/puzzles/streak").json()
    assert [(r["rank"], r["player"], r["best_streak"]) for r in board["results"]] == [
        (1, "alice", 2)
    ]
    # a new streak starts from nothing; the best stays
    again = alice_api.post("/api/puzzles/streak").json()
    assert again["id"] != run["id"] and again["score"] == 0 and again["best"] == 2


def test_a_new_streak_ends_the_running_one(alice: User, alice_api: APIClient) -> None:
    drawings.generated(3)
    first = alice_api.post("/api/puzzles/streak").json()
    _solve(alice_api, first["puzzle"])
    second = alice_api.post("/api/puzzles/streak").json()
    old = PuzzleRun.objects.get(pk=first["id"])
    assert not old.running and old.score == 1
    assert second["state"] == "running"
    assert_error(alice_api.get("/api/puzzles/storm"), 404, "not_found")


# --- the storm ---------------------------------------------------------------------------------


def _back(run_id: str, seconds: float) -> None:
    """Move the storm's stored start back: its clock is the server's, read from the row."""
    run = PuzzleRun.objects.get(pk=run_id)
    assert run.started_at is not None
    PuzzleRun.objects.filter(pk=run_id).update(
        started_at=run.started_at - timedelta(seconds=seconds)
    )


def test_the_storm_runs_three_minutes_from_its_first_opening(
    alice: User, alice_api: APIClient
) -> None:
    drawings.generated(5)
    run = alice_api.post("/api/puzzles/storm").json()
    assert (
        run["started_at"] is None and run["time_left_ms"] == 180_000
    )  # not before the first opening
    answer = _solve(alice_api, run["puzzle"])
    run = answer["run"]
    assert run["started_at"] is not None and run["score"] == 1
    assert 170_000 < run["time_left_ms"] <= 180_000
    # a failure costs ten seconds, and the storm goes on
    failed = _fail(alice_api, run["puzzle"])["run"]
    assert failed["state"] == "running" and failed["failures"] == 1
    assert failed["time_left_ms"] <= 170_000 and failed["penalty_ms"] == 10_000
    # two minutes and fifty seconds later, the time is up (ten seconds went on the failure)
    _back(run["id"], 171)
    late = alice_api.post(
        f"/api/puzzles/{failed['puzzle']['id']}/open",
        {
            "x": drawings.solution_cells(Puzzle.objects.get(pk=failed["puzzle"]["id"]))[0][0],
            "y": drawings.solution_cells(Puzzle.objects.get(pk=failed["puzzle"]["id"]))[0][1],
        },
        format="json",
    )
    assert_error(late, 409, "attempt_over")
    over = alice_api.get("/api/puzzles/storm").json()
    assert over["state"] == "ended" and over["score"] == 1 and over["puzzle"] is None
    assert over["time_left_ms"] is None
    row = PuzzleRating.objects.get(player=alice)
    assert row.best_storm == 1 and row.rated_attempts == 0


def test_a_storm_left_alone_ends_when_read(alice: User, alice_api: APIClient) -> None:
    drawings.generated(3)
    run = alice_api.post("/api/puzzles/storm").json()
    _solve(alice_api, run["puzzle"])
    _back(run["id"], 181)
    assert alice_api.get("/api/puzzles/storm").json()["state"] == "ended"


def test_the_storm_boards_of_the_day_and_of_all_time(
    alice_api: APIClient, bob_api: APIClient
) -> None:
    drawings.generated(6)
    for api, solves in ((alice_api, 1), (bob_api, 2)):
        run = api.post("/api/puzzles/storm").json()
        puzzle = run["puzzle"]
        for _ in range(solves):
            puzzle = _solve(api, puzzle)["run"]["puzzle"]
    day = alice_api.get("/api/leaderboards/puzzles/storm?period=day").json()
    assert [(r["rank"], r["player"], r["score"]) for r in day["results"]] == [
        (1, "bob", 2),
        (2, "alice", 1),
    ]
    assert day["me"]["player"] == "alice" and day["me"]["rank"] == 2
    ever = alice_api.get("/api/leaderboards/puzzles/storm").json()
    assert [r["player"] for r in ever["results"]] == ["bob", "alice"]
    assert (
        alice_api.get("/api/leaderboards/puzzles/storm?period=day&date=2001-01-01").json()["count"]
        == 0
    )
    assert_error(
        alice_api.get("/api/leaderboards/puzzles/storm?period=week"), 400, "invalid_period"
    )
    assert_error(
        alice_api.get("/api/leaderboards/puzzles/storm?period=day&date=soon"), 400, "invalid"
    )
