"""The day's end and its board (RULES.md, The daily challenge; API.md; docs/DAILY.md): the day
rolls over at 00:00 UTC on a controlled clock, the board orders winners by time then the rest
by cells, humans and bots apart and guests nowhere, a pause unranks; the streaks and the
calendar follow the days."""

from __future__ import annotations

from datetime import date, datetime, timedelta

import pytest
from django.utils import timezone

from accounts.models import AccountKind, User
from accounts.standings import daily as daily_standings
from accounts.standings.models import DailyEntry, DailyStats
from accounts.standings.records import GameEnd
from games.daily import rules, services
from games.daily.models import DailyChallenge
from games.play.models import Game
from tests.support.boards import board_of, mine_cell, mines_of, safe_cells
from tests.support.personas import client_for

pytestmark = pytest.mark.django_db


def _win(api, game_id: str) -> None:
    for x, y in safe_cells(board_of(game_id)):
        answer = api.post(f"/api/games/{game_id}/reveal", {"x": x, "y": y}, format="json")
        if answer.status_code == 409:  # opened already by a cascade
            continue
        if answer.json()["game"]["state"] == "won":
            return
    assert Game.objects.get(pk=game_id).state == "won"


def _lose(api, game_id: str, safe_first: int = 0) -> None:
    for x, y in safe_cells(board_of(game_id))[:safe_first]:
        api.post(f"/api/games/{game_id}/reveal", {"x": x, "y": y}, format="json")
    x, y = mine_cell(board_of(game_id))
    assert (
        api.post(f"/api/games/{game_id}/reveal", {"x": x, "y": y}, format="json").json()["game"][
            "state"
        ]
        == "lost"
    )


def test_the_day_rolls_over_at_midnight_utc():
    assert rules.day_of(datetime(2026, 12, 3, 23, 59, 59, tzinfo=rules.DAY_ZONE)) == date(
        2026, 12, 3
    )
    assert rules.day_of(datetime(2026, 12, 4, 0, 0, tzinfo=rules.DAY_ZONE)) == date(2026, 12, 4)
    assert rules.day_end(date(2026, 12, 3)).isoformat() == "2026-12-04T00:00:00+00:00"


def test_the_clock_closes_the_day_without_any_request(alice):
    """A controlled clock: the tick before midnight does nothing to the day; the first one
    after it ends the games still running and unseals them; the new day is dealt."""
    now = timezone.now()
    today = rules.day_of(now)
    game, _ = services.daily_start(player=alice, level="beginner", now=now)
    before = rules.day_end(today) - timedelta(milliseconds=1)
    services.daily_tick(now=before)
    game.refresh_from_db()
    assert game.state == "playing" and game.sealed
    after = rules.day_end(today) + timedelta(milliseconds=1)
    acted = services.daily_tick(now=after)
    game.refresh_from_db()
    assert game.state == "lost" and game.end_reason == "abandoned" and not game.sealed
    assert DailyChallenge.objects.get(day=today, level="beginner").closed_at is not None
    # the next day's six are dealt ahead of its first player
    assert set(
        DailyChallenge.objects.filter(day=today + timedelta(days=1)).values_list("level", flat=True)
    ) == set(services.LEVELS)
    assert acted >= 1 + len(services.LEVELS)
    assert services.daily_tick(now=after) == 0  # a second clock, or the next tick: nothing


def test_a_move_after_midnight_finds_the_game_ended(alice):
    now = timezone.now() - timedelta(days=1)
    game, _ = services.daily_start(player=alice, level="beginner", now=now)
    x, y = safe_cells(board_of(game))[0]
    answer = client_for(alice).post(f"/api/games/{game.id}/reveal", {"x": x, "y": y}, format="json")
    assert (answer.status_code, answer.json()["error"]["code"]) == (409, "game_over")
    game.refresh_from_db()
    assert game.state == "lost" and game.end_reason == "abandoned"


def test_the_board_orders_winners_by_time_then_the_rest_by_cells(alice, bob, carol, dave):
    apis = {u.username: client_for(u) for u in (alice, bob, carol, dave)}
    games = {name: api.post("/api/daily/beginner").json()["id"] for name, api in apis.items()}
    _win(apis["bob"], games["bob"])
    _win(apis["alice"], games["alice"])
    _lose(apis["carol"], games["carol"], safe_first=3)
    # dave is still playing
    Game.objects.filter(pk=games["alice"]).update(elapsed_ms=1)  # the row keeps its own time
    DailyEntry.objects.filter(game_id=games["alice"]).update(time_ms=900, score=900)
    DailyEntry.objects.filter(game_id=games["bob"]).update(time_ms=1200, score=1200)
    board = apis["dave"].get("/api/leaderboards/beginner/daily").json()
    assert [r["player"] for r in board["results"]] == ["alice", "bob", "carol", "dave"]
    assert [r["rank"] for r in board["results"]] == [1, 2, 3, 4]
    assert [r["state"] for r in board["results"]] == ["won", "won", "lost", "playing"]
    assert board["results"][0]["time_ms"] == 900 and board["results"][2]["time_ms"] is None
    assert board["me"]["player"] == "dave" and board["me"]["rank"] == 4
    assert board["count"] == 4
    # a row still running shows its cells as they stand
    x, y = safe_cells(board_of(games["dave"]))[0]
    apis["dave"].post(f"/api/games/{games['dave']}/reveal", {"x": x, "y": y}, format="json")
    opened = Game.objects.get(pk=games["dave"]).opened
    rows = apis["dave"].get("/api/leaderboards/beginner/daily?around=me&page_size=2").json()
    assert rows["results"][-1]["player"] == "dave" and rows["results"][-1]["opened"] == opened


def test_page_past_the_last_is_404_and_around_me_needs_sign_in(alice):
    client_for(alice).post("/api/daily/beginner")
    assert client_for(alice).get("/api/leaderboards/beginner/daily?page=2").status_code == 404
    anonymous = client_for(None).get("/api/leaderboards/beginner/daily?around=me")
    assert (anonymous.status_code, anonymous.json()["error"]["code"]) == (401, "not_authenticated")
    future = (rules.day_of(timezone.now()) + timedelta(days=1)).isoformat()
    assert (
        client_for(None).get(f"/api/leaderboards/beginner/daily?date={future}").status_code == 404
    )
    bad = client_for(None).get("/api/leaderboards/beginner/daily?date=yesterday")
    assert (bad.status_code, bad.json()["error"]["code"]) == (400, "invalid")
    assert client_for(None).get("/api/leaderboards/custom/daily").status_code == 404
    classic = client_for(None).get("/api/leaderboards/beginner/daily?mode=classic").json()
    assert classic["count"] == 0  # every daily is no-guess
    assert client_for(None).get("/api/leaderboards/beginner/daily?mode=x").status_code == 400


def test_bots_rank_on_the_bot_board_and_guests_nowhere(alice, bob):
    User.objects.filter(pk=bob.pk).update(kind=AccountKind.BOT)
    bob.refresh_from_db()
    guest = User.objects.create_user(username="guest-1", kind=AccountKind.GUEST)
    for user in (alice, bob, guest):
        services.daily_start(player=user, level="beginner")
    humans = client_for(None).get("/api/leaderboards/beginner/daily").json()
    bots = client_for(None).get("/api/leaderboards/beginner/daily?players=bots").json()
    assert [r["player"] for r in humans["results"]] == ["alice"]
    assert [r["player"] for r in bots["results"]] == ["bob"]
    guest_game = Game.objects.get(player=guest, daily__isnull=False)
    assert not guest_game.ranked and guest_game.unranked_reason == "guest"


def test_a_pause_unranks_the_daily(alice):
    api = client_for(alice)
    game = api.post("/api/daily/beginner").json()
    assert api.post(f"/api/games/{game['id']}/pause").status_code == 200
    entry = DailyEntry.objects.get(game_id=game["id"])
    assert not entry.ranked and entry.pool == "none" and entry.state == "paused"
    assert api.get("/api/leaderboards/beginner/daily").json()["count"] == 0
    assert api.post(f"/api/games/{game['id']}/resume").status_code == 200
    assert api.get(f"/api/games/{game['id']}").json()["unranked_reason"] == "paused"


def test_the_final_places_and_best_rank_are_fixed_at_the_days_end(alice, bob):
    now = timezone.now()
    today = rules.day_of(now)
    apis = [client_for(alice), client_for(bob)]
    games = [api.post("/api/daily/beginner").json()["id"] for api in apis]
    _win(apis[1], games[1])
    _lose(apis[0], games[0])
    assert services.daily_close(day=today, level="beginner", now=rules.day_end(today))
    places = dict(DailyEntry.objects.values_list("user__username", "place"))
    assert places == {"bob": 1, "alice": 2}
    best = dict(
        DailyStats.objects.filter(level="beginner").values_list("user__username", "best_rank")
    )
    assert best == {"bob": 1, "alice": 2}
    profile = client_for(None).get("/api/users/bob").json()["daily"]
    assert profile["played"] == 1 and profile["won"] == 1 and profile["best_rank"] == 1
    assert profile["current_streak"] == 1 and profile["levels"]["beginner"]["won"] == 1


def test_the_daily_streak_counts_days_in_a_row_with_a_daily_won():
    d = date(2026, 12, 3)
    assert daily_standings.streak_after(current=0, last_won_day=None, day=d) == 1
    assert daily_standings.streak_after(current=4, last_won_day=d - timedelta(days=1), day=d) == 5
    assert daily_standings.streak_after(current=4, last_won_day=d, day=d) == 4  # another level
    assert daily_standings.streak_after(current=4, last_won_day=d - timedelta(days=2), day=d) == 1
    # shown: still alive today and tomorrow (today may yet be won), gone after a missed day
    shown = daily_standings.streak_shown
    assert shown(current=3, last_won_day=d, today=d) == 3
    assert shown(current=3, last_won_day=d, today=d + timedelta(days=1)) == 3
    assert shown(current=3, last_won_day=d, today=d + timedelta(days=2)) == 0


def test_streaks_across_days_and_levels(alice):
    """Three days won in a row on two levels, then a day missed: the table of the streaks."""
    start = rules.day_start(rules.day_of(timezone.now()) - timedelta(days=4)) + timedelta(hours=12)
    won_on = {0: ["beginner", "intermediate"], 1: ["beginner"], 2: ["intermediate"]}
    for offset, levels in won_on.items():
        for level in levels:
            game, _ = services.daily_start(
                player=alice, level=level, now=start + timedelta(days=offset)
            )
            daily_standings.entry_end(
                end=GameEnd(
                    won=True,
                    game_id=game.id,
                    elapsed_ms=5000,
                    bbbv_per_s=1.0,
                    ended_at=start + timedelta(days=offset, minutes=1),
                    ranked=True,
                ),
                user=alice,
                day=game.daily,
                level=level,
                opened=10,
            )
    rows = {r.level: r for r in DailyStats.objects.filter(user=alice)}
    assert (rows["all"].current_streak, rows["all"].best_streak, rows["all"].won) == (3, 3, 4)
    assert (rows["beginner"].current_streak, rows["beginner"].best_streak) == (2, 2)
    assert (rows["intermediate"].current_streak, rows["intermediate"].best_streak) == (1, 1)
    # the last win was two days before today: the shown streak is gone
    shown = client_for(None).get("/api/users/alice").json()["daily"]
    assert shown["current_streak"] == 0 and shown["best_streak"] == 3


def test_the_calendar_lists_every_daily_with_its_result(alice):
    start = timezone.now() - timedelta(days=2)
    for offset in range(3):
        services.daily_start(player=alice, level="beginner", now=start + timedelta(days=offset))
    calendar = client_for(None).get("/api/users/alice/daily").json()
    assert calendar["username"] == "alice"
    days = [row["date"] for row in calendar["results"]]
    assert days == sorted(days, reverse=True) and len(days) == 3
    assert {row["level"] for row in calendar["results"]} == {"beginner"}
    bad = client_for(None).get("/api/users/alice/daily?from=2020-01-01&to=2026-12-01")
    assert (bad.status_code, bad.json()["error"]["code"]) == (400, "invalid")
    assert client_for(None).get("/api/users/nobody/daily").status_code == 404


def test_practice_of_a_past_day_only(alice, bob):
    today = rules.day_of(timezone.now())
    api = client_for(alice)
    api.post("/api/daily/beginner")
    refused = api.post(f"/api/daily/{today.isoformat()}/beginner")
    assert (refused.status_code, refused.json()["error"]["code"]) == (409, "daily_not_over")
    yesterday = today - timedelta(days=1)
    game, _ = services.daily_start(
        player=bob, level="beginner", now=rules.day_start(yesterday) + timedelta(hours=3)
    )
    early = api.post(f"/api/daily/{yesterday.isoformat()}/beginner")
    assert (early.status_code, early.json()["error"]["code"]) == (409, "daily_not_over")
    services.daily_tick()
    practice = api.post(f"/api/daily/{yesterday.isoformat()}/beginner")
    assert practice.status_code == 201
    body = practice.json()
    assert body["unranked_reason"] == "practice" and body["daily"] == yesterday.isoformat()
    # the same layout as the day's, opened at the same start cell
    assert mines_of(board_of(body["id"])) == mines_of(board_of(game))
    assert body["seq"] == 1 and body["state"] == "playing"
    again = api.post(f"/api/daily/{yesterday.isoformat()}/beginner")
    assert again.status_code == 201 and again.json()["id"] != body["id"]
    # practice counts nowhere: not on the day's board, not in the daily statistics
    _lose(api, body["id"])
    assert not DailyEntry.objects.filter(game_id=body["id"]).exists()
    assert not DailyStats.objects.filter(user=alice, level="beginner", played__gt=0).exists()
    assert api.post("/api/daily/2001-01-01/beginner").status_code == 404
    assert api.post("/api/daily/not-a-day/beginner").status_code == 404
