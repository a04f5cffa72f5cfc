"""The daily challenge (RULES.md; API.md, Daily challenge): one layout and one start cell per
level and day for everyone, already opened; one attempt; the secret decides the board."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from django.test import override_settings
from django.utils import timezone

from accounts.models import User
from accounts.standings.models import DailyEntry
from games.daily import rules, services
from games.daily.models import DailyChallenge
from games.play.models import Game, Move
from tests.support.boards import board_of, mines_of
from tests.support.threads import at_once

pytestmark = pytest.mark.django_db


def _start(api, level="beginner"):
    return api.post(f"/api/daily/{level}")


def test_two_players_get_the_same_layout_and_opening(alice_api, bob_api):
    a, b = _start(alice_api), _start(bob_api)
    assert a.status_code == b.status_code == 201
    ga, gb = a.json(), b.json()
    assert ga["id"] != gb["id"]
    assert ga["daily"] == gb["daily"] == rules.day_of(timezone.now()).isoformat()
    assert ga["no_guess"] is gb["no_guess"] is True
    assert ga["state"] == "playing" and ga["seq"] == 1 and ga["started_at"] is not None
    # the same cells opened by the server, and the same mines underneath
    assert ga["board"] == gb["board"]
    assert any(ch.isdigit() for row in ga["board"] for ch in row)
    assert mines_of(board_of(ga["id"])) == mines_of(board_of(gb["id"]))
    first = [Move.objects.get(game_id=g["id"], seq=1) for g in (ga, gb)]
    assert {(m.x, m.y, m.at_ms, m.action) for m in first} == {(first[0].x, first[0].y, 0, "reveal")}
    challenge = DailyChallenge.objects.get(level="beginner")
    assert (challenge.start_x, challenge.start_y) == (first[0].x, first[0].y)


def test_the_second_request_is_the_same_game(alice_api):
    first = _start(alice_api)
    second = _start(alice_api)
    assert (first.status_code, second.status_code) == (201, 200)
    assert first.json()["id"] == second.json()["id"]
    assert Game.objects.filter(daily__isnull=False).count() == 1
    assert DailyEntry.objects.count() == 1


def test_each_level_is_its_own_daily(alice_api):
    a = _start(alice_api, "beginner").json()
    b = _start(alice_api, "intermediate").json()
    assert a["id"] != b["id"] and (a["width"], b["width"]) == (9, 16)


def test_a_daily_is_its_own_slot(alice_api):
    daily = _start(alice_api).json()
    solo = alice_api.post("/api/games", {"level": "beginner"}, format="json")
    assert solo.status_code == 201
    assert alice_api.get(f"/api/games/{daily['id']}").json()["state"] == "playing"


@pytest.mark.parametrize("level", ["custom", "nightmare", "EXPERT"])
def test_no_daily_for_other_levels(alice_api, level):
    response = _start(alice_api, level)
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
    assert not Game.objects.exists()


def test_anonymous_visitors_cannot_play_it(anon_api):
    response = anon_api.post("/api/daily/beginner")
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "not_authenticated"


def test_the_board_comes_from_the_secret_not_the_date():
    day = date(2026, 12, 3)
    same = [rules.draw("secret-one", day, "expert").random() for _ in range(2)]
    other = rules.draw("secret-two", day, "expert").random()
    tomorrow = rules.draw("secret-one", day + timedelta(days=1), "expert").random()
    assert same[0] == same[1] and other != same[0] and tomorrow != same[0]
    with override_settings(DAILY_SECRET="secret-one"):
        one = services.daily_deal(day=day, level="beginner")
    DailyChallenge.objects.all().delete()
    with override_settings(DAILY_SECRET="secret-two"):
        two = services.daily_deal(day=day, level="beginner")
    assert bytes(one.board) != bytes(two.board)


def test_dealing_twice_keeps_one_board():
    day = rules.day_of(timezone.now())
    first = services.daily_deal(day=day, level="beginner")
    again = services.daily_deal(day=day, level="beginner")
    assert first.pk == again.pk and DailyChallenge.objects.count() == 1


def test_a_second_call_finds_the_first_game(alice):
    """The unique (user, day, level): the second call finds the first's game."""
    game, created = services.daily_start(player=alice, level="beginner")
    again, created_again = services.daily_start(player=alice, level="beginner")
    assert created and not created_again and game.pk == again.pk
    assert User.objects.get(pk=alice.pk).games.count() == 1


def test_the_dealer_never_searches_in_the_servers_thread(monkeypatch):
    """The daily clock shares its process with the sockets' loop: when the no-guess pool
    cannot answer, the dealer gets no layout (and tries again on a later tick) instead of
    searching in its own thread, as a request's first tap would."""
    from concurrent.futures.process import BrokenProcessPool

    from games.play import noguess

    class Broken:
        def submit(self, *args, **kwargs):
            raise BrokenProcessPool("down")

        def shutdown(self, *args, **kwargs):
            return None

    searched = []
    monkeypatch.setattr(noguess, "_executor", lambda: Broken())
    monkeypatch.setattr(noguess, "search", lambda *a, **k: searched.append(a) or ([0], 1))
    assert noguess.layout_for(noguess.LayoutAsk(9, 9, 10, 4, 4), in_thread=False) is None
    assert searched == []
    # a first tap still searches here
    assert noguess.layout_for(noguess.LayoutAsk(9, 9, 10, 4, 4)) == [0]
    assert len(searched) == 1


@pytest.mark.django_db(transaction=True)
def test_concurrent_first_calls_make_one_game(alice):
    """Eight first calls at once (tabs, retries), each in its own thread and connection: the
    player's row lock makes them one after the other (on SQLite, `make run`'s BEGIN IMMEDIATE
    does: one writing transaction at a time), and every one answers the same game."""
    results: list[tuple[str, bool]] = []

    def start() -> None:
        game, created = services.daily_start(player=alice, level="beginner")
        results.append((str(game.id), created))

    at_once(8, start)
    assert len(results) == 8 and len({game_id for game_id, _ in results}) == 1
    assert sorted(created for _, created in results) == [False] * 7 + [True]
    assert Game.objects.filter(player=alice, daily__isnull=False).count() == 1
