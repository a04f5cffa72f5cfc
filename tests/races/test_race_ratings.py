"""Places and ratings (RULES.md, Races, The end and Ratings), table-tested, and the recompute
command that rebuilds every rating from the stored results."""

from __future__ import annotations

from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command

from accounts.models import User
from accounts.standings import ratings
from accounts.standings.models import RaceRating
from games.races import rules as race_rules
from games.races.models import Race, Racer
from games.races.rules import Result
from tests.support.boards import board_of, safe_cells
from tests.support.personas import PASSWORD, client_for
from tests.support.races import racing, tick

W = Result  # won=..., elapsed_ms, opened, lasted_ms


@pytest.mark.parametrize(
    ("results", "expected"),
    [
        # winners by time
        ([W(True, 50_000, 71, 50_000), W(True, 40_000, 71, 40_000)], [2, 1]),
        # every winner before every loser, whatever the loser opened
        ([W(False, 0, 70, 90_000), W(True, 99_000, 71, 99_000)], [2, 1]),
        # losers by safe cells opened, more is better
        ([W(False, 0, 10, 1_000), W(False, 0, 30, 1_000)], [2, 1]),
        # then by how long they lasted, longer is better
        ([W(False, 0, 30, 5_000), W(False, 0, 30, 9_000)], [2, 1]),
        # equal results share a place, and the next place is skipped
        ([W(True, 40_000, 71, 40_000), W(True, 40_000, 71, 40_000), W(False, 0, 5, 1)], [1, 1, 3]),
    ],
)
def test_places(results: list[Result], expected: list[int]) -> None:
    assert race_rules.places(results) == expected


@pytest.mark.parametrize(
    ("pools", "rated"),
    [
        (["human", "human"], ["human"]),
        (["human", "bot"], []),
        (["bot", "bot", "human"], ["bot"]),
        (["human", "none", "human"], ["human"]),  # a guest or a flagged account is never rated
        (["none", "none"], []),
    ],
)
def test_which_pools_a_race_rates(pools: list[str], rated: list[str]) -> None:
    assert race_rules.rated_pools(pools) == rated


@pytest.mark.parametrize("size", [2, 3, 5, 8])
def test_ratings_move_by_place_and_the_order_is_kept(size: int) -> None:
    after = ratings.rate([ratings.Skill.new()] * size, places=list(range(1, size + 1)))
    mus = [s.mu for s in after]
    assert mus == sorted(mus, reverse=True)
    assert mus[0] > ratings.MU > mus[-1]
    assert all(s.sigma < ratings.SIGMA for s in after)  # everyone is better known after a race
    assert abs(sum(mus) - size * ratings.MU) < 1e-6  # equal racers: what one wins another loses


def test_beating_a_stronger_racer_gains_more_than_beating_a_weaker_one() -> None:
    strong, weak, me = ratings.Skill(1900, 150), ratings.Skill(1100, 150), ratings.Skill(1500, 150)
    over_strong = ratings.rate([me, strong], places=[1, 2])[0].mu - me.mu
    over_weak = ratings.rate([me, weak], places=[1, 2])[0].mu - me.mu
    assert over_strong > over_weak > 0


def test_a_race_between_a_human_and_a_bot_is_not_rated(db: Any) -> None:
    alice = User.objects.create_user(username="alice", password=PASSWORD)
    robot = User.objects.create_user(username="robot", password=PASSWORD, kind="bot")
    race = racing(client_for(alice), [client_for(robot)])
    assert race["rated"] is False
    for user in (alice, robot):
        client_for(user).post(f"/api/races/{race['id']}/leave")
    tick()
    ended = client_for(alice).get(f"/api/races/{race['id']}").json()
    assert ended["state"] == "finished"
    assert {r["rating_after"] for r in ended["racers"]} == {None}
    assert RaceRating.objects.get(player=alice, level="beginner").races == 1  # still counted
    assert client_for(alice).get("/api/leaderboards/beginner/races").json()["count"] == 0


def _finish_race(users: list[User], winner: User) -> None:
    apis = [client_for(u) for u in users]
    race = racing(apis[0], apis[1:])
    for user, api, racer in zip(users, apis, race["racers"], strict=True):
        if user == winner:
            game = racer["game"]
            for x, y in safe_cells(board_of(game)):
                if (
                    api.post(f"/api/games/{game}/reveal", {"x": x, "y": y}, format="json").json()[
                        "game"
                    ]["state"]
                    == "won"
                ):
                    break
        else:
            api.post(f"/api/races/{race['id']}/leave")
    tick()
    assert Race.objects.get(pk=race["id"]).state == "finished"


def test_recomputing_every_rating_from_the_stored_results_gives_the_same_ratings(db: Any) -> None:
    alice, bob, carol = (
        User.objects.create_user(username=name, password=PASSWORD)
        for name in ("alice", "bob", "carol")
    )
    _finish_race([alice, bob, carol], winner=bob)
    _finish_race([alice, bob], winner=alice)
    _finish_race([carol, alice, bob], winner=carol)
    stored = {
        (r.player_id, r.level): (r.mu, r.sigma, r.rating, r.races, r.wins)
        for r in RaceRating.objects.all()
    }
    out = StringIO()
    call_command("recompute_race_ratings", "--check", stdout=out, stderr=StringIO())
    assert "3 races, 3 ratings, 0 differed" in out.getvalue()
    # Damage the ratings and one racer's recorded change; the command puts them back.
    RaceRating.objects.update(mu=1000.0, rating=1000, wins=0)
    Racer.objects.filter(player=alice).update(rating_after=1.0)
    call_command("recompute_race_ratings", stdout=StringIO(), stderr=StringIO())
    again = {
        (r.player_id, r.level): (r.mu, r.sigma, r.rating, r.races, r.wins)
        for r in RaceRating.objects.all()
    }
    assert again.keys() == stored.keys()
    for key, values in stored.items():
        assert again[key][0] == pytest.approx(values[0])
        assert again[key][2:] == values[2:]
    assert not Racer.objects.filter(rating_after=1.0).exists()


def test_verify_games_passes_on_race_games_and_leaves_them_out_of_solo_statistics(
    db: Any,
) -> None:
    from django.core.management.base import CommandError

    alice, bob = (User.objects.create_user(username=n, password=PASSWORD) for n in ("alice", "bob"))
    _finish_race([alice, bob], winner=alice)
    out = StringIO()
    try:
        call_command("verify_games", stdout=out, stderr=StringIO(), verbosity=0)
    except CommandError as exc:
        raise AssertionError(out.getvalue()) from exc
    assert "verify_games: 2 games, 2 players, 0 mismatch(es)" in out.getvalue()


def test_the_examples_in_the_race_rules_and_ratings_hold() -> None:
    import doctest

    for module in (race_rules, ratings):
        failed, attempted = doctest.testmod(module)
        assert attempted >= 3 and failed == 0, module.__name__
