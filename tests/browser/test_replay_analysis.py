"""The replay page shows the analysis of a lost game move by move: a badge per move, the
chance it took, and the safest cell there was outlined, in real Chromium."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import expect

from accounts.models import User
from games.play.analysis_jobs import analyse_game
from tests.support.boards import COIN, game_from_ascii
from tests.support.browser import cell, screenshot, sign_up_by_api
from tests.support.http import post
from tests.support.personas import client_for


def test_the_replay_of_a_game_lost_on_a_coin_marks_the_forced_guess(desktop: Any) -> None:
    sign_up_by_api(desktop, "tycho")
    api = client_for(User.objects.get(username="tycho"))
    game_id = game_from_ascii(api, COIN)["id"]
    for x, y in ((0, 0), (1, 4)):
        assert post(api, game_id, "reveal", {"x": x, "y": y}).status_code == 200
    page = desktop.new_page()
    page.goto(f"/games/{game_id}/replay")
    expect(page.locator("#analysis-summary")).to_contain_text("not ready yet")
    assert analyse_game(game_id)  # what the worker does after the end

    page.reload()
    expect(page.locator("#analysis-summary")).to_contain_text("Forced guesses: 1")
    expect(page.locator("#analysis-summary")).to_contain_text("unlucky loss")
    page.click("#forward")
    expect(page.locator("#move-badge")).to_have_text("Deduced")  # the first tap
    page.click("#forward")
    expect(page.locator("#move-badge")).to_have_text("Forced guess")
    expect(page.locator("#move-badge")).to_have_class("badge badge-forced_guess")
    expect(page.locator("#move-odds")).to_contain_text("50%")
    expect(cell(page, 0, 4)).to_have_class("cell c-closed m-safest")  # the other coin
    expect(cell(page, 1, 4)).to_contain_class("m-last")
    screenshot(page, "replay-forced-guess")


# After a first tap at (4, 0) the bottom row's (1, 4) is provably safe, (0, 4) a mine.
PROVABLE = [".....", ".....", ".....", ".....", "*.*.."]


def test_an_avoidable_guess_says_whether_a_safe_cell_or_only_a_safer_guess_was_there(
    desktop: Any, live: str
) -> None:
    sign_up_by_api(desktop, "vera")
    api = client_for(User.objects.get(username="vera"))

    def lost(rows: list[str], moves: tuple[tuple[int, int], ...]) -> str:
        game_id = str(game_from_ascii(api, rows)["id"])
        for x, y in moves:
            assert post(api, game_id, "reveal", {"x": x, "y": y}).status_code == 200
        assert analyse_game(game_id)
        return game_id

    needless = lost(PROVABLE, ((4, 0), (0, 4)))
    riskier = lost(COIN, ((0, 0), (2, 4)))  # (2, 4) was a mine for certain, the rest 50/50
    page = desktop.new_page()
    badge, odds = page.locator("#move-badge"), page.locator("#move-odds")
    page.goto(f"/games/{needless}/replay")
    page.click("#last")
    expect(badge).to_have_text("Needless guess: a provably safe cell was there")
    expect(badge).to_have_attribute("data-kind", "provable")
    expect(odds).to_contain_text("the safest cell then: 0%")
    page.goto(f"/games/{riskier}/replay")
    page.click("#last")
    expect(badge).to_have_text("Riskier guess: a safer one was there")
    expect(badge).to_have_attribute("data-kind", "safer")
    expect(odds).to_contain_text("Chance of a mine: 100% · the safest cell then: 50%")
    screenshot(page, "replay-riskier-guess")

    # In French, the percentages are written as French writes them: "50 %".
    desktop.add_cookies([{"name": "django_language", "value": "fr", "url": live}])
    page.reload()
    page.click("#last")
    expect(odds).to_contain_text(re.compile(r"100\s%.*50\s%"))
    desktop.clear_cookies(name="django_language")
