""" "The server cannot be reached" goes as soon as the server answers again:
the connection drops (Chromium's offline emulation, `context.set_offline`), two moves are
made meanwhile, the page says it cannot reach the server; once the connection is back the
moves reach the server and the notice goes, without a reload."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from tests.support.boards import mines_of
from tests.support.browser import cell, layout_after_first_tap, new_player_game, screenshot

NOTICE = "The server cannot be reached. Check your connection."


def test_the_cannot_be_reached_notice_goes_once_the_server_answers_again(desktop: Any) -> None:
    page, game_id = new_player_game(desktop, "xena", "beginner")
    cell(page, 4, 4).click()
    expect(cell(page, 4, 4)).to_have_attribute("data-v", "0")
    expect(page.locator("#game")).to_have_attribute("data-live", "socket")
    board = layout_after_first_tap(9, 9, 10, 4, 4)
    mines = sorted(mines_of(board))

    desktop.set_offline(True)
    cell(page, *mines[0]).click(button="right")  # two moves while the connection is down
    cell(page, *mines[1]).click(button="right")
    status = page.locator("#status")
    expect(status).to_have_text(NOTICE)  # the socket's answer is late, REST cannot go
    screenshot(page, "offline-notice")

    desktop.set_offline(False)
    expect(status).not_to_have_text(NOTICE, timeout=15_000)  # gone by itself
    for mine in mines[:2]:
        expect(cell(page, *mine)).to_have_attribute("data-v", "F")
    flags = [
        (m["x"], m["y"])
        for m in desktop.request.get(f"/api/games/{game_id}/moves").json()["results"]
        if m["action"] == "flag"
    ]
    assert sorted(flags) == sorted(mines[:2])  # both offline moves reached the server, once
    expect(page.locator("#mines-left")).to_have_text("8")
