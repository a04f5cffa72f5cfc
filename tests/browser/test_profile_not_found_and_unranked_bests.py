"""A profile that does not exist is a real 404 page; a guest's bests are shown, marked as
unranked (docs/FAIRPLAY.md: a guest's wins set the guest's own bests but
never rank)."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import expect

from tests.support.boards import mines_of
from tests.support.browser import cell, layout_after_first_tap, screenshot


def test_an_unknown_players_profile_is_a_404_page(desktop: Any) -> None:
    page = desktop.new_page()
    answer = page.goto("/players/nobody-plays-here")
    assert answer is not None and answer.status == 404
    expect(page.locator("h1")).to_have_text("No such player")
    expect(page.locator("#not-found")).to_contain_text("Nobody plays under this name")
    expect(page.locator("#stats")).to_have_count(0)  # no empty tables under it
    expect(page.locator("#not-found a[href='/']")).to_be_visible()
    screenshot(page, "profile-not-found")


def test_a_guests_profile_shows_its_best_time_marked_unranked(desktop: Any) -> None:
    page = desktop.new_page()
    page.goto("/")
    page.click('.level-card[data-level="beginner"]')  # a visitor plays at once, as a guest
    page.wait_for_url("**/games/*")
    name = page.locator("body").get_attribute("data-user") or ""
    assert name.startswith("guest-")
    cell(page, 4, 4).click()
    expect(cell(page, 4, 4)).to_have_attribute("data-v", "0")
    board = layout_after_first_tap(9, 9, 10, 4, 4)
    mines = mines_of(board)
    for y in range(9):
        for x in range(9):
            if (x, y) not in mines and cell(page, x, y).get_attribute("data-v") == "#":
                cell(page, x, y).click()
                expect(cell(page, x, y)).not_to_have_attribute("data-v", "#")
    expect(page.locator("#result")).to_contain_text("You won")

    page.goto(f"/players/{name}")
    row = page.locator('#stats tr[data-level="beginner"]')
    expect(row.locator("td").nth(1)).to_have_text("1")  # won
    best = row.locator("td").nth(3)
    expect(best).to_contain_text(re.compile(r"\d+\.\d{3}\s?s"))  # the time, not "—"
    expect(best.locator(".badge-unranked")).to_have_text("unranked")
    expect(best.locator(".badge-unranked")).to_have_attribute(
        "title", "Played as a guest: a guest's games never rank."
    )
    screenshot(page, "profile-guest-unranked-best")
