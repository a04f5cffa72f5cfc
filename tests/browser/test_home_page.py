"""The home page: your own games under "Games in progress", other players' games to watch,
and a question before a new game ends a started one, in real Chromium."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from accounts.models import User
from games.play import services
from tests.support.browser import cell, new_player_game, screenshot, sign_up_by_api, start_game
from tests.support.personas import PASSWORD


def test_the_home_page_asks_before_a_new_game_ends_a_started_one_as_a_loss(desktop: Any) -> None:
    page, _ = new_player_game(desktop, "victor", "beginner")
    first = page.url
    cell(page, 4, 4).click()
    expect(cell(page, 4, 4)).to_have_attribute("data-v", "0")
    page.goto("/")
    expect(page.locator("#current-list li")).to_have_count(1)
    native: list[str] = []  # the browser's own confirm() is never used
    page.on("dialog", lambda d: (native.append(d.message), d.dismiss()))
    page.click('.level-card[data-level="beginner"]')
    ask = page.get_by_role("dialog", name="Start a new game?")
    expect(ask).to_be_visible()
    expect(ask).to_contain_text("The current one will count as a loss.")
    expect(page.locator("#ask-no")).to_be_focused()  # the safe answer has the focus
    page.keyboard.press("Escape")
    expect(ask).to_be_hidden()
    expect(page.locator("#current-list li")).to_have_count(1)
    assert page.url.endswith("/")  # dismissed: the started game goes on
    page.click('.level-card[data-level="beginner"]')
    page.click("#ask-yes")
    page.wait_for_url(lambda url: "/games/" in url and url != first)
    assert native == []


def test_my_own_running_game_is_not_among_the_games_to_watch(desktop: Any) -> None:
    sign_up_by_api(desktop, "rafa")
    page = desktop.new_page()
    game_id = start_game(page, "beginner")
    cell(page, 4, 4).click()
    expect(cell(page, 4, 4)).to_have_attribute("data-v", "0")
    someone = User.objects.create_user(username="sven", password=PASSWORD)
    theirs = services.game_create(player=someone, level="expert")
    services.game_move(game_id=theirs.id, player=someone, action="reveal", x=15, y=8)
    page.goto("/")
    expect(page.locator("#current-list li")).to_have_count(1)
    expect(page.locator(f'#live-list a[href="/games/{theirs.id}"]')).to_have_count(1)
    expect(page.locator(f'#live-list a[href="/games/{game_id}"]')).to_have_count(0)
    expect(page.locator("#current h2")).to_have_text("Games in progress")
    screenshot(page, "walk-home-lists")
