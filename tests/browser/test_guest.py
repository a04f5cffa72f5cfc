"""Play first, sign up later (docs/GUESTS.md), and sign-up errors that show messages, never
codes, in real Chromium."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.support.boards import mines_of
from tests.support.browser import cell, layout_after_first_tap, screenshot
from tests.support.personas import PASSWORD

GUEST_REASON = "Not ranked: games played as a guest never rank."
# What a code looks like: the API's stable reasons (details.codes), never shown on the page.
RAW_CODES = re.compile(r"\b(invalid|username_taken|username_reserved|password_\w+)\b")


def test_a_visitor_plays_a_beginner_game_in_two_clicks_then_signs_up_and_finds_it(
    desktop: Any,
) -> None:
    page = desktop.new_page()
    page.goto("/")
    expect(page.locator("body")).to_have_attribute("data-user", "")
    page.click('.level-card[data-level="beginner"]')  # click 1: a guest's game, no sign-in
    page.wait_for_url(re.compile(r"/games/[0-9a-f-]{36}$"))
    game_id = page.url.rsplit("/", 1)[1]
    guest = page.locator("body").get_attribute("data-user") or ""
    assert re.fullmatch(r"guest-[a-z0-9]{6}", guest), guest
    cell(page, 4, 4).click()  # click 2: the game is on
    expect(cell(page, 4, 4)).to_have_attribute("data-v", "0")
    expect(page.locator("#fair-note")).to_have_text(GUEST_REASON)

    board = layout_after_first_tap(9, 9, 10, 4, 4)
    mines = mines_of(board)
    for y, row in enumerate(board.render()):
        for x, _ in enumerate(row):
            if (x, y) not in mines and cell(page, x, y).get_attribute("data-v") == "#":
                cell(page, x, y).click()
    expect(page.locator("#status")).to_contain_text("You won")
    screenshot(page, "guest-won")
    game = desktop.request.get(f"/api/games/{game_id}").json()
    assert (game["player"], game["ranked"], game["unranked_reason"]) == (guest, False, "guest")

    # The menu offers signing up (no tokens, no sign-out for a guest).
    expect(page.locator("nav a[href='/signup']")).to_be_visible()
    expect(page.locator("nav a[href='/tokens']")).to_have_count(0)
    page.goto("/signup")
    expect(page.locator("#guest-note")).to_contain_text(guest)
    page.fill("input[name=username]", "gwen")
    page.fill("input[name=password]", PASSWORD)
    screenshot(page, "guest-signup")
    page.click("button[type=submit]")
    page.wait_for_url(re.compile(r"/$"))
    expect(page.locator("body")).to_have_attribute("data-user", "gwen")

    page.goto("/players/gwen")
    row = page.locator("#recent li", has=page.locator(f"a[href='/games/{game_id}/replay']"))
    expect(row).to_have_count(1)
    expect(row).to_contain_text("won")
    row.scroll_into_view_if_needed()
    screenshot(page, "guest-profile")
    game = desktop.request.get(f"/api/games/{game_id}").json()
    assert (game["player"], game["unranked_reason"]) == ("gwen", "guest")


def test_the_game_pages_new_game_makes_a_visitor_a_guest(desktop: Any) -> None:
    # A visitor watching someone's game presses New game: a guest's game of that level.
    host = desktop.new_page()
    host.goto("/")
    host.click('.level-card[data-level="beginner"]')
    host.wait_for_url("**/games/*")
    watched = host.url
    host.close()
    desktop.clear_cookies()
    page = desktop.new_page()
    page.on("dialog", lambda d: d.accept())
    page.goto(watched)
    expect(page.locator("body")).to_have_attribute("data-user", "")
    # The watched game is on the page (New game repeats its level: before it has loaded there
    # is nothing to repeat, and a click then would do nothing).
    expect(page.locator("#board .cell")).to_have_count(81)
    page.click("#new-game")
    page.wait_for_url(lambda url: url != watched and "/games/" in url)
    expect(page.locator("#board .cell")).to_have_count(81)
    assert (page.locator("body").get_attribute("data-user") or "").startswith("guest-")


@pytest.mark.parametrize("language", ["en", "pl"])
def test_sign_up_errors_show_translated_messages_and_no_codes(
    desktop: Any, live: str, language: str
) -> None:
    taken = desktop.request.post(
        "/api/auth/register", data={"username": "hazel", "password": PASSWORD}
    )
    assert taken.status == 201
    desktop.add_cookies([{"name": "django_language", "value": language, "url": live}])
    page = desktop.new_page()
    page.goto("/signup")
    error = page.locator("#auth-error")
    for username, password in (("hazel", PASSWORD), ("ivy", "password"), ("guest-abc", PASSWORD)):
        page.fill("input[name=username]", username)
        page.fill("input[name=password]", password)
        page.click("button[type=submit]")
        expect(error).not_to_be_empty()
        text = error.inner_text()
        assert not RAW_CODES.search(text), text
        if language == "pl":
            assert "username" not in text and "password" not in text.lower(), text
    if language == "en":
        page.fill("input[name=username]", "ivy")
        page.fill("input[name=password]", "12345678")
        page.click("button[type=submit]")
        # Two reasons, both said, no "invalid invalid" after them.
        expect(error).to_contain_text("too common")
        expect(error).to_contain_text("entirely numeric")
        assert not RAW_CODES.search(error.inner_text()), error.inner_text()
        screenshot(page, "guest-signup-errors")
    else:
        page.fill("input[name=username]", "hazel")
        page.fill("input[name=password]", PASSWORD)
        page.click("button[type=submit]")
        expect(error).to_have_text("Ta nazwa użytkownika jest już zajęta.")
        page.fill("input[name=username]", "guest-abc")
        page.click("button[type=submit]")
        expect(error).to_have_text(
            "Nazwy zaczynające się od „guest-” są zarezerwowane dla kont gości."
        )
