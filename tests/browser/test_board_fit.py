"""Big boards fit the screen, on a phone and on a desktop, without the flag toggle covering a
cell, in real Chromium."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from tests.support.browser import cell, new_player_game, screenshot, settle, sign_up_by_api


def test_on_a_phone_the_expert_board_frame_stops_above_the_flag_toggle(phone: Any) -> None:
    page, _ = new_player_game(phone, "quentin", "expert")
    cell(page, 15, 8).tap()
    expect(cell(page, 15, 8)).to_have_attribute("data-v", "0")
    frame = page.locator("#board-wrap").bounding_box()
    toggle = page.locator("#flag-mode").bounding_box()
    # The toggle floats in the corner (RULES.md, Flags); every cell scrolls into view above it.
    assert frame["y"] + frame["height"] <= toggle["y"]
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    screenshot(page, "phone-expert")
    settle(page)


def test_on_a_desktop_marathon_fits_the_screen_and_the_flag_toggle_covers_no_cell(
    desktop: Any,
) -> None:
    sign_up_by_api(desktop, "rupert")
    page = desktop.new_page()
    page.goto("/")
    page.click('.level-card[data-level="marathon"]')
    expect(page.locator("#board .cell")).to_have_count(3200)
    cell(page, 40, 20).click()
    expect(cell(page, 40, 20)).to_have_attribute("data-v", "0")
    frame = page.locator("#board-wrap").bounding_box()
    board = page.locator("#board").bounding_box()
    toggle = page.locator("#flag-mode").bounding_box()
    # The whole 80 x 40 board is on the 1280 x 860 screen at once, clock and counter included.
    assert frame["y"] + frame["height"] <= 860 and board["width"] <= frame["width"]
    assert page.locator("#clock").bounding_box()["y"] >= 0
    assert toggle["y"] + toggle["height"] <= frame["y"]  # in the toolbar, above the board
    # Zooming keeps the cell at the centre of the frame in place.
    page.click("#zoom-in")
    page.click("#zoom-in")
    centre = page.evaluate(
        "(() => { const w = document.getElementById('board-wrap'); const r = w.getBoundingClientRect();"
        " const c = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);"
        " return [Number(c.dataset.x), Number(c.dataset.y)]; })()"
    )
    assert abs(centre[0] - 40) <= 2 and abs(centre[1] - 20) <= 2
    settle(page)
