"""An arena from its creation to its podium through the public API (API.md, Arenas;
docs/ARENAS.md), the race clock driven by the test with a controlled `now`."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.utils import timezone

from accounts.models import User
from games.arenas import rules
from games.arenas.models import Arena, ArenaEntry
from games.races.models import Race, Racer
from tests.support.arenas import (
    alice_beats_bob,
    arena_races,
    bots,
    clear,
    end_arena,
    end_of,
    game_of,
    later,
    lose,
    new_arena,
    race_of,
    standings,
    start_countdowns,
)
from tests.support.boards import safe_closed
from tests.support.http import assert_error
from tests.support.personas import client_for
from tests.support.races import racing, tick


def test_a_player_creates_an_arena_that_runs_from_now(alice_api: Any) -> None:
    arena = new_arena(alice_api, name="Friday night")
    assert arena["state"] == "running"
    assert arena["name"] == "Friday night" and arena["created_by"] == "alice"
    assert (arena["level"], arena["no_guess"], arena["players"]) == ("beginner", False, "humans")
    assert len(arena["code"]) == 6 and arena["joined"] == 0
    assert arena["me"] is None  # the creator has not joined
    ends = Arena.objects.get(pk=arena["id"])
    assert ends.ends_at - ends.starts_at == timedelta(minutes=20)
    listed = alice_api.get("/api/arenas?state=running").json()["results"]
    assert [a["id"] for a in listed] == [arena["id"]]


def test_an_arena_that_starts_later_is_scheduled_until_the_clock_starts_it(alice_api: Any) -> None:
    starts = (timezone.now() + timedelta(minutes=10)).isoformat()
    arena = new_arena(alice_api, starts_at=starts, minutes=60)
    assert arena["state"] == "scheduled"
    tick(later(9 * 60))
    assert alice_api.get(f"/api/arenas/{arena['id']}").json()["state"] == "scheduled"
    tick(later(10 * 60 + 1))
    assert alice_api.get(f"/api/arenas/{arena['id']}").json()["state"] == "running"


def test_a_pool_of_one_waits_and_two_form_a_rated_race_of_the_arena(
    alice_api: Any, bob_api: Any
) -> None:
    arena = new_arena(alice_api)
    joined = alice_api.post(f"/api/arenas/{arena['id']}/join").json()
    assert joined["joined"] == 1 and joined["me"]["score"] == 0 and joined["me"]["race"] is None
    tick(later(5))
    assert arena_races(arena["id"]) == []
    bob_api.post(f"/api/arenas/{arena['id']}/join")
    tick(later(0.2))
    (race,) = arena_races(arena["id"])
    assert race.state == "countdown" and race.level == "beginner"
    body = alice_api.get(f"/api/races/{race.pk}").json()
    assert body["arena"] == arena["id"]
    assert {r["player"] for r in body["racers"]} == {"alice", "bob"}
    assert alice_api.get(f"/api/arenas/{arena['id']}").json()["me"]["race"] == str(race.pk)
    (started,) = start_countdowns(arena["id"])
    assert started["state"] == "running" and started["rated"] is True


def test_a_minimum_of_players_holds_the_first_races_until_that_many_wait(
    alice_api: Any, db: Any
) -> None:
    players = bots(6, prefix="min")
    arena = new_arena(players[0][1], min_players=5)
    assert arena["min_players"] == 5
    for _, api in players[:4]:
        assert api.post(f"/api/arenas/{arena['id']}/join").status_code == 200
    tick(later(5))
    assert arena_races(arena["id"]) == []  # four wait: below the minimum, no race yet
    players[4][1].post(f"/api/arenas/{arena['id']}/join")
    tick(later(5.2))
    (first,) = arena_races(arena["id"])  # five at once: one race of all of them
    assert Racer.objects.filter(race=first).count() == 5
    # After the first round the minimum is met: two waiting players race each other.
    players[5][1].post(f"/api/arenas/{arena['id']}/join")
    late = bots(1, prefix="late")[0][1]
    late.post(f"/api/arenas/{arena['id']}/join")
    tick(later(10))
    assert len(arena_races(arena["id"])) == 2
    # The default is no minimum (2), and the bounds are 2 to 64.
    assert new_arena(alice_api)["min_players"] == 2
    for bad in (1, 65, "5"):
        answer = alice_api.post(
            "/api/arenas", {"level": "beginner", "minutes": 20, "min_players": bad}, format="json"
        )
        assert_error(answer, 400, "invalid")


def test_a_race_outside_arenas_says_arena_null(alice_api: Any, bob_api: Any) -> None:
    assert racing(alice_api, [bob_api])["arena"] is None


def test_points_by_place_and_the_winner_back_in_the_pool_before_the_race_ends(
    alice_api: Any, bob_api: Any, carol_api: Any
) -> None:
    arena = new_arena(alice_api)
    race = race_of(arena["id"], alice_api, bob_api, carol_api)
    clear(alice_api, game_of(race, "alice"))
    # alice is done: back in the pool at once, though bob and carol still race.
    tick(later(0.5))
    assert ArenaEntry.objects.get(player__username="alice").race_id is None
    assert Race.objects.get(pk=race["id"]).state == "running"
    lose(bob_api, game_of(race, "bob"), moves=2)
    lose(carol_api, game_of(race, "carol"), moves=1)
    tick(later(1))
    rows = standings(arena["id"])
    # three took part: alice first (4); bob second by cells opened and carol third score
    # nothing (the top half of three is the first place only).
    assert {p: r["score"] for p, r in rows.items()} == {"alice": 4, "bob": 0, "carol": 0}
    assert rows["alice"]["rank"] == 1 and rows["alice"]["wins"] == 1
    assert [r["races"] for r in rows.values()] == [1, 1, 1]


def test_two_wins_light_the_fire_and_the_third_scores_double(alice_api: Any, bob_api: Any) -> None:
    arena = new_arena(alice_api)
    alice_api.post(f"/api/arenas/{arena['id']}/join")
    bob_api.post(f"/api/arenas/{arena['id']}/join")
    at = timezone.now()
    scores = []
    for round_ in range(3):
        # the two raced alone last time: they wait REMATCH_WAIT_MS for a third player first
        at += timedelta(milliseconds=rules.REMATCH_WAIT_MS + 1000)
        tick(at)
        (race,) = start_countdowns(arena["id"], at)
        clear(alice_api, game_of(race, "alice"))
        lose(bob_api, game_of(race, "bob"), moves=2)
        tick(at + timedelta(seconds=1))
        rows = standings(arena["id"])
        scores.append(rows["alice"]["score"])
        if round_ == 0:
            assert rows["alice"]["fire"] is False
    assert scores == [4, 8, 16]
    assert rows["alice"]["streak"] == 3 and rows["alice"]["fire"] is True
    assert rows["bob"]["score"] == 0 and rows["bob"]["races"] == 3


def test_same_two_alone_are_not_paired_again_at_once(alice_api: Any, bob_api: Any) -> None:
    arena = new_arena(alice_api)
    race = race_of(arena["id"], alice_api, bob_api)
    alice_beats_bob(race, alice_api, bob_api)
    tick(later(3))
    assert len(arena_races(arena["id"])) == 1  # no rematch yet
    tick(later(rules.REMATCH_WAIT_MS / 1000 + 2))
    assert len(arena_races(arena["id"])) == 2


def test_a_race_untouched_scores_nothing_and_its_lone_racer_scores_one(
    alice_api: Any, bob_api: Any
) -> None:
    arena = new_arena(alice_api)
    race = race_of(arena["id"], alice_api, bob_api)
    clear(alice_api, game_of(race, "alice"))
    assert bob_api.post(f"/api/games/{game_of(race, 'bob')}/resign").status_code == 200
    tick(later(1))
    rows = standings(arena["id"])
    # bob never moved: 0; alice beat nobody who played: SOLO_POINTS, and no win
    assert (rows["alice"]["score"], rows["alice"]["wins"]) == (rules.SOLO_POINTS, 0)
    assert (rows["bob"]["score"], rows["bob"]["races"]) == (0, 1)


def test_leaving_keeps_the_points_and_rejoining_waits_a_penalty(
    alice_api: Any, bob_api: Any, carol_api: Any
) -> None:
    arena = new_arena(alice_api)
    race = race_of(arena["id"], alice_api, bob_api)
    alice_beats_bob(race, alice_api, bob_api)
    left = alice_api.post(f"/api/arenas/{arena['id']}/leave").json()
    assert left["me"]["active"] is False and left["me"]["score"] == 4
    assert standings(arena["id"])["alice"]["score"] == 4
    assert alice_api.post(f"/api/arenas/{arena['id']}/leave").status_code == 200  # no-op
    back = alice_api.post(f"/api/arenas/{arena['id']}/join").json()
    assert back["me"]["active"] is True and back["me"]["score"] == 4
    assert back["joined"] == 2  # the same player, not a new one
    carol_api.post(f"/api/arenas/{arena['id']}/join")
    tick(later(rules.REJOIN_PENALTY_MS / 1000 - 3))
    (_, second) = arena_races(arena["id"])
    assert {r.player.username for r in second.racers.all()} == {"bob", "carol"}
    dave_free = ArenaEntry.objects.get(player__username="alice")
    assert dave_free.race_id is None  # alice waits out her penalty


def test_leaving_during_a_race_lets_the_race_go_on_and_count(alice_api: Any, bob_api: Any) -> None:
    arena = new_arena(alice_api)
    race = race_of(arena["id"], alice_api, bob_api)
    alice_api.post(f"/api/arenas/{arena['id']}/leave")
    alice_beats_bob(race, alice_api, bob_api)
    assert standings(arena["id"])["alice"]["score"] == 4
    assert standings(arena["id"])["alice"]["active"] is False


def test_the_end_waits_for_races_running_then_fixes_the_podium(
    alice_api: Any, bob_api: Any, carol_api: Any
) -> None:
    arena = new_arena(alice_api)
    race = race_of(arena["id"], alice_api, bob_api)
    # 20 s before the end, pairing has stopped: joining is refused
    end = later(20)
    Arena.objects.filter(pk=arena["id"]).update(ends_at=end, deadline=end)
    refused = carol_api.post(f"/api/arenas/{arena['id']}/join")
    assert_error(refused, 409, "arena_closed")
    # the end passes with the race still running: the arena waits for it
    tick(end + timedelta(seconds=1))
    assert alice_api.get(f"/api/arenas/{arena['id']}").json()["state"] == "running"
    clear(alice_api, game_of(race, "alice"))
    lose(bob_api, game_of(race, "bob"), moves=2)
    tick(end + timedelta(seconds=5))  # the race ends (its limit is 5 min), then the arena
    final = alice_api.get(f"/api/arenas/{arena['id']}").json()
    assert final["state"] == "finished" and final["ended_at"] is not None
    rows = standings(arena["id"])
    assert (rows["alice"]["rank"], rows["alice"]["score"]) == (1, 4)
    assert ArenaEntry.objects.get(player__username="alice").final_rank == 1
    assert ArenaEntry.objects.get(player__username="bob").final_rank == 2
    assert_error(alice_api.post(f"/api/arenas/{arena['id']}/join"), 409, "arena_closed")


def test_a_race_still_running_past_the_last_instant_does_not_count(
    alice_api: Any, bob_api: Any
) -> None:
    arena = new_arena(alice_api)
    for api in (alice_api, bob_api):
        api.post(f"/api/arenas/{arena['id']}/join")
    end = end_of(arena["id"])
    tick(end - timedelta(seconds=40))
    (race,) = start_countdowns(arena["id"], end - timedelta(seconds=37))
    stored = Arena.objects.get(pk=arena["id"])
    past = end + timedelta(milliseconds=stored.time_limit_ms + 3001)
    # The race clock was away: its race ends only now, with the arena, and counts not.
    Race.objects.filter(pk=race["id"]).update(deadline=past + timedelta(hours=1))
    tick(past)
    assert Arena.objects.get(pk=arena["id"]).state == "finished"
    Race.objects.filter(pk=race["id"]).update(deadline=past)
    tick(past + timedelta(seconds=1))
    assert Race.objects.get(pk=race["id"]).state == "finished"
    assert {r["score"] for r in standings(arena["id"]).values()} == {0}
    assert {r["races"] for r in standings(arena["id"]).values()} == {0}


def test_bots_and_humans_have_separate_arenas(alice_api: Any, db: Any) -> None:
    human = new_arena(alice_api)
    (_, bot_api), (_, bot2_api) = bots(2)
    assert_error(bot_api.post(f"/api/arenas/{human['id']}/join"), 403, "arena_players")
    bot_arena = new_arena(bot_api)  # a bot's arena is a bot arena
    assert bot_arena["players"] == "bots"
    assert_error(alice_api.post(f"/api/arenas/{bot_arena['id']}/join"), 403, "arena_players")
    assert_error(
        alice_api.post(
            "/api/arenas", {"level": "beginner", "minutes": 20, "players": "bots"}, format="json"
        ),
        403,
        "arena_players",
    )
    race = race_of(bot_arena["id"], bot2_api, bot_api)
    assert {r["player_kind"] for r in race["racers"]} == {"bot"}
    assert race["rated"] is True  # rated among the bots


def test_refusals_in_the_api_style(alice_api: Any, bob_api: Any, anon_api: Any) -> None:
    body = {"level": "beginner", "minutes": 20}
    assert_error(anon_api.post("/api/arenas", body, format="json"), 401, "not_authenticated")
    for bad in ({"minutes": 19}, {"minutes": 181}, {"level": "huge"}, {"minutes": "20"}):
        assert_error(alice_api.post("/api/arenas", {**body, **bad}, format="json"), 400, "invalid")
    past = (timezone.now() - timedelta(hours=1)).isoformat()
    answer = alice_api.post("/api/arenas", {**body, "starts_at": past}, format="json")
    assert_error(answer, 400, "invalid")
    assert_error(alice_api.get("/api/arenas/nope"), 404, "not_found")
    assert_error(alice_api.post("/api/arenas/nope/join"), 404, "not_found")
    assert_error(alice_api.get("/api/arenas?state=over"), 400, "invalid")
    arena = new_arena(alice_api)
    # already racing elsewhere: a room race
    racing(bob_api, [alice_api])
    assert_error(alice_api.post(f"/api/arenas/{arena['id']}/join"), 409, "already_racing")
    assert Arena.objects.get(pk=arena["id"]).joined == 0  # refused: nothing changed
    for _ in range(2):
        new_arena(alice_api)
    assert_error(alice_api.post("/api/arenas", body, format="json"), 409, "too_many_arenas")
    assert Arena.objects.filter(created_by__username="alice").count() == 3


def test_a_player_in_an_arena_cannot_quick_match_or_join_a_room(
    alice_api: Any, bob_api: Any
) -> None:
    arena = new_arena(alice_api)
    alice_api.post(f"/api/arenas/{arena['id']}/join")
    answer = alice_api.post("/api/races/queue", {"level": "beginner"}, format="json")
    assert_error(answer, 409, "already_racing")
    room = bob_api.post("/api/races", {"level": "beginner"}, format="json").json()
    assert_error(alice_api.post(f"/api/races/{room['id']}/join"), 409, "already_racing")


def test_a_guest_cannot_join(db: Any, alice_api: Any) -> None:
    from rest_framework.test import APIClient

    arena = new_arena(alice_api)
    guest = User.objects.create_user(username="guest-1", password=None, kind="guest")
    client = APIClient()
    client.force_authenticate(guest)
    assert_error(client.post(f"/api/arenas/{arena['id']}/join"), 409, "guest_account")


def test_standings_pages_me_and_around_me(alice_api: Any, anon_api: Any, db: Any) -> None:
    made = bots(5)
    arena = new_arena(made[0][1])
    for _, api in made:
        api.post(f"/api/arenas/{arena['id']}/join")
    page = made[3][1].get(f"/api/arenas/{arena['id']}/standings?page_size=2").json()
    assert page["count"] == 5 and len(page["results"]) == 2
    assert page["me"]["player"] == "bot03"
    around = made[3][1].get(f"/api/arenas/{arena['id']}/standings?page_size=2&around=me").json()
    assert "bot03" in [r["player"] for r in around["results"]]
    assert [r["rank"] for r in around["results"]] == [3, 4]
    assert_error(
        anon_api.get(f"/api/arenas/{arena['id']}/standings?around=me"), 401, "not_authenticated"
    )
    assert_error(anon_api.get(f"/api/arenas/{arena['id']}/standings?page=9"), 404, "not_found")
    assert anon_api.get(f"/api/arenas/{arena['id']}/standings").json()["me"] is None


def test_private_arenas_are_listed_only_by_their_code(alice_api: Any, bob_api: Any) -> None:
    hidden = new_arena(alice_api, private=True)
    assert bob_api.get("/api/arenas").json()["results"] == []
    found = bob_api.get(f"/api/arenas?code={hidden['code'].lower()}").json()["results"]
    assert [a["id"] for a in found] == [hidden["id"]]
    assert bob_api.post(f"/api/arenas/{hidden['id']}/join").status_code == 200


def test_creating_joining_and_leaving_need_the_race_play_scope(alice: User, bob: User) -> None:
    from rest_framework.test import APIClient

    from accounts import scopes
    from accounts.services import token_issue

    arena = new_arena(client_for(bob))
    for given, allowed in (
        ([scopes.GAME_PLAY, scopes.ACCOUNT_READ], False),
        ([scopes.RACE_PLAY], True),
    ):
        _, key = token_issue(user=alice, name=f"t{allowed}", scopes=scopes.stored(given))
        api = APIClient()
        api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
        calls = [
            api.post(f"/api/arenas/{arena['id']}/join"),
            api.post(f"/api/arenas/{arena['id']}/leave"),
            api.post("/api/arenas", {"level": "beginner", "minutes": 20}, format="json"),
        ]
        for answer in calls:
            if allowed:
                assert answer.status_code in (200, 201), answer.content
            else:
                assert_error(answer, 403, "missing_scope")
        assert api.get(f"/api/arenas/{arena['id']}/standings").status_code == 200  # public
    assert Arena.objects.filter(created_by=alice).count() == 1  # only the scoped token's


def test_resigning_after_moving_scores_nothing_even_in_the_top_half(
    alice_api: Any, bob_api: Any, carol_api: Any, dave_api: Any
) -> None:
    arena = new_arena(alice_api)
    players = {"alice": alice_api, "bob": bob_api, "carol": carol_api, "dave": dave_api}
    race = race_of(arena["id"], *players.values())
    clear(alice_api, game_of(race, "alice"))
    bob_game = game_of(race, "bob")
    for x, y in safe_closed(bob_game)[:5]:
        bob_api.post(f"/api/games/{bob_game}/reveal", {"x": x, "y": y}, format="json")
    assert bob_api.post(f"/api/games/{bob_game}/resign").status_code == 200
    lose(carol_api, game_of(race, "carol"), moves=1)
    lose(dave_api, game_of(race, "dave"), moves=1)
    tick(later(1))
    ended = alice_api.get(f"/api/races/{race['id']}").json()
    assert {r["player"]: r["place"] for r in ended["racers"]}["bob"] == 2  # the top half of 4
    rows = standings(arena["id"])
    assert {p: r["score"] for p, r in rows.items()} == {"alice": 4, "bob": 0, "carol": 0, "dave": 0}


def test_a_players_arenas_played_podiums_and_best_rank(
    alice_api: Any, bob_api: Any, anon_api: Any
) -> None:
    assert anon_api.get("/api/users/alice/races").json()["arenas"] == {
        "played": 0,
        "podiums": 0,
        "best_rank": None,
    }
    arena = new_arena(alice_api)
    race = race_of(arena["id"], alice_api, bob_api)
    alice_beats_bob(race, alice_api, bob_api)
    end_arena(arena["id"])
    alice = anon_api.get("/api/users/alice/races").json()["arenas"]
    bob = anon_api.get("/api/users/bob/races").json()["arenas"]
    assert alice == {"played": 1, "podiums": 1, "best_rank": 1}
    assert bob == {"played": 1, "podiums": 1, "best_rank": 2}
