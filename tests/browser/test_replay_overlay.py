"""The replay's probability overlay in real Chromium: after the end a toggle, worked by the
keyboard, draws every closed cell's chance of a mine at the step shown, with the chance in
each cell's label for screen readers and a legend; the game's counters beside it."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from accounts.models import User
from games.play.analysis_jobs import analyse_game
from tests.support.boards import COIN, game_from_ascii
from tests.support.browser import cell, screenshot, sign_up_by_api, token_for
from tests.support.http import post
from tests.support.personas import client_for


def test_the_overlay_shows_each_closed_cells_chance_at_the_step_shown(desktop: Any) -> None:
    sign_up_by_api(desktop, "laplace")
    api = client_for(User.objects.get(username="laplace"))
    game_id = game_from_ascii(api, COIN)["id"]
    for x, y in ((0, 0), (0, 4), (3, 4)):  # the coin survived, then the last safe cell: won
        assert post(api, game_id, "reveal", {"x": x, "y": y}).status_code == 200
    assert analyse_game(game_id)  # what the worker does after the end, the overlay with it
    page = desktop.new_page()
    page.goto(f"/games/{game_id}/replay")
    expect(page.locator("#replay-counters")).to_be_visible()
    page.click("#forward")  # after the first tap
    toggle = page.locator("#overlay-toggle")
    expect(page.locator(".overlay-toggle")).to_contain_text("Show mine probabilities")
    toggle.focus()
    page.keyboard.press("Space")
    expect(toggle).to_be_checked()
    expect(cell(page, 2, 4)).to_have_attribute("data-heat", "5")
    expect(cell(page, 2, 4)).to_have_attribute(
        "aria-label", "closed, column 3, row 5, chance of a mine: 100%"
    )
    expect(cell(page, 0, 4)).to_have_attribute(
        "aria-label", "closed, column 1, row 5, chance of a mine: 50%"
    )
    expect(page.locator("#board [data-heat]")).to_have_count(5)
    expect(page.locator("#overlay-legend li")).to_have_count(6)
    screenshot(page, "replay-overlay")
    # The dark theme has its own six colours; the same step, the same labels.
    auth = token_for(desktop, "laplace")
    r = desktop.request.patch("/api/me/settings", data={"theme": "dark"}, headers=auth)
    assert r.status == 200, r.text()
    page.reload()
    page.click("#forward")
    page.locator("#overlay-toggle").check()
    expect(cell(page, 2, 4)).to_have_attribute("data-heat", "5")
    assert page.evaluate("document.documentElement.dataset.shade") == "dark"
    screenshot(page, "replay-overlay-dark")
    page.click("#first")  # before the first tap: 3 mines in 25 cells
    expect(cell(page, 4, 0)).to_have_attribute(
        "aria-label", "closed, column 5, row 1, chance of a mine: 12%"
    )
    toggle.focus()
    page.keyboard.press("Space")  # off again: the board as it was
    expect(page.locator("#board [data-heat]")).to_have_count(0)
    expect(cell(page, 4, 0)).to_have_attribute("aria-label", "closed, column 5, row 1")
