"""The insights page (docs/STATS.md, Insights) in real Chromium, on a desktop and on a phone: the
four charts drawn by uPlot from the player's analysed games, their captions saying the key
numbers (the text alternative), the heat grid of where the guesses were, the charts no wider
than a phone's screen, and the link to it from the profile."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from accounts.models import User
from games.play.analysis_jobs import analyse_game
from tests.play.test_insights import SEASON, play
from tests.support.browser import screenshot, sign_up_by_api
from tests.support.personas import client_for

CHARTS = ("#fig-avoidable", "#fig-think", "#fig-speed", "#fig-luck")


def test_the_insights_page_draws_the_charts_on_a_desktop_and_a_phone(
    desktop: Any, phone: Any
) -> None:
    sign_up_by_api(desktop, "sibylle")
    api = client_for(User.objects.get(username="sibylle"))
    for game in SEASON:  # four custom games over two months (tests/play/test_insights.py)
        assert analyse_game(play(api, *game))

    page = desktop.new_page()
    page.goto("/players/sibylle")
    page.locator("#insights-link").click()
    expect(page).to_have_url("/players/sibylle/insights")
    expect(page.locator("#insights")).to_have_attribute("data-drawn", "custom:classic")
    expect(page.locator("#insights-level")).to_have_value("custom")  # the level with games
    for chart in CHARTS:
        expect(page.locator(f"{chart} .plot canvas")).to_have_count(1)
        # the two months, in words, for screen readers
        expect(page.locator(f"{chart} .visually-hidden table tbody tr")).to_have_count(2)
    caption = page.locator("#fig-avoidable figcaption")
    expect(caption).to_contain_text("games: 4. Avoidable guesses: 1, forced: 3")
    expect(caption).to_contain_text("25%")
    expect(page.locator("#fig-think figcaption")).to_contain_text("1.0\u00a0s")  # deduced
    expect(page.locator("#fig-think figcaption")).to_contain_text("17.0\u00a0s")  # guesses
    expect(page.locator("#fig-luck figcaption")).to_contain_text("luck +0.50")
    # a custom board's grid of tenths: three cells were guessed on, one of them twice
    expect(page.locator("#fig-heat .heat-cell")).to_have_count(100)
    expect(page.locator("#fig-heat .heat-cell.hot")).to_have_count(3)
    expect(page.locator('[data-total="games"] b')).to_have_text("4")
    screenshot(page, "insights-desktop", full_page=True)

    # another level: nothing analysed there, said so, and the charts empty
    page.locator("#insights-level").select_option("expert")
    expect(page.locator("#insights")).to_have_attribute("data-drawn", "expert:classic")
    expect(page.locator("#insights-empty")).to_be_visible()
    expect(page.locator("#fig-heat .heat-cell")).to_have_count(30 * 16)

    small = phone.new_page()
    small.goto("/players/sibylle/insights")
    expect(small.locator("#insights")).to_have_attribute("data-drawn", "custom:classic")
    for chart in CHARTS:
        expect(small.locator(f"{chart} .plot canvas")).to_have_count(1)
    # every chart fits the phone's 360 px: nothing to scroll sideways
    widths = small.evaluate(
        "() => [...document.querySelectorAll('.insight .plot canvas')]"
        ".map((c) => c.getBoundingClientRect().right)"
    )
    assert widths and max(widths) <= 360, widths
    assert small.evaluate("() => document.documentElement.scrollWidth") <= 360
    screenshot(small, "insights-phone", full_page=True)
