"""What a new player's walk of the site found (issue 11, item 4), each fixed and shown here in
Chromium: the profile menu entry, the tokens page, the live list and the profile's chart."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from accounts.models import User
from games.engine import Board
from games.models import Game, GameState
from games.play import services
from tests.support.browser import cell, screenshot, sign_up_by_api, start_game

pytestmark = pytest.mark.browser


def test_another_players_profile_does_not_highlight_my_profile(desktop: Any) -> None:
    sign_up_by_api(desktop, "olga")
    User.objects.create_user(username="piet", password="correct horse battery")
    page = desktop.new_page()
    page.goto("/players/piet")
    mine = page.locator('nav a[href="/players/olga"]')
    expect(mine).to_be_visible()
    expect(mine).not_to_have_attribute("aria-current", "page")
    page.goto("/players/olga")
    expect(mine).to_have_attribute("aria-current", "page")
    page.goto("/players/piet")
    screenshot(page, "walk-other-profile")


def test_the_tokens_page_hides_an_empty_table_and_a_revoked_new_key(desktop: Any) -> None:
    sign_up_by_api(desktop, "quinn")
    page = desktop.new_page()
    page.goto("/tokens")
    expect(page.locator("#no-tokens")).to_be_visible()
    expect(page.locator("#tokens")).to_be_hidden()  # no headers over an empty table
    name = page.locator("#token-form input[name=name]")
    assert name.bounding_box()["width"] >= 200  # a name field, not a number field
    name.fill("my solver bot")
    page.click("#token-form button[type=submit]")
    expect(page.locator("#new-token")).to_be_visible()
    expect(page.locator("#tokens tbody tr")).to_have_count(1)
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#tokens tbody tr button")
    expect(page.locator("#new-token")).to_be_hidden()  # a revoked key is no "new key"
    expect(page.locator("#new-key")).to_have_text("")
    expect(page.locator("#tokens")).to_be_hidden()
    screenshot(page, "walk-tokens-revoked")


def test_my_own_running_game_is_not_among_the_games_to_watch(desktop: Any) -> None:
    sign_up_by_api(desktop, "rafa")
    page = desktop.new_page()
    game_id = start_game(page, "beginner")
    cell(page, 4, 4).click()
    expect(cell(page, 4, 4)).to_have_attribute("data-v", "0")
    someone = User.objects.create_user(username="sven", password="correct horse battery")
    theirs = services.game_create(player=someone, level="expert")
    services.game_move(game_id=theirs.id, player=someone, action="reveal", x=15, y=8)
    page.goto("/")
    expect(page.locator("#current-list li")).to_have_count(1)
    expect(page.locator(f'#live-list a[href="/games/{theirs.id}"]')).to_have_count(1)
    expect(page.locator(f'#live-list a[href="/games/{game_id}"]')).to_have_count(0)
    expect(page.locator("#current h2")).to_have_text("Games in progress")
    screenshot(page, "walk-home-lists")


def _won_games(user: User, level: str, count: int) -> None:
    """`count` won games of `level` written directly (the chart only reads them)."""
    spec = Board.new(9, 9, 10) if level == "beginner" else Board.new(16, 10, 25)
    now = timezone.now()
    for i in range(count):
        Game.objects.create(
            player=user,
            level=level,
            width=spec.width,
            height=spec.height,
            mines=spec.mines,
            ranked=True,
            state=GameState.WON,
            end_reason="cleared",
            board=spec.encode(),
            mines_left=spec.mines,
            created_at=now - timedelta(hours=count - i),
            started_at=now - timedelta(hours=count - i),
            ended_at=now - timedelta(hours=count - i) + timedelta(seconds=30 + i),
            elapsed_ms=(30 + i) * 1000,
        )


def test_the_chart_opens_on_the_level_played_most_with_more_than_the_last_twenty_games(
    desktop: Any,
) -> None:
    sign_up_by_api(desktop, "tess")
    tess = User.objects.get(username="tess")
    _won_games(tess, "intermediate", 30)
    _won_games(tess, "beginner", 3)  # the newest games, but the level played least
    from accounts.models import PlayerStats

    PlayerStats.objects.update_or_create(
        user=tess, level="intermediate", defaults={"played": 30, "won": 30}
    )
    PlayerStats.objects.update_or_create(
        user=tess, level="beginner", defaults={"played": 3, "won": 3}
    )
    page = desktop.new_page()
    page.goto("/players/tess")
    expect(page.locator("#chart-level")).to_have_value("intermediate")
    expect(page.locator("#chart .dot")).to_have_count(30)
    screenshot(page, "walk-profile-chart")


def _a_player_with_a_win(name: str) -> None:
    from tests.support.boards import win
    from tests.support.http import start
    from tests.support.personas import client_for

    user = User.objects.create_user(username=name, password="correct horse battery")
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
    screenshot(page, "walk-phone-profile", full_page=True)
    page.goto("/leaderboards/beginner")
    when = page.locator('#ranking tbody tr td[data-label="When"]').first
    expect(when).to_be_visible()
    _no_sideways_scroll(page)
    screenshot(page, "walk-phone-leaderboard")


def _win_in_the_page(page: Any, game_id: str) -> None:
    from tests.support.boards import safe_closed

    expect(cell(page, 4, 4)).not_to_have_attribute("data-v", "#")  # the first tap is stored

    for x, y in safe_closed(game_id):
        if page.locator("#result").is_visible():
            break
        target = cell(page, x, y)
        if target.get_attribute("data-v") == "#":
            target.click()
    expect(page.locator("#result")).to_be_visible()


def test_a_win_says_whether_it_is_a_personal_best_and_where_it_ranks(desktop: Any) -> None:
    sign_up_by_api(desktop, "vera")
    page = desktop.new_page()
    game_id = start_game(page, "beginner")
    cell(page, 4, 4).click()
    _win_in_the_page(page, game_id)
    note = page.locator("#rank-result")
    expect(note).to_have_text("A personal best! #1 on the Beginner times board.")
    expect(note).to_have_attribute("data-best", "true")
    screenshot(page, "walk-personal-best")
    # A slower second win keeps the first as the best.
    Game.objects.filter(pk=game_id).update(elapsed_ms=1)
    from accounts.models import PersonalRecord

    PersonalRecord.objects.filter(user__username="vera").update(score=1)
    second = start_game(page, "beginner")
    cell(page, 4, 4).click()
    _win_in_the_page(page, second)
    expect(note).to_have_attribute("data-best", "false")
    expect(note).to_contain_text("#1 on the Beginner times board")


PAGES_AT_360 = [
    "/",
    "/races",
    "/leaderboards/beginner",
    "/how-to-play",
    "/settings",
    "/signin",
    "/signup",
    "/tokens",
]


def test_no_page_scrolls_sideways_on_a_360_px_phone(phone: Any) -> None:
    _a_player_with_a_win("wim")
    sign_up_by_api(phone, "xena")
    page = phone.new_page()
    game_id = start_game(page, "expert")
    cell(page, 15, 8).click()
    games = [
        f"/games/{game_id}",
        f"/games/{Game.objects.filter(player__username='wim').first().id}/replay",
    ]
    for path in [*PAGES_AT_360, "/players/wim", *games]:
        page.goto(path)
        page.wait_for_load_state("networkidle")
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 360, (path, width)
