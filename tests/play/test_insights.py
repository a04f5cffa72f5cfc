"""Insights (docs/STATS.md, Insights): a player's analysed solo games summed per level and month,
read through GET /api/users/{name}/insights. Every figure below is worked out by hand from the
games played: four custom games on one 5 x 5 board, their move times set by hand."""

from __future__ import annotations

import io
from datetime import UTC, datetime

import pytest
from django.core.management import call_command

from accounts.standings.insights import game_share
from accounts.standings.models import PlayerInsight
from games.play.analysis_jobs import analyse_game
from games.play.models import Game, Move
from tests.play.analysed import ORDERS, analyse_in
from tests.support.boards import COIN, game_from_ascii
from tests.support.http import post, start

# On COIN, after the first tap at (0, 0), (0, 4) and (1, 4) are each a forced guess of 1/2,
# (2, 4) an avoidable one (a certain mine), and (3, 4) is deduced once (0, 4) shows its 1. The
# board's 3BV is 3: the opening and the two safe cells of the bottom row.

# Each game: its moves (action, x, y, the game clock at the move in ms), the month and day of
# its end in 2026, and the 3BV/s a win is given.
WIN = [("reveal", 0, 0, 0), ("reveal", 0, 4, 4_000), ("reveal", 3, 4, 5_500)]
UNLUCKY = [("reveal", 0, 0, 0), ("reveal", 1, 4, 90_000)]  # thought 90 s: counted as 60 s
CARELESS = [("reveal", 0, 0, 0), ("reveal", 2, 4, 2_000)]
# A flag first: the guess's think time runs from the flag, and the flag is a fourth click.
FLAGGED_WIN = [
    ("reveal", 0, 0, 0),
    ("flag", 2, 4, 1_000),
    ("reveal", 0, 4, 3_000),
    ("reveal", 3, 4, 3_500),
]
SEASON = [
    (WIN, 10, 3, 1.5),
    (UNLUCKY, 10, 9, None),
    (CARELESS, 11, 5, None),
    (FLAGGED_WIN, 11, 20, 2.5),
]

# October: WIN and UNLUCKY. Forced guesses (0, 4) after 4 s and (1, 4) after 90 s (60 s
# counted); one deduced move, (3, 4) after 1.5 s; the win's IOE 3 / 3 clicks; two flips of 1/2,
# one won: expected 1, luck 0.
OCTOBER = {
    "month": "2026-10",
    "games": 2,
    "wins": 1,
    "deduced_moves": 1,
    "forced_guesses": 2,
    "avoidable_guesses": 0,
    "avoidable_per_game": 0.0,
    "avoidable_share": 0.0,
    "think_deduced_ms": 1500.0,
    "think_guess_ms": 32000.0,  # (4,000 + 60,000) / 2
    "bbbv_per_s": 1.5,
    "ioe": 1.0,
    "coin_flips_won": 1,
    "expected_survivals": 1.0,
    "luck": 0.0,
    "cumulative_luck": 0.0,
}
# November: CARELESS (an avoidable guess after 2 s) and FLAGGED_WIN (the forced guess 2 s after
# the flag, (3, 4) deduced 0.5 s later; IOE 3 / 4 clicks); one flip of 1/2 won: luck +0.5.
NOVEMBER = {
    "month": "2026-11",
    "games": 2,
    "wins": 1,
    "deduced_moves": 1,
    "forced_guesses": 1,
    "avoidable_guesses": 1,
    "avoidable_per_game": 0.5,
    "avoidable_share": 0.5,
    "think_deduced_ms": 500.0,
    "think_guess_ms": 2000.0,
    "bbbv_per_s": 2.5,
    "ioe": 0.75,
    "coin_flips_won": 1,
    "expected_survivals": 0.5,
    "luck": 0.5,
    "cumulative_luck": 0.5,
}
TOTALS = {
    "games": 4,
    "wins": 2,
    "deduced_moves": 2,
    "forced_guesses": 3,
    "avoidable_guesses": 1,
    "avoidable_per_game": 0.25,
    "avoidable_share": 0.25,
    "think_deduced_ms": 1000.0,  # (1,500 + 500) / 2
    "think_guess_ms": 17000.0,  # (4,000 + 60,000 + 2,000 + 2,000) / 4
    "bbbv_per_s": 2.0,
    "ioe": 0.875,
    "coin_flips_won": 2,
    "coin_flips_lost": 1,
    "expected_survivals": 1.5,
    "luck": 0.5,
}


def _heat() -> list[list[int]]:
    """Custom boards count on a 10 x 10 grid: on a 5 x 5 board cell (x, 4) lies at column 2x,
    row 8. The guesses: (0, 4) twice, (1, 4) and (2, 4)."""
    rows = [[0] * 10 for _ in range(10)]
    rows[8][0], rows[8][2], rows[8][4] = 2, 1, 1
    return rows


def play(api, moves, month: int, day: int, speed: float | None) -> str:
    game = game_from_ascii(api, COIN)
    for action, x, y, _ in moves:
        body = {"x": x, "y": y} if action != "flag" else {"x": x, "y": y, "flagged": True}
        assert post(api, game["id"], action, body).status_code == 200
    for seq, (*_, at_ms) in enumerate(moves, 1):
        Move.objects.filter(game_id=game["id"], seq=seq).update(at_ms=at_ms)
    Game.objects.filter(pk=game["id"]).update(
        ended_at=datetime(2026, month, day, 12, tzinfo=UTC), bbbv_per_s=speed
    )
    return game["id"]


def _season(api) -> list[str]:
    return [play(api, *game) for game in SEASON]


def _check(api) -> None:
    answer = api.get("/api/users/alice/insights")
    assert answer.status_code == 200
    body = answer.json()
    assert (body["username"], body["mode"]) == ("alice", "classic")
    custom = body["levels"]["custom"]
    assert custom["months"] == [OCTOBER, NOVEMBER]
    assert {k: custom[k] for k in TOTALS} == TOTALS
    assert custom["heat"] == {"width": 10, "height": 10, "guesses": 4, "cells": _heat()}
    # a level with nothing analysed: empty figures, its own board's empty grid
    expert = body["levels"]["expert"]
    assert (expert["games"], expert["months"], expert["think_guess_ms"]) == (0, [], None)
    assert (expert["heat"]["width"], expert["heat"]["height"], expert["heat"]["guesses"]) == (
        30,
        16,
        0,
    )


@pytest.mark.django_db
@pytest.mark.parametrize("order", ORDERS)
def test_a_players_insights_per_month_worked_out_by_hand(alice_api, anon_api, order):
    ids = _season(alice_api)
    analyse_in(order, ids)
    _check(anon_api)  # anyone's to read, as the profile
    _check(alice_api)  # and its owner's
    no_guess = anon_api.get("/api/users/alice/insights?mode=no_guess").json()
    assert no_guess["mode"] == "no_guess" and no_guess["levels"]["custom"]["games"] == 0


@pytest.mark.django_db
def test_refold_all_counts_the_insights_again_from_the_games(alice, alice_api):
    for game_id in _season(alice_api):
        assert analyse_game(game_id)
    # As a player whose games were analysed before insights were kept (accounts 0005).
    PlayerInsight.objects.filter(user=alice).delete()
    call_command("analyse_games", "--refold-all", stdout=io.StringIO(), stderr=io.StringIO())
    _check(alice_api)
    # a second refold replaces, it does not add
    call_command("analyse_games", "--refold-all", stdout=io.StringIO(), stderr=io.StringIO())
    _check(alice_api)


@pytest.mark.django_db
def test_nothing_of_a_game_counts_before_it_ends_and_is_analysed(alice, alice_api, anon_api):
    running = start(alice_api, "beginner")  # tapped, running
    assert not analyse_game(running["id"])  # the worker never takes a running game
    ended = play(alice_api, CARELESS, 11, 5, None)  # ended, not analysed yet
    for api in (alice_api, anon_api):
        levels = api.get("/api/users/alice/insights").json()["levels"]
        for level in ("beginner", "custom"):
            figures = levels[level]
            assert (figures["games"], figures["months"], figures["heat"]["guesses"]) == (0, [], 0)
    assert analyse_game(ended)
    custom = anon_api.get("/api/users/alice/insights").json()["levels"]["custom"]
    assert (custom["games"], custom["avoidable_guesses"], custom["heat"]["guesses"]) == (1, 1, 1)
    assert not PlayerInsight.objects.exclude(user=alice).exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("path", "status", "code"),
    [
        ("/api/users/nobody/insights", 404, "not_found"),
        ("/api/users/alice/insights?mode=odd", 400, "invalid_mode"),
        ("/api/users/alice/insights?mode=", 400, "invalid_mode"),
    ],
)
def test_refusals(alice, anon_api, path, status, code):
    answer = anon_api.get(path)
    assert (answer.status_code, answer.json()["error"]["code"]) == (status, code)


@pytest.mark.django_db
def test_a_closed_accounts_insights_are_gone_as_its_profile(alice, anon_api):
    alice.is_active = False  # what closing does (docs/ACCOUNTS.md, Closing and deleting)
    alice.save(update_fields=["is_active"])
    for path in ("/api/users/alice", "/api/users/alice/insights", "/players/alice/insights"):
        assert anon_api.get(path).status_code == 404, path


@pytest.mark.django_db
def test_the_insights_page_is_linked_from_the_profile(alice, anon_api):
    page = anon_api.get("/players/alice/insights")
    assert page.status_code == 200
    assert b'data-username="alice"' in page.content
    assert b'href="/players/alice/insights"' in anon_api.get("/players/alice").content


def test_a_custom_boards_guess_is_counted_where_it_lies_on_the_grid_of_tenths():
    from accounts.standings.insights import Labelled

    moves = [Labelled("deduced", None, 0, 0), Labelled("forced_guess", 10, 49, 6)]
    share = game_share(
        month="2026-12",
        level="custom",
        width=50,
        height=7,
        won=False,
        bbbv_per_s=None,
        ioe=None,
        moves=moves,
        flips=(1, 0, 0.5),
    )
    # x 49 of 50 lies in the last tenth (9), y 6 of 7 in tenth 8 (6 x 10 // 7): 8 x 10 + 9
    assert share.cells == (89,)
    assert (share.sums["forced"], share.sums["think_guess_ms"], share.sums["moves"]) == (1, 10, 1)


def test_a_row_keeps_the_newest_24_months_apart_and_sums_the_older_ones_in_any_order():
    from random import Random

    from accounts.standings.insights import EARLIER, fold, level_insights

    # one game a month over 30 months (2024-07 .. 2026-12), each a win with one flip of p 0.25
    months = [f"{2024 + (6 + m) // 12}-{(6 + m) % 12 + 1:02d}" for m in range(30)]
    shares = [
        game_share(
            month=month,
            level="beginner",
            width=9,
            height=9,
            won=True,
            bbbv_per_s=1.0,
            ioe=0.5,
            moves=[],
            flips=(1, 0, 0.75),
        )
        for month in months
    ]
    stored, heat = fold(shares)
    assert sorted(stored) == [*months[6:], EARLIER]  # the newest 24, and the six before
    assert stored[EARLIER][:2] == [6, 6]  # six games, six wins
    shuffled = shares[:]
    Random(3).shuffle(shuffled)
    assert fold(shuffled)[0] == stored  # the same whatever order the analyses land in
    answer = level_insights(stored, heat)
    assert [m["month"] for m in answer["months"]] == months[6:]
    assert (answer["games"], answer["coin_flips_won"], answer["luck"]) == (30, 30, 7.5)
    # each month's luck is 1 - 0.75; the first month shown sums the six before it and its own
    assert answer["months"][0]["cumulative_luck"] == 1.75
    assert answer["months"][-1]["cumulative_luck"] == 7.5
