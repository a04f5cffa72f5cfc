"""Who a finished race rates (docs/RACES.md, Rated races): only racers who took part (opened a
cell by a move of their own) gain, and only against others who took part; a racer who never
did can lose but never gain and gives nobody anything; the same two players are rated against
each other a few times a day at most. The farm of an outside review is replayed here: eight
accounts of one person, the seven throwaways leaving at once and the main one a moment later,
round after round, in rooms and in quick match."""

from __future__ import annotations

import time
from datetime import timedelta
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.db.models import F
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import User
from accounts.standings import ratings
from accounts.standings.models import RaceRating
from games.races import rules as race_rules
from games.races.models import Race, RaceQueueEntry, Racer
from tests.support.boards import board_of, mine_cell, safe_cells
from tests.support.personas import PASSWORD, client_for
from tests.support.races import racing, start_now, tick

pytestmark = pytest.mark.django_db


def _users(*names: str) -> list[User]:
    return [User.objects.create_user(username=name, password=PASSWORD) for name in names]


def _game_of(race: dict[str, Any], name: str) -> str:
    return str(next(r["game"] for r in race["racers"] if r["player"] == name))


def _open(api: APIClient, game_id: str) -> None:
    """One reveal of a safe cell still closed: a racer's own progress."""
    x, y = safe_cells(board_of(game_id))[0]
    answer = api.post(f"/api/games/{game_id}/reveal", {"x": x, "y": y}, format="json")
    assert answer.status_code == 200, answer.json()


def _clear(api: APIClient, game_id: str) -> None:
    """Reveal safe cells until the board is cleared: a win."""
    while safe_cells(board_of(game_id)):
        _open(api, game_id)


def _flag(api: APIClient, game_id: str) -> None:
    x, y = safe_cells(board_of(game_id))[-1]
    answer = api.post(f"/api/games/{game_id}/flag", {"x": x, "y": y}, format="json")
    assert answer.status_code == 200, answer.json()


def _leave(api: APIClient, race_id: str) -> None:
    assert api.post(f"/api/races/{race_id}/leave").status_code == 200


def _ended(race_id: str) -> dict[str, Any]:
    tick()
    race = APIClient().get(f"/api/races/{race_id}").json()
    assert race["state"] == "finished"
    return {r["player"]: r for r in race["racers"]}


def _board() -> list[tuple[str, int]]:
    rows = APIClient().get("/api/leaderboards/beginner/races").json()["results"]
    return [(row["player"], row["rating"]) for row in rows]


def _farm_round(race: dict[str, Any], apis: dict[str, APIClient], act: Any) -> None:
    """One round of the farm: every throwaway does `act` then leaves at once; the main account
    does `act` too and leaves 0.3 s later, so it lasted longest and places first."""
    for name, api in apis.items():
        if name != "main":
            act(api, _game_of(race, name))
            _leave(api, race["id"])
    time.sleep(0.3)
    act(apis["main"], _game_of(race, "main"))
    _leave(apis["main"], race["id"])
    assert _ended(race["id"])["main"]["place"] == 1  # the farm "wins" every round


@pytest.fixture
def farm() -> dict[str, Any]:
    """main, with an honest rating of 1600 behind a leader at 1800, and 14 throwaways; one API
    client each, made once."""
    main, leader = _users("main", "leader")
    for user, mu in ((leader, 1800.0), (main, 1600.0)):
        RaceRating.objects.create(
            player=user,
            level="beginner",
            pool="human",
            mu=mu,
            sigma=200.0,
            rating=round(mu),
            races=5,
            rated_races=5,
        )
    throwaways = _users(*(f"throwaway{i}" for i in range(14)))
    assert _board() == [("leader", 1800), ("main", 1600)]
    apis = {u.username: client_for(u) for u in (main, *throwaways)}
    return {"main": main, "apis": apis, "sets": (list(apis)[1:8], list(apis)[8:])}


def _nothing(api: APIClient, game_id: str) -> None:
    """The farm as it was found: nobody makes a move of their own."""


def _quick_match(apis: list[APIClient]) -> dict[str, Any]:
    """The eight queue for beginner and are matched into one race, which starts."""
    for api in apis:
        answer = api.post("/api/races/queue", {"level": "beginner"}, format="json")
        assert answer.status_code == 200
        # They queue within the gather time (3 s) of each other, however slow this machine is.
        waiting = RaceQueueEntry.objects.filter(race__isnull=True)
        first = waiting.order_by("joined_at").first()
        if first is not None:
            waiting.update(joined_at=F("joined_at") + (timezone.now() - first.joined_at))
    matched = apis[0].get("/api/races/queue").json()
    assert matched["state"] == "matched" and len(matched["race"]["racers"]) == 8
    start_now(matched["race"]["id"])
    return dict(apis[0].get(f"/api/races/{matched['race']['id']}").json())


@pytest.mark.parametrize(
    "act", [_nothing, _flag], ids=["leave-before-moving", "flag-one-cell-then-leave"]
)
def test_the_throwaway_farm_gains_nothing_in_rooms_or_quick_match(
    farm: dict[str, Any], act: Any
) -> None:
    apis = farm["apis"]
    for round_ in range(4):  # rooms: main creates, seven throwaways join
        names = ["main", *farm["sets"][round_ % 2]]
        race = racing(apis["main"], [apis[n] for n in names[1:]])
        _farm_round(race, {n: apis[n] for n in names}, act)
    for throwaways in farm["sets"]:  # quick match: the eight fill a race at once
        names = ["main", *throwaways]
        race = _quick_match([apis[n] for n in names])
        _farm_round(race, {n: apis[n] for n in names}, act)
    assert Race.objects.filter(state="finished").count() == 6
    row = RaceRating.objects.get(player=farm["main"], level="beginner")
    assert (row.mu, row.rating, row.rated_races) == (1600.0, 1600, 5)
    assert (row.races, row.wins) == (11, 6)  # the races still count in the statistics
    assert _board()[:2] == [("leader", 1800), ("main", 1600)]
    # Nobody took part: every racer kept their rating (RULES.md), shown the same before and
    # after on each of main's races.
    kept = Racer.objects.filter(player=farm["main"]).values_list("rating_before", "rating_after")
    assert set(kept) == {(1600.0, 1600.0)}


def test_winning_a_race_whose_rivals_all_left_before_moving_gains_nothing(
    farm: dict[str, Any],
) -> None:
    main = farm["apis"]["main"]
    throwaways = [farm["apis"][n] for n in farm["sets"][0]]
    race = racing(main, throwaways)
    for api in throwaways:
        _leave(api, race["id"])
    _clear(main, _game_of(race, "main"))  # main clears the board: a real win
    results = _ended(race["id"])
    assert results["main"]["state"] == "won"
    # No rival took part: main keeps its rating, shown before and after (RULES.md).
    assert results["main"]["rating_before"] == results["main"]["rating_after"] == 1600
    assert RaceRating.objects.get(player=farm["main"], level="beginner").mu == 1600.0


def test_a_race_of_two_racers_who_both_move_is_rated_as_before(
    alice_api: APIClient, bob_api: APIClient
) -> None:
    race = racing(alice_api, [bob_api])
    _open(bob_api, _game_of(race, "bob"))
    _clear(alice_api, _game_of(race, "alice"))
    _leave(bob_api, race["id"])
    results = _ended(race["id"])
    winner, loser = ratings.rate([ratings.Skill.new()] * 2, places=[1, 2])
    assert results["alice"]["place"] == 1 and results["bob"]["place"] == 2
    assert results["alice"]["rating_after"] == winner.shown
    assert results["bob"]["rating_after"] == loser.shown
    assert _board() == []  # one rated race: both ratings still provisional (docs/RACES.md)


def test_a_racer_who_never_moved_can_lose_but_gives_nobody_anything(
    alice_api: APIClient, bob_api: APIClient, carol_api: APIClient
) -> None:
    race = racing(alice_api, [bob_api, carol_api])
    _open(alice_api, _game_of(race, "alice"))
    _leave(carol_api, race["id"])  # carol leaves before moving
    time.sleep(0.02)
    _leave(alice_api, race["id"])
    _leave(bob_api, race["id"])  # bob lasted longest, never moved
    results = _ended(race["id"])
    assert [results[n]["place"] for n in ("alice", "bob", "carol")] == [1, 2, 3]
    # alice is the only racer who took part: she has no rated opponent and keeps her rating.
    assert results["alice"]["rating_before"] == results["alice"]["rating_after"] == 1500
    # bob and carol lose to her (leaving before moving does not dodge a loss).
    assert results["bob"]["rating_after"] < results["bob"]["rating_before"] == 1500
    assert results["carol"]["rating_after"] < 1500
    assert RaceRating.objects.get(player__username="alice").rated_races == 0


def test_a_racer_who_never_moved_gains_nothing_by_outlasting_one_who_did(
    alice_api: APIClient, bob_api: APIClient, carol_api: APIClient
) -> None:
    race = racing(alice_api, [bob_api, carol_api])
    for name, api in (("alice", alice_api), ("carol", carol_api)):
        game = _game_of(race, name)
        x, y = mine_cell(board_of(game))
        lost = api.post(f"/api/games/{game}/reveal", {"x": x, "y": y}, format="json")
        assert lost.json()["game"]["state"] == "lost"  # a move of their own: they took part
    time.sleep(0.05)
    _leave(bob_api, race["id"])  # bob never moved, but lasted longest: first place
    results = _ended(race["id"])
    assert results["bob"]["place"] == 1
    assert results["bob"]["rating_after"] is None  # no gain for a racer who never moved
    # alice and carol are rated between themselves only (bob is nobody's opponent): what
    # one gains the other loses, as in a race of two.
    gained = results["alice"]["rating_after"] + results["carol"]["rating_after"] - 3000
    assert abs(gained) <= 1 and results["alice"]["rating_after"] != 1500


def _honest_race(apis: dict[str, APIClient], names: list[str]) -> dict[str, Any]:
    """Everyone opens a cell; the first of `names` then clears the board, the others leave."""
    race = racing(apis[names[0]], [apis[n] for n in names[1:]])
    for name in names[1:]:
        _open(apis[name], _game_of(race, name))
    _clear(apis[names[0]], _game_of(race, names[0]))
    for name in names[1:]:
        _leave(apis[name], race["id"])
    results = _ended(race["id"])
    assert results[names[0]]["place"] == 1
    return results


def test_the_same_two_players_are_rated_against_each_other_a_few_times_a_day(
    alice: User, bob: User, carol: User
) -> None:
    apis = {u.username: client_for(u) for u in (alice, bob, carol)}
    limit = race_rules.PAIR_RATED_PER_DAY
    for _ in range(limit):
        results = _honest_race(apis, ["alice", "bob"])
        assert results["alice"]["rating_after"] is not None
    mu = {r.player.username: r.mu for r in RaceRating.objects.select_related("player")}
    over = _honest_race(apis, ["alice", "bob"])
    assert over["alice"]["rating_after"] is None and over["bob"]["rating_after"] is None
    assert {r.player.username: r.mu for r in RaceRating.objects.select_related("player")} == mu
    # With carol: alice (first) and carol are rated; bob is over his limit with alice.
    three = _honest_race(apis, ["alice", "bob", "carol"])
    assert three["bob"]["rating_after"] is None
    assert three["alice"]["rating_after"] is not None and three["carol"]["rating_after"] < 1500
    # The limit is per UTC day: the next day they are rated against each other again.
    Race.objects.update(ended_at=F("ended_at") - timedelta(days=1))
    again = _honest_race(apis, ["alice", "bob"])
    assert again["alice"]["rating_after"] is not None and again["bob"]["rating_after"] is not None
    # Every decision is replayed by the recompute command from the stored results.
    out = StringIO()
    call_command("recompute_race_ratings", "--check", stdout=out, stderr=StringIO())
    assert f"{limit + 3} races, 3 ratings, 0 differed" in out.getvalue()
    RaceRating.objects.update(mu=1000.0, rating=1000)
    Racer.objects.update(rating_after=None, rating_before=None)
    call_command("recompute_race_ratings", stdout=StringIO(), stderr=StringIO())
    out = StringIO()
    call_command("recompute_race_ratings", "--check", stdout=out, stderr=StringIO())
    assert "0 differed" in out.getvalue()
    assert Racer.objects.filter(rating_after__isnull=True).count() == 3  # the over-limit ones


def test_the_rules_of_who_is_rated_are_pure_and_hold_their_examples() -> None:
    import doctest

    failed, attempted = doctest.testmod(race_rules)
    assert failed == 0 and attempted >= 8
