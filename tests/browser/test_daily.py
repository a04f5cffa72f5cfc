"""The daily challenge in the browser (RULES.md and API.md, The daily challenge; docs/FRONTEND.md,
The daily pages): today's card on the home page, Play making the one game of the day and the
game page playing it to the end, the share line and its Copy button, the day's board live with
no link to anyone's board, coming back (a reload, another page and back) to the same game; a
phone; a past day with its replays and practice; the profile's streak and calendar."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

from django.utils import timezone
from playwright.sync_api import expect

from accounts.models import User
from games.daily import rules, services
from games.play.models import Game
from tests.support.boards import board_of, mine_cell, safe_closed, win
from tests.support.browser import cell, open_every_safe_cell, screenshot, sign_up_by_api
from tests.support.personas import client_for


def _home_with_the_daily_held(page: Any) -> None:
    """The home page while GET /api/daily is held, then let through: the level cards below the
    daily card stay where they were (a tap on a level never lands on a daily's Play)."""
    held: list[Any] = []
    page.route("**/api/daily", lambda route: held.append(route))
    page.goto("/")
    levels = page.locator("#levels")
    expect(levels).to_be_visible()
    while not held:
        page.wait_for_timeout(20)
    before = levels.bounding_box()
    held[0].continue_()
    expect(page.locator("#daily-card")).to_have_attribute("data-state", "ready")
    assert levels.bounding_box() == before
    page.unroute("**/api/daily")


def test_a_player_plays_todays_daily_to_the_end_shares_it_and_finds_the_same_game(
    desktop: Any, laptop: Any, live: str
) -> None:
    sign_up_by_api(desktop, "dana")
    desktop.grant_permissions(["clipboard-read", "clipboard-write"], origin=live)
    page = desktop.new_page()
    _home_with_the_daily_held(page)
    card = page.locator("#daily-card")
    expect(card.locator("li")).to_have_count(6)
    expect(page.locator("#daily-card-clock")).to_contain_text("Ends in")
    screenshot(page, "daily-home-card")
    card.locator('li[data-daily="beginner"] button:has-text("Play")').click()
    page.wait_for_url("**/games/*")
    game_id = page.url.rsplit("/", 1)[1]
    assert Game.objects.get(pk=game_id).daily == rules.day_of(timezone.now())
    # The server made the opening: the board is open at the start cell, the clock runs.
    expect(page.locator("#game-title")).to_have_text("Daily · Beginner")
    expect(page.locator("#board .cell:not([data-v='#'])").first).to_be_visible()
    expect(page.locator("#new-game")).to_be_hidden()  # one attempt: no New game
    open_every_safe_cell(page, game_id)
    expect(page.locator("#result .result-head")).to_contain_text("You won in")
    share = page.locator("#result .share-line")
    expect(share).to_contain_text("Démineur daily")
    line = share.inner_text()
    assert "Beginner" in line and "#1 of 1" in line
    today = desktop.request.get("/api/daily").json()["levels"]
    assert line == next(lv["share"] for lv in today if lv["level"] == "beginner")  # the API's
    page.locator("#result .share button").click()
    expect(page.locator("#result .copy-done")).to_have_text("Copied.")
    assert page.evaluate("navigator.clipboard.readText()") == line
    expect(page.locator("#result a:has-text('Replay')")).to_have_count(0)  # not before midnight
    screenshot(page, "daily-won")

    # The day's page: the result, the share line and the day's board.
    page.click('#result a:has-text("The day\'s board")')
    page.wait_for_url("**/daily/*")
    level = page.locator('.daily-level[data-level="beginner"]')
    expect(level).to_have_attribute("data-state", "won")
    expect(level.locator(".share-line")).to_have_text(line)
    expect(level.locator("button:has-text('Play')")).to_have_count(0)
    row = page.locator("#daily-board tbody tr.me")
    expect(row).to_contain_text("dana")
    expect(row.locator(".pill.won")).to_be_visible()
    expect(page.locator("#daily-board a:has-text('Replay')")).to_have_count(0)
    screenshot(page, "daily-desktop", full_page=True)

    # In French the line is French, numbers included (the API's `share` stays English).
    desktop.add_cookies([{"name": "django_language", "value": "fr", "url": live}])
    page.reload()
    french = page.locator('.daily-level[data-level="beginner"] .share-line')
    expect(french).to_contain_text("Démineur, défi du jour")
    expect(french).to_contain_text("Débutant")
    expect(french).to_contain_text("n° 1 sur 1")
    assert re.search(r" \d+,\d s", french.inner_text()), french.inner_text()
    desktop.clear_cookies(name="django_language")

    # Coming back: a reload, then the home page and back, find the same game.
    page.reload()
    expect(
        page.locator('.daily-level[data-level="beginner"] a:has-text("Your game")')
    ).to_have_attribute("href", f"/games/{game_id}")
    page.goto("/")
    home_row = page.locator('#daily-card li[data-daily="beginner"]')
    expect(home_row).to_have_attribute("data-state", "won")
    expect(home_row.locator("button:has-text('Play')")).to_have_count(0)
    page.goto("/daily")
    page.click('.daily-level[data-level="beginner"] a:has-text("Your game")')
    page.wait_for_url(f"**/games/{game_id}")
    expect(page.locator("#result .share-line")).to_have_text(line)
    again = desktop.request.post("/api/daily/beginner", headers={"X-CSRFToken": _csrf(desktop)})
    assert again.status == 200 and again.json()["id"] == game_id

    # Another player sees the time on the board, never the board of the game.
    sign_up_by_api(laptop, "eve")
    other = laptop.new_page()
    other.goto("/daily")
    expect(other.locator("#daily-board tbody")).to_contain_text("dana")
    expect(other.locator(f'#daily-board a[href*="{game_id}"]')).to_have_count(0)
    other.goto(f"/games/{game_id}")
    expect(other.locator("#status")).to_contain_text("once its day is over")
    expect(other.locator("#board .cell:not([data-v='#'])")).to_have_count(0)


def _csrf(context: Any) -> str:
    return next(c["value"] for c in context.cookies() if c["name"] == "csrftoken")


def test_on_a_phone_the_daily_page_plays_comes_back_and_loses_showing_only_opened_cells(
    phone: Any,
) -> None:
    sign_up_by_api(phone, "pia")
    page = phone.new_page()
    _home_with_the_daily_held(page)
    page.goto("/daily")
    expect(page.locator(".daily-level")).to_have_count(6)
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    screenshot(page, "daily-phone", full_page=True)
    page.locator('.daily-level[data-level="beginner"] button:has-text("Play")').tap()
    page.wait_for_url("**/games/*")
    game_id = page.url.rsplit("/", 1)[1]
    x, y = safe_closed(game_id)[0]
    cell(page, x, y).tap()
    expect(cell(page, x, y)).not_to_have_attribute("data-v", "#")
    # Back on the day's page: Continue leads to the same game, the board says it is running.
    page.goto("/daily")
    level = page.locator('.daily-level[data-level="beginner"]')
    expect(level).to_have_attribute("data-state", "playing")
    expect(page.locator("#daily-board tbody tr.me .pill.playing")).to_be_visible()
    level.locator("a:has-text('Continue')").tap()
    page.wait_for_url(f"**/games/{game_id}")
    mx, my = mine_cell(board_of(game_id))
    cell(page, mx, my).tap()
    expect(page.locator("#result .result-head")).to_contain_text("Boom")
    # Until midnight a lost daily shows the player only the cells they opened and no mine
    # (API.md: no mine, no `X`): once the game as it ended is read, not even the one they hit.
    expect(page.locator("#board .c-mine")).to_have_count(0)
    expect(cell(page, mx, my)).to_have_attribute("data-v", "#")
    expect(page.locator("#result .share-line")).to_contain_text("cells")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    screenshot(page, "daily-phone-lost")


def test_a_past_day_shows_its_replays_practice_and_the_profile_its_calendar(desktop: Any) -> None:
    today = rules.day_of(timezone.now())
    yesterday = today - timedelta(days=1)
    sign_up_by_api(desktop, "omar")
    omar = User.objects.get(username="omar")
    past, _ = services.daily_start(
        player=omar, level="beginner", now=rules.day_start(yesterday) + timedelta(hours=9)
    )
    services.daily_close(day=yesterday, level="beginner")  # the day's end: lost, unsealed
    api = client_for(omar)
    todays = api.post("/api/daily/beginner").json()
    assert win(api, todays["id"])["state"] == "won"

    page = desktop.new_page()
    page.goto(f"/daily/{yesterday.isoformat()}?level=beginner")
    expect(page.locator("#daily")).to_have_attribute("data-state", "over")
    expect(page.locator("#daily-clock")).to_contain_text("This day is over")
    replay = page.locator("#daily-board tbody tr.me a:has-text('Replay')")
    expect(replay).to_have_attribute("href", f"/games/{past.id}/replay")
    expect(page.locator('.daily-level[data-level="beginner"] a:has-text("Replay")')).to_be_visible()
    expect(page.locator(".daily-level button:has-text('Play')")).to_have_count(0)
    expect(page.locator("#next-day")).to_have_attribute("href", "/daily")
    screenshot(page, "daily-past")
    page.click('.daily-level[data-level="beginner"] button:has-text("Practise")')
    page.wait_for_url("**/games/*")
    expect(page.locator("#game-title")).to_have_text("Daily practice · Beginner")
    expect(page.locator("#fair-note")).to_have_text("Not ranked: practice of a past day's daily.")
    practice = Game.objects.get(pk=page.url.rsplit("/", 1)[1])
    assert practice.unranked_reason == "practice" and practice.daily == yesterday

    page.goto("/players/omar")
    expect(page.locator('#daily-stats [data-stat="current_streak"] b')).to_have_text("1")
    expect(page.locator('#daily-stats [data-stat="played"] b')).to_have_text("2")
    expect(page.locator('#daily-stats [data-stat="best_rank"] b')).to_have_text("#1")
    beginner = page.locator('#daily-levels tr[data-level="beginner"] td')
    expect(beginner.nth(0)).to_have_text("2")  # played
    expect(beginner.nth(1)).to_have_text("1")  # won
    expect(beginner.nth(2)).to_have_text("1 / 1")  # streak now / best
    rows = page.locator("#daily-calendar tbody tr")
    expect(rows).to_have_count(2)
    expect(rows.nth(0)).to_have_attribute("data-date", today.isoformat())
    expect(rows.nth(0).locator('td[data-level="beginner"] .pill.won')).to_be_visible()
    expect(rows.nth(1).locator('td[data-level="beginner"] .pill.lost')).to_be_visible()
    expect(rows.nth(1).locator('td[data-level="beginner"] a')).to_have_attribute(
        "href", f"/games/{past.id}/replay"
    )
    page.locator("#daily-section").scroll_into_view_if_needed()
    screenshot(page, "profile-daily")
