"""Luck, measured (docs/STATS.md), in real Chromium: the replay of a game with two coin flips
says the chance of having survived them, and the profile lists the player's flips against
their odds, the luck-adjusted record and a chart of the luck by month."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from accounts.models import User
from games.play.analysis_jobs import analyse_game
from tests.play.test_luck import BOTH_WON, TWO_COINS, UNLUCKY
from tests.support.boards import COIN, game_from_ascii
from tests.support.browser import screenshot, sign_up_by_api
from tests.support.http import post
from tests.support.personas import client_for


def _played(api: Any, rows: list[str], taps: list[tuple[int, int]]) -> str:
    game_id = game_from_ascii(api, rows)["id"]
    for x, y in taps:
        assert post(api, game_id, "reveal", {"x": x, "y": y}).status_code == 200
    assert analyse_game(game_id)  # what the worker does after the end
    return game_id


def test_the_replay_and_the_profile_show_the_luck_of_the_forced_guesses(desktop: Any) -> None:
    sign_up_by_api(desktop, "fortuna")
    api = client_for(User.objects.get(username="fortuna"))
    won = _played(api, TWO_COINS, BOTH_WON)  # two flips of 1/2 survived
    _played(api, COIN, UNLUCKY)  # one flip of 1/2 lost

    page = desktop.new_page()
    page.goto(f"/games/{won}/replay")
    luck = page.locator("#replay-luck")
    expect(luck).to_be_visible()
    expect(luck).to_contain_text("25%")  # (1 - 1/2) x (1 - 1/2)
    expect(luck).to_contain_text("2 won, 0 lost")
    expect(luck).to_contain_text("+1.00 (2 survived, 1.00 expected)")
    screenshot(page, "replay-luck")

    page.goto("/players/fortuna")
    row = page.locator("#luck-stats tr[data-level=custom][data-no-guess=false]")
    # flips 2 won, 1 lost; expected 3 x 1/2 = 1.5; luck 2 - 1.5; adjusted: 1 win + 1 unlucky of 2
    expect(row.locator("td")).to_have_text(["2 / 1", "1.50", "+0.50", "2 / 2", "2 / 2"])
    expect(page.locator("#luck-level")).to_have_value("custom")  # the level with flips
    expect(page.locator("#luck-chart svg circle")).to_have_count(1)  # one month so far
    page.locator("#luck-section").scroll_into_view_if_needed()
    screenshot(page, "profile-luck")
