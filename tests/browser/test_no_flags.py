"""Playing without flags (docs/STATS.md, No-flag records; docs/FRONTEND.md, Settings), in real
Chromium: the setting turns the right click, F and the flag mode off on the game page; the win
is NF, its replay says so among the game's counters, and it ranks on the leaderboards' NF
board (`?style=nf`) as well as the standard one."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import expect

from tests.support.browser import (
    beginner_after_first_tap,
    cell,
    open_every_safe_cell,
    screenshot,
    sign_up_by_api,
    start_game,
)


def test_without_flags_the_right_click_and_flag_mode_do_nothing_and_the_win_is_on_the_nf_board(
    desktop: Any,
) -> None:
    sign_up_by_api(desktop, "nora")
    page = desktop.new_page()
    page.goto("/settings")
    form = page.locator("#settings-form")
    expect(form).to_have_attribute("data-ready", "true")
    expect(page.locator("#no-flags")).not_to_be_checked()
    page.check("#no-flags")
    expect(form).to_have_attribute("data-saved", re.compile(r"^\d+$"))
    assert desktop.request.get("/api/me/settings").json()["no_flags"] is True

    game_id = start_game(page, "beginner")
    cell(page, 4, 4).click()
    expect(page.locator("#game")).to_have_attribute("data-state", "playing")
    expect(page.locator("#flag-mode")).to_be_hidden()
    _, mines, _ = beginner_after_first_tap()
    x, y = sorted(mines)[0]
    cell(page, x, y).click(button="right")
    expect(page.locator("#status")).to_contain_text("Flags are off")
    cell(page, x, y).hover()
    page.keyboard.press("f")  # the flag key does nothing either
    page.keyboard.press("m")  # nor does the flag mode's key
    expect(page.locator("#game")).not_to_have_class(re.compile(r"\bflag-mode\b"))
    expect(cell(page, x, y)).to_have_attribute("data-v", "#")
    moves = desktop.request.get(f"/api/games/{game_id}/moves").json()["results"]
    assert [m["action"] for m in moves] == ["reveal"]  # no flag was ever sent
    open_every_safe_cell(page, game_id)
    expect(page.locator("#game")).to_have_attribute("data-state", "won")

    page.goto(f"/games/{game_id}/replay")
    counters = page.locator("#replay-counters")
    expect(counters).to_be_visible()
    expect(counters).to_contain_text("no-flag (NF) win")
    expect(counters).to_contain_text("IOE")

    page.goto("/leaderboards/beginner")
    expect(page.locator("#ranking tbody tr")).to_have_count(1)
    page.select_option("#style", "nf")
    expect(page).to_have_url(re.compile(r"style=nf"))
    expect(page.locator("#ranking tbody tr")).to_have_count(1)
    expect(page.locator("#ranking tbody")).to_contain_text("nora")
    screenshot(page, "leaderboards-nf")
    page.click("#tab-streaks")  # a streak board has no NF style: the choice is not offered
    expect(page.locator("#style-label")).to_be_hidden()

    page.goto("/players/nora")
    expect(page.locator("#nf-section")).to_be_visible()
    expect(page.locator("#nf-bests tbody tr")).to_have_count(1)
