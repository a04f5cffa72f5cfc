"""One styled dialog for every question the site asks: Give up, New game
over a started game, the pause of a ranked game and revoking a token use the page's own
<dialog class="ask">, never the browser's confirm(); the safe answer has the focus and Escape
keeps things as they are. (The home page's level cards: test_home_page.py; the token:
test_accounts.py; the pause: test_fairplay.py.)"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.support.browser import cell, new_player_game, screenshot


def no_native_dialogs(page: Any) -> list[str]:
    """Every confirm()/alert() the page opens (none is expected), answered "no"."""
    native: list[str] = []
    page.on("dialog", lambda d: (native.append(d.message), d.dismiss()))
    return native


@pytest.mark.parametrize("device", ["desktop", "phone"])
def test_give_up_and_new_game_ask_in_the_sites_dialog(
    request: pytest.FixtureRequest, device: str, live: str
) -> None:
    # `live` named here, not only through the device picked at run time: pytest-django sets
    # up and opens the test database for the fixtures a test names when it is collected.
    context = request.getfixturevalue(device)
    page, game_id = new_player_game(context, f"dia{device}", "beginner")
    native = no_native_dialogs(page)
    cell(page, 4, 4).click()
    expect(cell(page, 4, 4)).to_have_attribute("data-v", "0")

    page.click("#resign")
    ask = page.get_by_role("dialog", name="Give up this game?")
    expect(ask).to_be_visible()
    expect(ask).to_contain_text("It counts as a loss.")
    expect(page.locator("#ask-no")).to_be_focused()
    expect(page.locator("#ask-no")).to_have_text("Keep playing")
    width = page.viewport_size["width"]
    box = ask.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= width  # nothing cut on a phone
    screenshot(page, f"dialog-give-up-{device}")
    page.click("#ask-no")
    expect(ask).to_be_hidden()
    assert context.request.get(f"/api/games/{game_id}").json()["state"] == "playing"

    page.click("#new-game")
    ask = page.get_by_role("dialog", name="Start a new game?")
    expect(ask).to_be_visible()
    page.keyboard.press("Escape")  # Escape keeps the game
    expect(ask).to_be_hidden()
    assert page.url.endswith(game_id)

    page.click("#resign")
    page.click("#ask-yes")
    expect(page.locator("#result")).to_contain_text("You gave up.")
    assert context.request.get(f"/api/games/{game_id}").json()["state"] == "lost"
    assert native == []
