"""A reload or a glance away keeps a ranked game ranked; a page hidden past the grace period
pauses its game by itself (RULES.md, Time and Fair play; docs/FAIRPLAY.md, "Away from the
page").

How the page is hidden: headless Chromium keeps every tab visible, so the tests do what the
browser does when a tab goes to the background: `document.visibilityState` is overridden to
"hidden" (and back to "visible") and a `visibilitychange` event is dispatched. The page's own
timers then run as they would (unthrottled, which only makes the grace period exact)."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from tests.support.browser import cell, new_player_game, screenshot

GRACE_S = 5  # game_state.js AWAY_GRACE_MS


def set_visibility(page: Any, state: str) -> None:
    page.evaluate(
        "(state) => {"
        " Object.defineProperty(document, 'visibilityState', {value: state, configurable: true});"
        " Object.defineProperty(document, 'hidden', {value: state === 'hidden', configurable: true});"
        " document.dispatchEvent(new Event('visibilitychange')); }",
        state,
    )


def game_of(context: Any, game_id: str) -> dict[str, Any]:
    return dict(context.request.get(f"/api/games/{game_id}").json())


def actions_of(context: Any, game_id: str) -> list[str]:
    moves = context.request.get(f"/api/games/{game_id}/moves").json()["results"]
    return [m["action"] for m in moves]


def test_a_reload_and_a_glance_away_keep_a_ranked_game_ranked(desktop: Any) -> None:
    page, game_id = new_player_game(desktop, "uma", "beginner")
    cell(page, 4, 4).click()
    expect(cell(page, 4, 4)).to_have_attribute("data-v", "0")
    note = page.locator("#fair-note")
    expect(note).to_contain_text("for more than 5 s (a reload does not)")

    # An accidental F5: the page unloads (and is hidden on the way) and comes back.
    page.reload()
    expect(cell(page, 4, 4)).to_have_attribute("data-v", "0")
    expect(note).to_have_attribute("data-reason", "ranked")
    g = game_of(desktop, game_id)
    assert (g["state"], g["ranked"], g["unranked_reason"]) == ("playing", True, None)

    # A look at another tab for two seconds, then back: still ranked, well after the grace
    # period would have run out.
    set_visibility(page, "hidden")
    page.wait_for_timeout(2000)
    set_visibility(page, "visible")
    page.wait_for_timeout((GRACE_S + 1) * 1000 - 2000)
    g = game_of(desktop, game_id)
    assert (g["state"], g["ranked"]) == ("playing", True)
    assert "pause" not in actions_of(desktop, game_id)
    expect(page.locator("#board")).to_be_visible()
    cell(page, 0, 8).click()  # the game goes on
    expect(cell(page, 0, 8)).not_to_have_attribute("data-v", "#")


def test_ten_seconds_hidden_pauses_the_game_by_itself(desktop: Any) -> None:
    page, game_id = new_player_game(desktop, "vera", "beginner")
    cell(page, 4, 4).click()
    expect(cell(page, 4, 4)).to_have_attribute("data-v", "0")
    set_visibility(page, "hidden")
    page.wait_for_timeout(3000)  # within the grace period: nothing happens yet
    assert game_of(desktop, game_id)["state"] == "playing"
    # The other seven seconds: the pause comes once the grace period (5 s) is over.
    expect(page.locator("#board")).to_be_hidden()
    g = game_of(desktop, game_id)
    assert (g["state"], g["ranked"], g["unranked_reason"]) == ("paused", False, "paused")
    assert g["board"] is None
    assert actions_of(desktop, game_id).count("pause") == 1
    set_visibility(page, "visible")
    expect(page.locator("#status")).to_have_text(
        "The game paused itself: the page was hidden for more than 5 s."
    )
    expect(page.locator("#fair-note")).to_have_attribute("data-reason", "paused")
    screenshot(page, "away-paused")
