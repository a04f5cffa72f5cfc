"""Puzzle ratings (RULES.md, Puzzles, Ratings; docs/PUZZLES.md, Ratings): a player's first attempt
at a puzzle moves both ratings as openskill's Plackett-Luce says (a solve is a win for the
solver), later attempts are practice; bots' and guests' attempts move their own rating and never
a puzzle's; new ratings are provisional; the board lists rated humans, bots apart."""

from __future__ import annotations

import pytest
from openskill.models import PlackettLuce
from rest_framework.test import APIClient

from accounts.models import AccountKind, User
from accounts.services import guest_create
from games.puzzles import services
from games.puzzles.models import Puzzle, PuzzleRating
from tests.support import puzzles as drawings
from tests.support.personas import client_for

pytestmark = pytest.mark.django_db

# The race ratings' scale (accounts.standings.ratings), written out: 1500 ± 500.
MODEL = PlackettLuce(mu=1500.0, sigma=500.0, beta=250.0, tau=5.0)


def _solve(player: User, puzzle: Puzzle) -> None:
    for x, y in ((2, 0), (3, 1), (4, 1)):
        services.puzzle_open(puzzle_id=puzzle.id, player=player, x=x, y=y)


def _fail(player: User, puzzle: Puzzle) -> None:
    services.puzzle_open(puzzle_id=puzzle.id, player=player, x=5, y=0)


def _expected(player: tuple[float, float], puzzle: tuple[float, float], solved: bool) -> tuple:
    teams = [
        [MODEL.rating(mu=player[0], sigma=player[1])],
        [MODEL.rating(mu=puzzle[0], sigma=puzzle[1])],
    ]
    rated = MODEL.rate(teams, ranks=[1.0, 2.0] if solved else [2.0, 1.0])
    return (rated[0][0].mu, rated[0][0].sigma), (rated[1][0].mu, rated[1][0].sigma)


@pytest.mark.parametrize("solved", [True, False], ids=["solved", "failed"])
def test_the_first_attempt_moves_both_as_the_library_says(
    alice: User, flow: Puzzle, solved: bool
) -> None:
    before = (flow.rating, flow.deviation)
    (_solve if solved else _fail)(alice, flow)
    mine, theirs = _expected((1500.0, 500.0), before, solved)
    row = PuzzleRating.objects.get(player=alice)
    assert (row.rating, row.deviation) == pytest.approx(mine)
    flow.refresh_from_db()
    assert (flow.rating, flow.deviation) == pytest.approx(theirs)
    assert (row.rating > 1500) is solved and (flow.rating < before[0]) is solved
    assert flow.rated_plays == 1 and flow.plays == 1 and flow.solves == int(solved)
    assert row.rated_attempts == 1 and row.solved == int(solved)


def test_later_attempts_move_nothing(alice: User, alice_api: APIClient, flow: Puzzle) -> None:
    _fail(alice, flow)
    row = PuzzleRating.objects.get(player=alice)
    flow.refresh_from_db()
    mine, theirs = (row.rating, row.deviation), (flow.rating, flow.deviation)
    services.puzzle_retry(puzzle_id=flow.id, player=alice)
    _solve(alice, flow)
    row.refresh_from_db()
    flow.refresh_from_db()
    assert (row.rating, row.deviation) == mine and (flow.rating, flow.deviation) == theirs
    assert flow.plays == 1 and flow.rated_plays == 1
    answer = alice_api.get(f"/api/puzzles/{flow.id}").json()
    assert answer["attempt"]["mode"] == "practice" and answer["attempt"]["rated"] is False
    assert answer["attempt"]["rating_before"] is None


def test_the_attempt_shows_the_ratings_before_and_after(
    alice_api: APIClient, alice: User, flow: Puzzle
) -> None:
    body = alice_api.post(f"/api/puzzles/{flow.id}/open", {"x": 5, "y": 0}, format="json").json()
    attempt = body["puzzle"]["attempt"]
    assert attempt["rated"] is True and attempt["mode"] == "rated"
    assert attempt["rating_before"] == 1500
    assert attempt["rating_after"] == round(PuzzleRating.objects.get(player=alice).rating) < 1500


@pytest.mark.parametrize("kind", ["bot", "guest"])
def test_bots_and_guests_never_move_a_puzzle(kind: str, flow: Puzzle) -> None:
    player = (
        User.objects.create_user(username="robot", kind=AccountKind.BOT)
        if kind == "bot"
        else guest_create()
    )
    before = (flow.rating, flow.deviation)
    _solve(player, flow)
    flow.refresh_from_db()
    assert (flow.rating, flow.deviation) == before and flow.rated_plays == 0
    assert flow.plays == 1  # they did play it
    row = PuzzleRating.objects.get(player=player)
    mine, _ = _expected((1500.0, 500.0), before, True)
    assert (row.rating, row.deviation) == pytest.approx(mine)  # their own rating moves


def test_new_ratings_are_provisional(alice: User, alice_api: APIClient, flow: Puzzle) -> None:
    dashboard = alice_api.get("/api/puzzles/dashboard").json()
    assert dashboard["rating"] == 1500 and dashboard["provisional"] is True
    assert alice_api.get(f"/api/puzzles/{flow.id}").json()["provisional"] is True
    PuzzleRating.objects.filter(player=alice).update(rating=1700.0, deviation=120.0)
    assert alice_api.get("/api/puzzles/dashboard").json()["provisional"] is False


def test_the_dashboard_counts_attempts_per_theme(alice: User, alice_api: APIClient) -> None:
    subset = drawings.store(drawings.SUBSET)
    flow = drawings.store(drawings.FLOW)
    services.puzzle_open(puzzle_id=subset.id, player=alice, x=2, y=4)  # a mine: failed
    _solve(alice, flow)
    dashboard = alice_api.get("/api/puzzles/dashboard").json()
    themes = {t["theme"]: t for t in dashboard["themes"]}
    assert themes["subset"]["attempts"] == 1 and themes["subset"]["solved"] == 0
    flow_theme = flow.theme
    assert themes[flow_theme]["solved"] >= 1 and themes[flow_theme]["accuracy"] > 0
    assert dashboard["rated_attempts"] == 2 and dashboard["solved"] == 1
    assert [point["rating"] for point in dashboard["history"]][-1] == dashboard["rating"]
    assert len(dashboard["history"]) == 2


def test_the_board_ranks_rated_humans_and_bots_apart(alice: User, bob: User, flow: Puzzle) -> None:
    robot = User.objects.create_user(username="robot", kind=AccountKind.BOT)
    guest = guest_create()
    _solve(alice, flow)
    _fail(bob, flow)
    _solve(robot, flow)
    _solve(guest, flow)
    page = client_for(bob).get("/api/leaderboards/puzzles").json()
    assert [(r["rank"], r["player"], r["solved"]) for r in page["results"]] == [
        (1, "alice", 1),
        (2, "bob", 0),
    ]
    assert page["results"][0]["rating"] > 1500 > page["results"][1]["rating"]
    assert page["me"]["player"] == "bob" and page["me"]["rank"] == 2
    bots = APIClient().get("/api/leaderboards/puzzles?players=bots").json()
    assert [r["player"] for r in bots["results"]] == ["robot"]
    assert APIClient().get("/api/leaderboards/puzzles?players=all").status_code == 400
    User.objects.filter(pk=alice.pk).update(is_active=False)  # closed: off every board
    rows = APIClient().get("/api/leaderboards/puzzles").json()["results"]
    assert [(r["rank"], r["player"]) for r in rows] == [(1, "bob")]
