"""The replay page steps through a finished game move by move, explicit flag moves
included, in real Chromium."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from tests.support.browser import (
    beginner_after_first_tap,
    cell,
    finished_beginner_with_flag_moves,
    screenshot,
    sign_up_by_api,
)


def test_the_replay_follows_explicit_flag_moves_and_frames_each_move(desktop: Any) -> None:
    sign_up_by_api(desktop, "sybil")
    game_id, (a, b) = finished_beginner_with_flag_moves(desktop, "sybil")
    page = desktop.new_page()
    page.goto(f"/games/{game_id}/replay")
    expect(page.locator("#step-info")).to_have_text("Move 0 of 6")
    page.click("#forward")
    expect(cell(page, 4, 4)).to_have_attribute("data-v", "0")
    expect(cell(page, 4, 4)).to_have_class("cell c-open n0 m-last")
    page.click("#forward")
    expect(cell(page, *a)).to_have_attribute("data-v", "F")
    # `flagged: true` on a flag is a no-op: replaying it as a toggle would remove the flag.
    page.click("#forward")
    expect(cell(page, *a)).to_have_attribute("data-v", "F")
    page.click("#forward")
    expect(cell(page, *b)).to_have_attribute("data-v", "F")
    page.keyboard.press("ArrowRight")  # the arrow keys step too
    expect(cell(page, *b)).to_have_attribute("data-v", "#")
    expect(page.locator("#step-info")).to_contain_text("Move 5 of 6: remove the flag")
    screenshot(page, "replay")
    # The slider wears the site's accent, not the browser's default blue.
    scrub = page.locator("#scrub")
    assert scrub.evaluate("s => getComputedStyle(s).accentColor") == "rgb(208, 38, 58)"
    screenshot(scrub, "replay-slider")
    expect(cell(page, *a)).not_to_have_class("m-last")
    page.click("#last")
    expect(page.locator("#step-info")).to_contain_text("Move 6 of 6")
    # The end picture is the server's: the flag on a is `F` on a mine or `!` on a safe cell.
    _, mines, _ = beginner_after_first_tap()
    a_is_mine = a in mines
    expect(cell(page, *a)).to_have_attribute("data-v", "F" if a_is_mine else "!")
