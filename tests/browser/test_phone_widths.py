"""No page is wider than a 360 px phone: tables become cards, nothing is cut and nothing
scrolls sideways, in real Chromium."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from accounts.models import User
from games.play.models import Game
from tests.support.browser import cell, screenshot, sign_up_by_api, start_game, token_for
from tests.support.personas import PASSWORD


def test_on_a_phone_no_page_is_wider_than_the_screen(phone: Any) -> None:
    sign_up_by_api(phone, "peggy")
    token_for(phone, "peggy")  # a row in the tokens table
    page = phone.new_page()
    _each_fits(
        page, ["/", "/tokens", "/leaderboards/expert", "/players/peggy", "/how-to-play", "/x"]
    )


def _a_player_with_a_win(name: str) -> None:
    from tests.support.boards import win
    from tests.support.http import start
    from tests.support.personas import client_for

    user = User.objects.create_user(username=name, password=PASSWORD)
    api = client_for(user)
    win(api, start(api, "beginner")["id"])


def _no_sideways_scroll(page: Any) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    for wrap in page.locator(".table-wrap").all():
        if wrap.is_visible():
            assert wrap.evaluate("w => w.scrollWidth <= w.clientWidth + 1"), wrap.inner_html()[:300]


def test_on_a_phone_the_statistics_and_the_board_are_cards_with_nothing_cut(phone: Any) -> None:
    _a_player_with_a_win("ulla")
    page = phone.new_page()
    page.goto("/players/ulla")
    best = page.locator('#stats tbody tr[data-level="beginner"] td[data-label="Best time"]')
    expect(best).to_be_visible()
    _no_sideways_scroll(page)
    # A level never played is one line (its name and its 0), not a card of eight empty lines.
    never = page.locator('#stats tbody tr[data-level="expert"]')
    expect(never).to_have_class("unplayed")
    assert never.evaluate("r => r.offsetHeight") < 50
    screenshot(page, "walk-phone-profile", full_page=True)
    page.goto("/leaderboards/beginner")
    when = page.locator('#ranking tbody tr td[data-label="When"]').first
    expect(when).to_be_visible()
    _no_sideways_scroll(page)
    # A row is two lines (rank, player and time; then when), so a screen holds many.
    row = page.locator("#ranking tbody tr").first
    assert row.evaluate("r => r.offsetHeight") < 70  # four lines were 130 px
    screenshot(page, "walk-phone-leaderboard")


def _each_fits(page: Any, paths: list[str]) -> None:
    """Each page, once loaded and its reads answered, is no wider than the 360 px screen."""
    for path in paths:
        page.goto(path)
        page.wait_for_load_state("networkidle")
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 360, f"{path} is {width} px wide on a 360 px phone"


PAGES_AT_360 = [
    "/",
    "/daily",
    "/races",
    "/arenas",
    "/leaderboards/beginner",
    "/how-to-play",
    "/settings",
    "/signin",
    "/signup",
    "/tokens",
]
PUZZLE_PAGES_AT_360 = [
    "/puzzles",
    "/puzzles/daily",
    "/puzzles/streak",
    "/puzzles/storm",
    "/puzzles/dashboard",
]


# The pages in two parts, each with the same player and game in play: all of them in one test
# took 22 s inside a PostgreSQL run (docs/TESTING.md: no test over 20 s).
@pytest.mark.parametrize("part", [slice(0, 6), slice(6, None)], ids=["first", "second"])
def test_no_page_scrolls_sideways_on_a_360_px_phone(phone: Any, part: slice) -> None:
    _a_player_with_a_win("wim")
    sign_up_by_api(phone, "xena")
    page = phone.new_page()
    game_id = start_game(page, "expert")
    cell(page, 15, 8).click()
    games = [
        f"/games/{game_id}",
        f"/games/{Game.objects.filter(player__username='wim').first().id}/replay",
    ]
    _each_fits(page, [*PAGES_AT_360, "/players/wim", *games][part])


def test_no_puzzle_page_scrolls_sideways_on_a_360_px_phone(phone: Any) -> None:
    sign_up_by_api(phone, "yuri")
    page = phone.new_page()
    _each_fits(page, PUZZLE_PAGES_AT_360)
