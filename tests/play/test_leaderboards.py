"""Leaderboards (API.md, Leaderboards and statistics; RULES.md, Statistics): best times, best
3BV/s and streaks per level; one row per player, ties to who got there first, rolling periods,
pagination, `around=me` and `me`; custom boards never ranked."""

from __future__ import annotations

import itertools
import uuid
from datetime import UTC, datetime, timedelta
from unittest import mock

import pytest
from django.core.management import call_command
from django.db import connection
from django.utils import timezone

from accounts.models import User
from accounts.standings import leaderboards
from accounts.standings.models import PersonalRecord, PlayerStats
from accounts.standings.records import GameEnd
from accounts.standings.stats import record_game_end
from games.engine import Board
from games.play.models import Game
from tests.support.boards import game_from_ascii, mines, win
from tests.support.http import assert_error, post, start
from tests.support.personas import PASSWORD, client_for

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 6, 30, 12, 0, tzinfo=UTC)


def player(name: str) -> User:
    return User.objects.create_user(username=name, password=PASSWORD)


def ended(user, *, ms=None, speed=None, won=True, at=NOW, level="beginner"):
    """A game end recorded by the statistics writer (what the games service calls)."""
    gid = uuid.uuid4()
    record_game_end(
        end=GameEnd(won=won, game_id=gid, elapsed_ms=ms or 0, bbbv_per_s=speed, ended_at=at),
        user_id=user.pk,
        level=level,
    )
    return str(gid)


def board(api, path, **params):
    with mock.patch("django.utils.timezone.now", return_value=NOW):
        response = api.get(f"/api/leaderboards/{path}", params)
    assert response.status_code == 200, response.content
    return response.json()


def names(page):
    return [row["player"] for row in page["results"]]


# --- Done when: a win through the API shows everywhere, with the game linked ------------------


def test_a_beginner_win_through_the_api_shows_on_the_profile_and_every_board(alice_api, anon_api):
    game = start(alice_api, "beginner")
    final = win(alice_api, game["id"])
    assert final["state"] == "won"
    gid, time_ms = final["id"], final["elapsed_ms"]

    profile = anon_api.get("/api/users/alice").json()
    stats = profile["stats"]["beginner"]
    assert (stats["played"], stats["won"], stats["current_streak"], stats["best_streak"]) == (
        1,
        1,
        1,
        1,
    )
    assert (stats["best_time_ms"], stats["best_time_game_id"]) == (time_ms, gid)
    assert profile["recent_games"][0]["id"] == gid

    times = anon_api.get("/api/leaderboards/beginner/times").json()
    assert times["results"] == [
        {
            "rank": 1,
            "player": "alice",
            "time_ms": time_ms,
            "game_id": gid,
            "achieved_at": final["ended_at"],
        }
    ]
    for period in ("day", "week", "month", "year", "all"):
        assert (
            anon_api.get(f"/api/leaderboards/beginner/times?period={period}").json()["results"][0][
                "game_id"
            ]
            == gid
        )
    speed = anon_api.get("/api/leaderboards/beginner/speed").json()["results"]
    if final["result_stats"]["bbbv_per_s"] is None:  # won by the first tap: no 3BV/s
        assert speed == []
    else:
        assert speed[0]["game_id"] == gid
        assert speed[0]["bbbv_per_s"] == final["result_stats"]["bbbv_per_s"]
    streaks = anon_api.get("/api/leaderboards/beginner/streaks").json()["results"]
    assert (streaks[0]["player"], streaks[0]["best_streak"], streaks[0]["current_streak"]) == (
        "alice",
        1,
        1,
    )
    assert streaks[0]["game_id"] == gid

    # a loss resets the current streak, the best one stays
    lost = start(alice_api, "beginner")
    x, y = next(iter(mines(lost["id"])))
    assert post(alice_api, lost["id"], "reveal", {"x": x, "y": y}).json()["game"]["state"] == "lost"
    assert anon_api.get("/api/users/alice").json()["stats"]["beginner"]["current_streak"] == 0
    current = anon_api.get("/api/leaderboards/beginner/streaks?sort=current").json()
    assert current["results"] == []
    best = anon_api.get("/api/leaderboards/beginner/streaks?sort=best").json()["results"]
    assert [(r["player"], r["best_streak"], r["current_streak"]) for r in best] == [("alice", 1, 0)]


def test_a_new_personal_best_is_announced_to_the_lobby(
    alice_api, django_capture_on_commit_callbacks
):
    sent = []
    with (
        mock.patch(
            "demineur_site.publish.send_now",
            side_effect=lambda group, msg, **_: sent.append((group, msg)),
        ),
        django_capture_on_commit_callbacks(execute=True),
    ):
        game = start(alice_api, "beginner")
        final = win(alice_api, game["id"])
    records = [
        msg["event"] for group, msg in sent if group == "lobby" and msg["event"]["type"] == "record"
    ]
    assert {
        "type": "record",
        "player": "alice",
        "level": "beginner",
        "kind": "time",
        "time_ms": final["elapsed_ms"],
        "game_id": final["id"],
    } in records


# --- order, one row per player, ties ----------------------------------------------------------


def test_times_rank_fastest_first_with_one_row_per_player(alice, bob, anon_api):
    carol = player("carol")
    ended(alice, ms=30_000, at=NOW - timedelta(hours=3))
    best_alice = ended(alice, ms=12_000, at=NOW - timedelta(hours=2))
    ended(alice, ms=20_000, at=NOW - timedelta(hours=1))
    ended(bob, ms=15_000, at=NOW - timedelta(hours=2))
    ended(carol, ms=9_000, at=NOW - timedelta(hours=2))
    ended(carol, won=False, at=NOW - timedelta(hours=1))
    page = board(anon_api, "beginner/times")
    assert [(r["rank"], r["player"], r["time_ms"]) for r in page["results"]] == [
        (1, "carol", 9_000),
        (2, "alice", 12_000),
        (3, "bob", 15_000),
    ]
    assert page["results"][1]["game_id"] == best_alice
    assert page["count"] == 3 and page["me"] is None


def test_speed_ranks_highest_first_and_skips_wins_without_a_speed(alice, bob, anon_api):
    carol = player("carol")
    ended(alice, ms=10_000, speed=2.5)
    ended(bob, ms=8_000, speed=3.1)
    ended(carol, ms=0, speed=None)  # won by the first tap
    page = board(anon_api, "beginner/speed")
    assert [(r["player"], r["bbbv_per_s"]) for r in page["results"]] == [
        ("bob", 3.1),
        ("alice", 2.5),
    ]
    assert names(board(anon_api, "beginner/times")) == ["carol", "bob", "alice"]


def test_ties_go_to_who_got_there_first(alice, bob, anon_api):
    carol = player("carol")
    ended(bob, ms=10_000, speed=2.0, at=NOW - timedelta(minutes=5))
    ended(alice, ms=10_000, speed=2.0, at=NOW - timedelta(minutes=9))
    ended(carol, ms=10_000, speed=2.0, at=NOW - timedelta(minutes=7))
    assert names(board(anon_api, "beginner/times")) == ["alice", "carol", "bob"]
    assert names(board(anon_api, "beginner/speed")) == ["alice", "carol", "bob"]
    # an equal time later does not move a player's row to the later game
    first = board(anon_api, "beginner/times")["results"][0]
    ended(alice, ms=10_000, at=NOW - timedelta(minutes=1))
    assert board(anon_api, "beginner/times")["results"][0] == first


def test_streak_boards_sort_by_best_or_current_and_break_ties_by_time(alice, bob, anon_api):
    carol = player("carol")
    for i in range(3):
        ended(alice, ms=5000, at=NOW - timedelta(hours=10 - i))
    ended(alice, won=False, at=NOW - timedelta(hours=6))  # alice: best 3, current 0
    for i in range(2):
        ended(bob, ms=5000, at=NOW - timedelta(hours=5 - i))  # bob: 2 and 2, reached at -4h
    for i in range(2):
        ended(carol, ms=5000, at=NOW - timedelta(hours=8 - i))  # carol: 2 and 2, reached at -7h
    best = board(anon_api, "beginner/streaks")
    assert [(r["player"], r["best_streak"], r["current_streak"]) for r in best["results"]] == [
        ("alice", 3, 0),
        ("carol", 2, 2),
        ("bob", 2, 2),
    ]
    assert names(board(anon_api, "beginner/streaks", sort="current")) == ["carol", "bob"]
    row = best["results"][0]
    assert row["game_id"] == row["streak_last_game_id"] and row["streak_first_game_id"]


# --- rolling periods with a frozen clock ------------------------------------------------------


def test_periods_are_rolling_and_show_each_players_best_inside_the_period(alice, bob, anon_api):
    ended(alice, ms=5_000, at=NOW - timedelta(days=400))  # all time only
    ended(alice, ms=9_000, at=NOW - timedelta(days=200))  # year
    ended(alice, ms=20_000, at=NOW - timedelta(days=20))  # month
    ended(alice, ms=25_000, at=NOW - timedelta(days=3))  # week
    ended(alice, ms=30_000, at=NOW - timedelta(hours=23))  # day
    ended(bob, ms=28_000, at=NOW - timedelta(hours=25))  # just outside the day, inside the week
    expected = {
        "all": [("alice", 5_000), ("bob", 28_000)],
        "year": [("alice", 9_000), ("bob", 28_000)],
        "month": [("alice", 20_000), ("bob", 28_000)],
        "week": [("alice", 25_000), ("bob", 28_000)],
        "day": [("alice", 30_000)],
    }
    for period, rows in expected.items():
        page = board(anon_api, "beginner/times", period=period)
        assert [(r["player"], r["time_ms"]) for r in page["results"]] == rows, period
        assert page["count"] == len(rows)


def test_a_period_boundary_is_exactly_24_hours_7_30_and_365_days(alice, anon_api):
    for days in (1, 7, 30, 365):
        ended(alice, ms=days * 1000, at=NOW - timedelta(days=days))  # exactly at the start: inside
    assert [r["time_ms"] for r in board(anon_api, "beginner/times", period="day")["results"]] == [
        1000
    ]
    assert [r["time_ms"] for r in board(anon_api, "beginner/times", period="week")["results"]] == [
        1000
    ]
    with mock.patch(
        "django.utils.timezone.now", return_value=NOW + timedelta(days=1, microseconds=1)
    ):
        assert anon_api.get("/api/leaderboards/beginner/times?period=day").json()["results"] == []


def test_the_board_shows_the_period_as_the_clock_moves_on(alice, bob, anon_api):
    ended(alice, ms=10_000, at=NOW)
    ended(bob, ms=12_000, at=NOW + timedelta(hours=12))
    with mock.patch("django.utils.timezone.now", return_value=NOW + timedelta(hours=30)):
        page = anon_api.get("/api/leaderboards/beginner/times?period=day").json()
    assert names(page) == ["bob"]


# --- me, around=me, pagination ----------------------------------------------------------------


@pytest.fixture
def seven_players(alice, bob):
    users = [alice, bob] + [player(n) for n in ("carol", "dave", "erin", "frank", "grace")]
    # grace fastest ... alice slowest: alice is 7th
    for i, user in enumerate(reversed(users)):
        ended(user, ms=10_000 + i * 1000, speed=5.0 - i * 0.5, at=NOW - timedelta(hours=1))
    return users


def test_every_page_carries_me_for_a_signed_in_player(seven_players, alice_api, anon_api):
    page = board(alice_api, "beginner/times", page_size=2)
    assert page["me"]["player"] == "alice" and page["me"]["rank"] == 7
    assert names(page) == ["grace", "frank"]
    assert board(anon_api, "beginner/times", page_size=2)["me"] is None


def test_around_me_returns_the_page_holding_the_players_row(seven_players, alice_api, bob_api):
    page = board(alice_api, "beginner/times", page_size=3, around="me")
    assert [r["rank"] for r in page["results"]] == [7]
    assert page["me"]["rank"] == 7 and page["results"][0] == page["me"]
    assert "page=2" in page["previous"] and "around" not in page["previous"]
    assert page["next"] is None
    bob_page = board(bob_api, "beginner/speed", page_size=3, around="me")
    assert names(bob_page) == ["dave", "carol", "bob"]
    assert bob_page["me"]["rank"] == 6
    assert [r["rank"] for r in bob_page["results"]] == [4, 5, 6]
    assert "around" not in (bob_page["next"] or "") and "page=3" in bob_page["next"]


def test_around_me_without_a_row_gives_the_first_page_with_me_null(seven_players, alice, anon_api):
    hank = player("henry")
    page = board(client_for(hank), "beginner/times", page_size=3, around="me")
    assert page["me"] is None and [r["rank"] for r in page["results"]] == [1, 2, 3]


def test_around_me_needs_a_signed_in_player(anon_api):
    with mock.patch("django.utils.timezone.now", return_value=NOW):
        assert_error(
            anon_api.get("/api/leaderboards/beginner/times?around=me"), 401, "not_authenticated"
        )


def test_pages_link_to_each_other_and_stop_at_the_last(seven_players, anon_api):
    first = board(anon_api, "beginner/times", page_size=3)
    assert first["count"] == 7 and first["previous"] is None and "page=2" in first["next"]
    third = board(anon_api, "beginner/times", page_size=3, page=3)
    assert [r["rank"] for r in third["results"]] == [7] and third["next"] is None
    with mock.patch("django.utils.timezone.now", return_value=NOW):
        assert_error(
            anon_api.get("/api/leaderboards/beginner/times?page=4&page_size=3"), 404, "not_found"
        )
        for bad in ("0", "-1", "abc", "1.5"):
            assert_error(
                anon_api.get(f"/api/leaderboards/beginner/times?page={bad}"), 400, "invalid_page"
            )
        assert_error(
            anon_api.get("/api/leaderboards/beginner/times?page_size=0"), 400, "invalid_page_size"
        )


def test_an_empty_board_has_an_empty_first_page(anon_api):
    page = board(anon_api, "expert/times")
    assert page == {"count": 0, "next": None, "previous": None, "results": [], "me": None}


def test_page_size_is_50_by_default_and_clamped_to_200(anon_api):
    users = User.objects.bulk_create([User(username=f"p{i:03d}", password="!") for i in range(201)])
    for i, user in enumerate(users):
        ended(user, ms=1000 + i)
    assert len(board(anon_api, "beginner/times")["results"]) == 50
    page = board(anon_api, "beginner/times", page_size=1000)
    assert len(page["results"]) == 200 and page["next"] is not None
    last = board(anon_api, "beginner/times", page_size=1000, page=2)
    assert [r["rank"] for r in last["results"]] == [201]


# --- what is not ranked, and bad addresses ----------------------------------------------------


def test_custom_boards_are_never_ranked(alice_api, anon_api):
    game = game_from_ascii(alice_api, ["..*..", ".....", ".....", ".....", "....."])
    final = win(alice_api, game["id"])
    assert final["state"] == "won" and final["level"] == "custom"
    assert not PersonalRecord.objects.exists()
    assert anon_api.get("/api/users/alice").json()["stats"]["custom"]["won"] == 1
    assert_error(anon_api.get("/api/leaderboards/custom/times"), 404, "not_found")
    for level in ("beginner", "intermediate", "hard", "expert", "extreme", "marathon"):
        for kind in ("times", "speed", "streaks"):
            assert anon_api.get(f"/api/leaderboards/{level}/{kind}").json()["count"] == 0


@pytest.mark.parametrize(
    ("url", "status", "code"),
    [
        ("/api/leaderboards/impossible/times", 404, "not_found"),
        ("/api/leaderboards/custom/streaks", 404, "not_found"),
        ("/api/leaderboards/beginner/points", 404, "not_found"),
        ("/api/leaderboards/beginner/times?period=fortnight", 400, "invalid_period"),
        ("/api/leaderboards/beginner/speed?period=", 400, "invalid_period"),
        ("/api/leaderboards/beginner/streaks?period=week", 400, "invalid_period"),
        ("/api/leaderboards/beginner/streaks?sort=worst", 400, "invalid_sort"),
        ("/api/leaderboards/beginner/times?sort=best", 400, "invalid_sort"),
        ("/api/leaderboards/beginner/times?around=you", 400, "invalid_around"),
    ],
)
def test_unknown_boards_and_parameters_get_the_error_body(anon_api, url, status, code):
    assert_error(anon_api.get(url), status, code)


def test_a_trailing_slash_is_accepted(anon_api):
    assert anon_api.get("/api/leaderboards/beginner/times/").status_code == 200


# --- the record chains agree with a brute-force ranking of the games --------------------------


@pytest.mark.skipif(connection.vendor != "postgresql", reason="seed_demo writes with COPY")
def test_every_board_and_period_agrees_with_ranking_the_games_directly():
    call_command("seed_demo", players=120, games=3000, days=400, seed=3, verbosity=0)
    now = timezone.now()
    seen = {"humans": 0, "bots": 0}
    for level in ("beginner", "expert"):
        for kind, column, extra in (
            ("times", "elapsed_ms", ""),
            ("speed", "-bbbv_per_s", "AND bbbv_per_s IS NOT NULL"),
        ):
            for (period, span), (players, account_kind) in itertools.product(
                leaderboards.PERIODS.items(), (("humans", "human"), ("bots", "bot"))
            ):
                cutoff = "" if span is None else "AND ended_at >= %s"
                params = [level, account_kind] + ([] if span is None else [now - span])
                with connection.cursor() as cur:
                    cur.execute(
                        f"""SELECT game_id FROM (
                              SELECT DISTINCT ON (player_id) player_id, g.id AS game_id, ended_at, {column} AS v
                              FROM games_game g JOIN accounts_user u ON u.id = g.player_id
                              WHERE level = %s AND u.kind = %s AND state = 'won' {extra} {cutoff}
                              ORDER BY player_id, {column}, ended_at) best
                            ORDER BY v, ended_at, player_id""",
                        params,
                    )
                    expected = [str(r[0]) for r in cur.fetchall()]
                seen[players] += len(expected)
                spec = leaderboards.board_spec(
                    level=level, board=kind, period=period, sort=None, players=players
                )
                got = leaderboards.leaderboard_page(
                    spec=spec, ask=leaderboards.PageAsk(page=1, page_size=200), now=now
                )
                assert [r["game_id"] for r in got.results] == expected, (
                    level,
                    kind,
                    period,
                    players,
                )
                assert got.count == len(expected)
    assert seen["humans"] and seen["bots"]  # both pools were compared, not only empty boards
    # and the seeded statistics agree with the games they summarise
    with connection.cursor() as cur:
        cur.execute(
            """SELECT player_id, level, count(*), count(*) FILTER (WHERE state = 'won'),
                      min(elapsed_ms) FILTER (WHERE state = 'won') FROM games_game GROUP BY 1, 2"""
        )
        from_games = {(r[0], r[1]): r[2:] for r in cur.fetchall()}
    from_stats = {
        (s.user_id, s.level): (s.played, s.won, s.best_time_ms) for s in PlayerStats.objects.all()
    }
    assert from_stats == from_games
    # seeded games are real engine boards, ended the way their state says
    for game in Game.objects.order_by("?")[:30]:
        board = Board.decode(bytes(game.board))
        assert board.status == game.state
        assert board.bbbv() == game.bbbv
        if game.state == "won":
            assert game.bbbv_per_s == pytest.approx(game.bbbv / (game.elapsed_ms / 1000))


@pytest.mark.parametrize("size", [1, 2, 3, 4, 6, 7])
def test_paging_through_a_board_visits_every_row_once_in_order(seven_players, anon_api, size):
    # pages past the middle are read backwards from the end: they must match a plain walk
    whole = board(anon_api, "beginner/times", page_size=200)["results"]
    walked, number = [], 1
    while True:
        page = board(anon_api, "beginner/times", page_size=size, page=number)
        walked += page["results"]
        if page["next"] is None:
            break
        number += 1
    assert walked == whole and [r["rank"] for r in walked] == list(range(1, 8))


def test_me_has_the_right_rank_anywhere_on_the_board(seven_players):
    # the rank is counted from the nearer end: check every position, both periods' counts
    for period in ("all", "year", "week"):
        spec = leaderboards.board_spec(level="beginner", board="times", period=period, sort=None)
        for expected, user in enumerate(reversed(seven_players), 1):
            page = leaderboards.leaderboard_page(
                spec=spec, ask=leaderboards.PageAsk(page=1, page_size=2, viewer=user), now=NOW
            )
            assert page.me is not None and page.me["rank"] == expected, (period, user.username)
            assert page.count == 7
