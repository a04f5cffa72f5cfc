"""The leaderboards page's tabs, driven from the keyboard, in real Chromium."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect


def test_the_ranking_tabs_follow_the_arrow_keys(desktop: Any) -> None:
    page = desktop.new_page()
    page.goto("/leaderboards/expert")
    page.locator("#tab-times").focus()
    page.keyboard.press("ArrowRight")
    expect(page.locator("#tab-speed")).to_have_attribute("aria-selected", "true")
    expect(page.locator("#tab-speed")).to_be_focused()
    expect(page.locator("#ranking thead")).to_contain_text("3BV/s")
    page.keyboard.press("End")  # the last tab: the race ratings (docs/RACES.md)
    expect(page.locator("#tab-races")).to_have_attribute("aria-selected", "true")
    expect(page.locator("#ranking-panel")).to_have_attribute("aria-labelledby", "tab-races")
    page.keyboard.press("ArrowLeft")
    expect(page.locator("#tab-streaks")).to_have_attribute("aria-selected", "true")
    expect(page.locator("#ranking-panel")).to_have_attribute("aria-labelledby", "tab-streaks")
    assert page.locator("[role=tab][tabindex='0']").count() == 1  # one Tab stop
