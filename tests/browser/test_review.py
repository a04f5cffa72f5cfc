"""What a demanding player noticed on a phone and a desktop, fixed and kept fixed: no page
wider than a 360 px phone, big boards that fit the screen without the flag toggle covering
cells, a replay that follows explicit flag moves exactly, and pages that speak the player's
language down to decimal commas, server errors and the "page not found" page."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.support.boards import chord_target, mines_of, neighbours
from tests.support.browser import (
    cell,
    layout_after_first_tap,
    new_player_game,
    screenshot,
    sign_up_by_api,
)
from tests.support.personas import PASSWORD

pytestmark = pytest.mark.browser


def token_for(context: Any, username: str) -> dict[str, str]:
    """An API client's header for `username`, made through the public API (API.md, Accounts)."""
    r = context.request.post("/api/auth/token", data={"username": username, "password": PASSWORD})
    assert r.status == 200, r.text()
    return {"Authorization": f"Token {r.json()['token']}"}


def finished_beginner_with_flag_moves(
    context: Any, username: str
) -> tuple[str, list[tuple[int, int]]]:
    """A Beginner game played through the API: a first tap, explicit and toggled flag moves,
    then resigned. Returns its id and the two flagged cells."""
    auth = token_for(context, username)
    game = context.request.post("/api/games", data={"level": "beginner"}, headers=auth).json()
    moves = f"/api/games/{game['id']}"
    assert context.request.post(f"{moves}/reveal", data={"x": 4, "y": 4}, headers=auth).ok
    rows = layout_after_first_tap(9, 9, 10, 4, 4).render()
    closed = [(x, y) for y, row in enumerate(rows) for x, v in enumerate(row) if v == "#"]
    a, b = closed[0], closed[1]
    for body in (
        {"x": a[0], "y": a[1], "flagged": True},  # move 2: flag a
        {"x": a[0], "y": a[1], "flagged": True},  # move 3: a no-op, a stays flagged
        {"x": b[0], "y": b[1]},  # move 4: a toggle flags b
        {"x": b[0], "y": b[1], "flagged": False},  # move 5: removes b's flag
    ):
        assert context.request.post(f"{moves}/flag", data=body, headers=auth).ok
    assert context.request.post(f"{moves}/resign", headers=auth).ok
    return game["id"], [a, b]


def settle(page: Any) -> None:
    """Pause the running game and wait for it: closing the page would otherwise pause it by
    itself (visibilitychange) while the test database is being wiped."""
    page.click("#pause")
    page.click("#pause-anyway")  # a ranked game asks first (RULES.md, Fair play)
    expect(page.locator("#paused-cover")).to_be_visible()


def test_on_a_phone_no_page_is_wider_than_the_screen(phone: Any) -> None:
    sign_up_by_api(phone, "peggy")
    token_for(phone, "peggy")  # a row in the tokens table
    page = phone.new_page()
    for path in ("/", "/tokens", "/leaderboards/expert", "/players/peggy", "/how-to-play", "/x"):
        page.goto(path)
        page.wait_for_load_state("networkidle")
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 360, f"{path} is {width} px wide on a 360 px phone"


def test_on_a_phone_the_expert_board_frame_stops_above_the_flag_toggle(phone: Any) -> None:
    page, _ = new_player_game(phone, "quentin", "expert")
    cell(page, 15, 8).tap()
    expect(cell(page, 15, 8)).to_have_attribute("data-v", "0")
    frame = page.locator("#board-wrap").bounding_box()
    toggle = page.locator("#flag-mode").bounding_box()
    # The toggle floats in the corner (RULES.md, Flags); every cell scrolls into view above it.
    assert frame["y"] + frame["height"] <= toggle["y"]
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    screenshot(page, "phone-expert")
    settle(page)


def test_on_a_desktop_marathon_fits_the_screen_and_the_flag_toggle_covers_no_cell(
    desktop: Any,
) -> None:
    sign_up_by_api(desktop, "rupert")
    page = desktop.new_page()
    page.goto("/")
    page.click('.level-card[data-level="marathon"]')
    expect(page.locator("#board .cell")).to_have_count(3200)
    cell(page, 40, 20).click()
    expect(cell(page, 40, 20)).to_have_attribute("data-v", "0")
    frame = page.locator("#board-wrap").bounding_box()
    board = page.locator("#board").bounding_box()
    toggle = page.locator("#flag-mode").bounding_box()
    # The whole 80 x 40 board is on the 1280 x 860 screen at once, clock and counter included.
    assert frame["y"] + frame["height"] <= 860 and board["width"] <= frame["width"]
    assert page.locator("#clock").bounding_box()["y"] >= 0
    assert toggle["y"] + toggle["height"] <= frame["y"]  # in the toolbar, above the board
    # Zooming keeps the cell at the centre of the frame in place.
    page.click("#zoom-in")
    page.click("#zoom-in")
    centre = page.evaluate(
        "(() => { const w = document.getElementById('board-wrap'); const r = w.getBoundingClientRect();"
        " const c = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);"
        " return [Number(c.dataset.x), Number(c.dataset.y)]; })()"
    )
    assert abs(centre[0] - 40) <= 2 and abs(centre[1] - 20) <= 2
    settle(page)


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
    expect(cell(page, *a)).not_to_have_class("m-last")
    page.click("#last")
    expect(page.locator("#step-info")).to_contain_text("Move 6 of 6")
    # The end picture is the server's: the flag on a is `F` on a mine or `!` on a safe cell.
    a_is_mine = a in mines_of(layout_after_first_tap(9, 9, 10, 4, 4))
    expect(cell(page, *a)).to_have_attribute("data-v", "F" if a_is_mine else "!")


def test_a_polish_player_reads_decimal_commas_polish_errors_and_a_polish_not_found_page(
    browser: Any, live: str
) -> None:
    context = browser.new_context(
        base_url=live, locale="pl-PL", viewport={"width": 1000, "height": 800}
    )
    try:
        context.request.post(
            "/api/auth/register", data={"username": "tadeusz", "password": PASSWORD}
        )
        page = context.new_page()
        page.goto("/signin")
        page.fill("input[name=username]", "tadeusz")
        page.fill("input[name=password]", "not the password")
        page.click("button[type=submit]")
        # The server says it in English; the page says it in the player's language.
        expect(page.locator("#auth-error")).to_have_text(
            "Nieprawidłowa nazwa użytkownika lub hasło."
        )

        game_id, _ = finished_beginner_with_flag_moves(context, "tadeusz")
        page.goto(f"/games/{game_id}")
        expect(page.locator("#result")).to_be_visible()
        expect(page.locator("#clock")).to_have_text(re.compile(r"^\d+,\d$"))

        response = page.goto("/nie-ma-takiej-strony")
        assert response is not None and response.status == 404
        expect(page.locator("h1")).to_have_text("Nie znaleziono strony")
        expect(page.locator("#site-menu")).to_be_attached()  # the site's page, menu included
    finally:
        context.close()


def test_a_player_sent_to_sign_in_on_the_way_to_a_level_lands_in_that_game(desktop: Any) -> None:
    # A visitor who picks a level plays at once as a guest (docs/GUESTS.md, tests/browser/
    # test_guest.py); the way through sign-in to a level stays for the links that use it.
    desktop.request.post("/api/auth/register", data={"username": "ursula", "password": PASSWORD})
    page = desktop.new_page()
    page.goto("/signin?next=/?play=hard")
    page.click("a.auth-switch")  # on to sign up and back keeps where she was going
    page.wait_for_url("**/signup?next=*")
    page.click("a.auth-switch")
    page.fill("input[name=username]", "ursula")
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url("**/games/*")
    expect(page.locator("#board .cell")).to_have_count(240)  # Hard: 20 x 12


def test_the_home_page_asks_before_a_new_game_ends_a_started_one_as_a_loss(desktop: Any) -> None:
    sign_up_by_api(desktop, "victor")
    page = desktop.new_page()
    page.goto("/")
    page.click('.level-card[data-level="beginner"]')
    page.wait_for_url("**/games/*")
    first = page.url
    cell(page, 4, 4).click()
    expect(cell(page, 4, 4)).to_have_attribute("data-v", "0")
    page.goto("/")
    expect(page.locator("#current-list li")).to_have_count(1)
    questions: list[str] = []

    def answer_no(dialog: Any) -> None:
        questions.append(dialog.message)
        dialog.dismiss()

    page.once("dialog", answer_no)
    page.click('.level-card[data-level="beginner"]')
    expect(page.locator("#current-list li")).to_have_count(1)
    assert questions == ["Start a new game? The current one will count as a loss."]
    assert page.url.endswith("/")  # dismissed: the started game goes on
    page.once("dialog", lambda d: d.accept())
    page.click('.level-card[data-level="beginner"]')
    page.wait_for_url(lambda url: "/games/" in url and url != first)


def test_the_ranking_tabs_follow_the_arrow_keys(desktop: Any) -> None:
    page = desktop.new_page()
    page.goto("/leaderboards/expert")
    page.locator("#tab-times").focus()
    page.keyboard.press("ArrowRight")
    expect(page.locator("#tab-speed")).to_have_attribute("aria-selected", "true")
    expect(page.locator("#tab-speed")).to_be_focused()
    expect(page.locator("#ranking thead")).to_contain_text("3BV/s")
    page.keyboard.press("End")  # the last tab: the race ratings (docs/RACES.md)
    expect(page.locator("#tab-races")).to_have_attribute("aria-selected", "true")
    expect(page.locator("#ranking-panel")).to_have_attribute("aria-labelledby", "tab-races")
    page.keyboard.press("ArrowLeft")
    expect(page.locator("#tab-streaks")).to_have_attribute("aria-selected", "true")
    expect(page.locator("#ranking-panel")).to_have_attribute("aria-labelledby", "tab-streaks")
    assert page.locator("[role=tab][tabindex='0']").count() == 1  # one Tab stop


def test_the_middle_mouse_button_chords_like_on_the_classic_desktop_game(desktop: Any) -> None:
    page, _ = new_player_game(desktop, "wanda", "beginner")
    cell(page, 4, 4).click()
    expect(cell(page, 4, 4)).to_have_attribute("data-v", "0")
    board = layout_after_first_tap(9, 9, 10, 4, 4)
    mines = mines_of(board)
    number, its_mines = chord_target(board, mines)
    for m in its_mines:
        cell(page, *m).click(button="right")
        expect(cell(page, *m)).to_have_attribute("data-v", "F")
    cell(page, *number).click(button="middle")
    for c in neighbours(*number, 9, 9):
        if c not in mines:
            expect(cell(page, *c)).not_to_have_attribute("data-v", "#")
    settle(page)
