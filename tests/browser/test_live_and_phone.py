"""Watching a game live from a second browser, a phone-sized viewport, big boards and the
"How to play" boards, in real Chromium."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.support.boards import mines_of
from tests.support.browser import (
    cell,
    layout_after_first_tap,
    long_press_by_touch,
    new_player_game,
    screenshot,
    sign_up_by_api,
    start_game,
)


def test_a_second_browser_watching_the_game_sees_each_move_live(
    desktop: Any, browser: Any, live: str
) -> None:
    player, game_id = new_player_game(desktop, "alice", "intermediate")
    cell(player, 8, 5).click()
    expect(cell(player, 8, 5)).to_have_attribute("data-v", "0")

    watcher_context = browser.new_context(
        viewport={"width": 1100, "height": 800}, base_url=live, locale="en-GB"
    )
    try:
        watcher = watcher_context.new_page()
        watcher.goto("/")
        expect(watcher.locator(f'#live-list a[href="/games/{game_id}"]')).to_have_count(1)
        watcher.goto(f"/games/{game_id}")
        expect(watcher.locator("#game-title")).to_contain_text("alice")
        expect(watcher.locator("#flag-mode")).to_be_hidden()  # only the player moves
        expect(watcher.locator("#live-badge")).to_be_visible()
        expect(watcher.locator("#game")).to_have_attribute("data-live", "socket")

        board = layout_after_first_tap(16, 10, 25, 8, 5)
        expected = board.render()
        for y, row in enumerate(expected):
            for x, v in enumerate(row):
                if v != "#":
                    expect(cell(watcher, x, y)).to_have_attribute("data-v", v)
        mine = next(m for m in sorted(mines_of(board)) if expected[m[1]][m[0]] == "#")
        cell(player, *mine).click(button="right")
        expect(cell(watcher, *mine)).to_have_attribute("data-v", "F")
        expect(watcher.locator("#mines-left")).to_have_text("24")

        player.click("#pause")
        player.click("#pause-anyway")  # a ranked game asks first (RULES.md, Fair play)
        expect(watcher.locator("#board")).to_be_hidden()
        player.click("#resume")
        expect(watcher.locator("#board")).to_be_visible()
        expect(cell(watcher, *mine)).to_have_attribute("data-v", "F")

        player.click("#resign")
        player.click("#ask-yes")  # "Give up this game?" in the site's dialog
        expect(watcher.locator("#status")).to_contain_text("alice gave up")
    finally:
        watcher_context.close()


@pytest.fixture(autouse=True)
def _accept_dialogs(desktop: Any) -> None:
    desktop.on("page", lambda page: page.on("dialog", lambda d: d.accept()))


def test_on_a_phone_the_board_fits_taps_open_long_press_flags_and_the_menu_pauses(
    phone: Any,
) -> None:
    sign_up_by_api(phone, "frank")
    page = phone.new_page()
    page.goto("/")
    expect(page.locator("h1")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    start_game(page, "beginner")
    box = page.locator("#board").bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 360
    cell(page, 4, 4).tap()
    expect(cell(page, 4, 4)).to_have_attribute("data-v", "0")
    # No text selection, callout or double-tap zoom on the board.
    styles = page.evaluate(
        "(() => { const s = getComputedStyle(document.getElementById('board'));"
        " return [s.userSelect || s.webkitUserSelect, s.touchAction]; })()"
    )
    assert styles == ["none", "manipulation"]
    board = layout_after_first_tap(9, 9, 10, 4, 4)
    closed_mines = [m for m in sorted(mines_of(board)) if board.render()[m[1]][m[0]] == "#"]
    long_press_by_touch(page, cell(page, *closed_mines[0]))
    expect(cell(page, *closed_mines[0])).to_have_attribute("data-v", "F")
    expect(page.locator("#mines-left")).to_have_text("9")
    page.click("#flag-mode")
    cell(page, *closed_mines[1]).tap()
    expect(cell(page, *closed_mines[1])).to_have_attribute("data-v", "F")
    page.click("#flag-mode")
    expect(page.locator("#mines-left")).to_have_text("8")
    flag_box = page.locator("#flag-mode").bounding_box()
    assert (
        flag_box["x"] + flag_box["width"] <= 360 and flag_box["y"] + flag_box["height"] <= 740
    )  # in a corner
    screenshot(page, "phone")
    # Opening the menu pauses the game and hides the board (RULES.md, Time).
    page.click("#site-menu summary")
    expect(page.locator("#board")).to_be_hidden()
    expect(page.locator("#site-menu nav")).to_be_visible()


def test_expert_and_marathon_boards_play_and_zoom(desktop: Any) -> None:
    page, _ = new_player_game(desktop, "grace", "expert")
    cell(page, 15, 8).click()
    expect(cell(page, 15, 8)).to_have_attribute("data-v", "0")
    board = layout_after_first_tap(30, 16, 60, 15, 8)
    rows = board.render()
    # Flag a few mines on the edge of the opening, as a player would.
    edge = [
        (x, y)
        for (x, y) in sorted(mines_of(board))
        if any(
            0 <= x + dx < 30 and 0 <= y + dy < 16 and rows[y + dy][x + dx] not in "#F"
            for dx in (-1, 0, 1)
            for dy in (-1, 0, 1)
        )
    ]
    for m in edge[:5]:
        cell(page, *m).click(button="right")
        expect(cell(page, *m)).to_have_attribute("data-v", "F")
    expect(page.locator("#mines-left")).to_have_text(str(60 - len(edge[:5])))
    screenshot(page, "play-expert")

    start_game(page, "marathon")
    expect(page.locator("#board .cell")).to_have_count(3200)
    cell(page, 40, 20).click()
    expect(cell(page, 40, 20)).to_have_attribute("data-v", "0")
    before = cell(page, 0, 0).bounding_box()["width"]
    page.click("#zoom-in")
    assert cell(page, 0, 0).bounding_box()["width"] > before
    page.click("#zoom-out")
    screenshot(page, "play-marathon")


def test_how_to_play_boards_open_nine_cells_four_cells_and_one_cell_by_chord(desktop: Any) -> None:
    page = desktop.new_page()
    page.goto("/how-to-play")
    # The page opens on the pictures the rules describe: each first tap made, its square open.
    square = page.locator('[data-demo="square"]')
    expect(square.locator('.cell:not([data-v="#"])')).to_have_count(9)
    expect(square.locator(".demo-out")).to_have_text("Opened: 9")
    corner = page.locator('[data-demo="corner"]')
    expect(corner.locator('.cell:not([data-v="#"])')).to_have_count(4)
    # "Start again" closes a board, and the reader makes the tap.
    square.locator(".demo-reset").click()
    expect(square.locator('.cell:not([data-v="#"])')).to_have_count(0)
    square.locator('.cell[data-x="3"][data-y="3"]').click()
    expect(square.locator('.cell:not([data-v="#"])')).to_have_count(9)
    corner.locator(".demo-reset").click()
    corner.locator('.cell[data-x="0"][data-y="0"]').click()
    expect(corner.locator('.cell:not([data-v="#"])')).to_have_count(4)
    chord = page.locator('[data-demo="chord"]')
    closed_before = chord.locator('.cell[data-v="#"]').count()
    chord.locator('.cell[data-x="3"][data-y="2"]').click()  # column 4, row 3
    expect(chord.locator('.cell[data-v="#"]')).to_have_count(closed_before - 1)
    expect(chord.locator(".demo-out")).to_contain_text("1")
    chord.locator(".legend").scroll_into_view_if_needed()
    screenshot(page, "how-to-play")
