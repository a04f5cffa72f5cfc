"""Ratings that say how sure they are, and seasons (docs/RACES.md, Provisional ratings and
Seasons): a rating is provisional, shown with "?" and off the race boards, until its sigma drops
under the threshold; each calendar quarter (UTC) has its own race ratings, started fresh, its
board, and a podium on the profiles of its top three once it has ended. The seasons follow the
server's clock, which these tests drive (django.utils.timezone.now)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any
from unittest import mock

import pytest
from rest_framework.test import APIClient

from accounts.models import User
from accounts.standings import ratings
from accounts.standings.models import RaceRating, SeasonRating
from games.races.models import RaceQueueEntry
from games.races.recompute import recompute
from tests.support.boards import board_of, safe_cells, win
from tests.support.personas import PASSWORD, client_for
from tests.support.races import racing, tick

pytestmark = pytest.mark.django_db

BOARD = "/api/leaderboards/beginner/races"


def _rotating(size: int, n: int) -> list[int]:
    """The places of the n-th race of `size` racers: each takes every place in turn."""
    return [(i + n) % size + 1 for i in range(size)]


@pytest.mark.parametrize(("size", "races"), [(2, 4), (3, 5), (4, 6), (8, 12)])
def test_a_new_rating_is_provisional_until_its_sigma_drops_under_the_threshold(
    size: int, races: int
) -> None:
    skills = [ratings.Skill.new()] * size
    assert all(ratings.provisional(s.sigma) for s in skills)
    for n in range(races):
        assert any(ratings.provisional(s.sigma) for s in skills), n
        skills = ratings.rate(skills, places=_rotating(size, n))
    assert not any(ratings.provisional(s.sigma) for s in skills)  # docs/RACES.md's figures
    assert all(s.sigma < ratings.PROVISIONAL_SIGMA for s in skills)


def _rated(name: str, skill: ratings.Skill, races: int) -> User:
    user = User.objects.create_user(username=name, password=PASSWORD)
    RaceRating.objects.create(
        player=user,
        level="beginner",
        pool="human",
        mu=skill.mu,
        sigma=skill.sigma,
        rating=skill.shown,
        races=races,
        rated_races=races,
    )
    return user


def test_provisional_players_are_off_the_race_board_and_see_their_rating_on_their_profile() -> None:
    sure = [ratings.Skill.new()] * 2
    for n in range(4):
        sure = ratings.rate(sure, places=_rotating(2, n))
    # One race from new, won: a higher rating than the established player's, still provisional.
    new_winner = ratings.rate([ratings.Skill.new()] * 2, places=[1, 2])[0]
    assert new_winner.mu > sure[0].mu and ratings.provisional(new_winner.sigma)
    _rated("alice", sure[0], 4)
    bob = _rated("bob", new_winner, 1)

    board = client_for(bob).get(BOARD).json()
    assert [(r["player"], r["provisional"]) for r in board["results"]] == [("alice", False)]
    assert board["count"] == 1
    assert board["me"] is None  # bob is not on the board yet
    mine = APIClient().get("/api/users/bob/races").json()["levels"]["beginner"]
    assert (mine["rating"], mine["provisional"]) == (new_winner.shown, True)
    alice = APIClient().get("/api/users/alice/races").json()["levels"]["beginner"]
    assert (alice["rating"], alice["provisional"]) == (sure[0].shown, False)


@pytest.mark.parametrize(
    "season",
    [
        "2026Q5",
        "2026Q0",
        "26Q1",
        "2026q1",
        "2026-Q1",
        "current2",
        "",
        "\uff19\uff19\uff19\uff19Q1",
        "9999Q4",
    ],
)
def test_a_race_board_refuses_what_is_not_a_season_begun(season: str) -> None:
    answer = APIClient().get(BOARD, {"season": season})
    assert answer.status_code == 400
    error = answer.json()["error"]
    assert error["code"] == "invalid_season"
    assert set(error) == {"code", "message", "details"}


class _Clock:
    """The server's clock: set by the test, one millisecond later at each reading (so that a
    deadline set at one reading has passed at the next, as on a real clock)."""

    def __init__(self, at: datetime) -> None:
        self.now = at

    def read(self) -> datetime:
        self.now += timedelta(milliseconds=1)
        return self.now


@pytest.fixture
def clock() -> Iterator[_Clock]:
    """The server's clock, moved by the test: the services, the race clock and the reads all
    ask django.utils.timezone.now."""
    at = _Clock(datetime(2026, 12, 31, 23, 0, tzinfo=UTC))
    with mock.patch("django.utils.timezone.now", side_effect=at.read):
        yield at


def _race(apis: dict[str, APIClient], order: list[str]) -> dict[str, dict[str, Any]]:
    """A race of `order`'s players by the server's clock: the first clears the board, each
    other opens one safe cell (they take part) and resigns. The racers of the finished Race."""
    first, *rest = order
    for _ in range(3):  # an opening that clears the whole board rates nobody: race again
        race = racing(apis[first], [apis[n] for n in rest])
        game = {r["player"]: r["game"] for r in race["racers"]}
        if all(safe_cells(board_of(g)) for g in game.values()):
            break
        tick()
    for name in rest:
        x, y = safe_cells(board_of(game[name]))[0]
        answer = apis[name].post(f"/api/games/{game[name]}/reveal", {"x": x, "y": y}, format="json")
        assert answer.status_code == 200
        assert apis[name].post(f"/api/games/{game[name]}/resign").status_code == 200
    assert win(apis[first], game[first])["state"] == "won"
    tick()
    ended = APIClient().get(f"/api/races/{race['id']}").json()
    assert ended["state"] == "finished"
    return {r["player"]: r for r in ended["racers"]}


def _season(name: str, season: str) -> SeasonRating:
    return SeasonRating.objects.get(player__username=name, season=season, level="beginner")


def test_a_season_rollover_starts_fresh_seasonal_ratings_and_keeps_the_lasting_ones(
    clock: _Clock, alice_api: APIClient, bob_api: APIClient, carol_api: APIClient,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    apis = {"alice": alice_api, "bob": bob_api, "carol": carol_api}
    # 2026Q4, an hour before its end: alice wins. One race from new: every rating provisional.
    q4 = _race(apis, ["alice", "bob", "carol"])
    assert q4["alice"]["place"] == 1
    assert {(r["rating_before"], r["provisional"]) for r in q4.values()} == {(1500, True)}
    for name in apis:  # the first season's rating moved with the lasting one
        lasting = RaceRating.objects.get(player__username=name, level="beginner")
        assert (_season(name, "2026Q4").mu, _season(name, "2026Q4").races) == (lasting.mu, 1)
    assert APIClient().get(BOARD, {"season": "current"}).json()["count"] == 0  # provisional

    # From here every rating counts as established: the boards and podiums after one race.
    monkeypatch.setattr(ratings, "PROVISIONAL_SIGMA", ratings.SIGMA + 1)
    q4_board = APIClient().get(BOARD, {"season": "current"}).json()
    assert (q4_board["season"], q4_board["seasons"]) == ("2026Q4", ["2026Q4"])
    assert q4_board["results"][0]["player"] == "alice"
    assert APIClient().get("/api/users/alice/races").json()["season_podiums"] == []  # not ended

    clock.now = datetime(2027, 1, 1, 0, 0, 1, tzinfo=UTC)  # 2027Q1 has begun
    fresh = APIClient().get(BOARD, {"season": "current"}).json()
    assert (fresh["season"], fresh["seasons"], fresh["count"]) == (
        "2027Q1",
        ["2027Q1", "2026Q4"],
        0,
    )
    past = APIClient().get(BOARD, {"season": "2026Q4"}).json()
    assert [r["player"] for r in past["results"]] == [r["player"] for r in q4_board["results"]]
    podiums = {
        name: APIClient().get(f"/api/users/{name}/races").json()["season_podiums"] for name in apis
    }
    alice_q4 = _season("alice", "2026Q4")
    assert podiums["alice"] == [
        {"season": "2026Q4", "level": "beginner", "no_guess": False, "rank": 1,
         "rating": alice_q4.rating},
    ]  # fmt: skip
    assert sorted(p[0]["rank"] for p in (podiums["bob"], podiums["carol"])) == [2, 3]

    # 2027Q1: bob beats alice. The race shows the lasting ratings; the season's start fresh.
    bob_lasting = RaceRating.objects.get(player__username="bob", level="beginner").mu
    q1 = _race(apis, ["bob", "alice"])
    assert q1["bob"]["rating_before"] == round(bob_lasting) < 1500
    winner, loser = ratings.rate([ratings.Skill.new()] * 2, places=[1, 2])
    assert abs(_season("bob", "2027Q1").mu - winner.mu) < 1e-6
    assert abs(_season("alice", "2027Q1").mu - loser.mu) < 1e-6
    assert _season("alice", "2026Q4").mu == alice_q4.mu  # the past season is kept as it ended
    lasting = RaceRating.objects.get(player__username="alice", level="beginner")
    assert lasting.races == 2 and lasting.mu > loser.mu  # the lasting rating carried on
    current = APIClient().get(BOARD, {"season": "current"}).json()
    assert [r["player"] for r in current["results"]] == ["bob", "alice"]

    # Quick match pairs by the lasting rating, never the season's.
    assert (
        alice_api.post("/api/races/queue", {"level": "beginner"}, format="json").json()["state"]
        == "waiting"
    )
    assert RaceQueueEntry.objects.get(player__username="alice").rating == lasting.mu
    assert alice_api.delete("/api/races/queue").status_code == 204

    # Every season is rebuilt from the stored results, as the lasting ratings are.
    assert recompute(write=False).differences == 0
    kept = {(r.player_id, r.season): (r.mu, r.sigma, r.races) for r in SeasonRating.objects.all()}
    SeasonRating.objects.all().delete()
    recompute()
    again = {(r.player_id, r.season): (r.mu, r.sigma, r.races) for r in SeasonRating.objects.all()}
    assert again.keys() == kept.keys()
    assert all(abs(again[k][0] - kept[k][0]) < 1e-6 and again[k][2] == kept[k][2] for k in kept)
