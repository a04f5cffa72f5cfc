"""No-guess boards in the browser (RULES.md, No-guess boards): a player picks No-guess beside
the levels, the game says its mode, the first tap deals a board cleared by deduction (the
tests' solver agrees), the win lands on the no-guess times board and not on the classic one."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from tests.support.browser import cell, open_every_safe_cell, screenshot, sign_up_by_api
from tests.support.deduction import solve
from tests.support.noguess import game_no_guess, layout_and_opening


def test_a_player_picks_no_guess_wins_it_and_finds_it_on_the_no_guess_board(desktop: Any) -> None:
    sign_up_by_api(desktop, "nadia")
    page = desktop.new_page()
    page.goto("/")
    page.check("#no-guess")
    screenshot(page, "no-guess-home")
    page.click('.level-card[data-level="beginner"]')
    page.wait_for_url("**/games/*")
    game_id = page.url.rsplit("/", 1)[1]
    expect(page.locator("#game-title")).to_have_text("Beginner · no guess")
    cell(page, 4, 4).click()
    expect(cell(page, 4, 4)).not_to_have_attribute("data-v", "#")  # the first tap is stored
    assert game_no_guess(game_id)
    board, mines, opening = layout_and_opening(game_id)
    assert solve(board.width, board.height, mines, opening).cleared
    open_every_safe_cell(page, game_id)
    expect(page.locator("#rank-result")).to_have_text(
        "A personal best! #1 on the Beginner · no guess times board."
    )
    screenshot(page, "no-guess-won")

    page.click("#result a:has-text('Leaderboard')")  # the result links the no-guess board
    page.wait_for_url("**/leaderboards/beginner?mode=no_guess")
    expect(page.locator("#mode-label")).to_be_visible()
    expect(page.locator("#ranking tbody")).to_contain_text("nadia")
    screenshot(page, "leaderboards-no-guess")
    page.click('[data-mode="classic"]')
    expect(page.locator("#empty")).to_be_visible()  # the classic board holds no no-guess win
    expect(page.locator("#mode-label")).to_be_hidden()
    # The profile counts it apart: the no-guess table, not the classic one.
    page.goto("/players/nadia")
    row = page.locator('#stats-no-guess tr[data-level="beginner"]')
    expect(row.locator("td").nth(1)).to_have_text("1")  # won
    expect(page.locator('#stats tr[data-level="beginner"] td').nth(0)).to_have_text("0")
    expect(page.locator("#recent")).to_contain_text("Beginner · no guess")
    # The choice stays for the next game on the home page.
    page.goto("/")
    expect(page.locator("#no-guess")).to_be_checked()
