"""Signing in and out, API tokens and custom boards from the pages."""

from __future__ import annotations

import json
import re
import urllib.request
from typing import Any

from playwright.sync_api import expect

from tests.support.browser import screenshot, sign_up_by_api, start_custom_game
from tests.support.personas import PASSWORD


def test_a_player_signs_in_creates_and_revokes_a_token_then_signs_out(
    desktop: Any, live: str
) -> None:
    registered = desktop.request.post(
        "/api/auth/register", data={"username": "ivan", "password": PASSWORD}
    )
    assert registered.status == 201
    page = desktop.new_page()
    page.on("dialog", lambda d: d.accept())
    page.goto("/signin?next=/tokens")
    page.fill("input[name=username]", "ivan")
    page.fill("input[name=password]", "wrong password")
    page.click("button[type=submit]")
    expect(page.locator("#auth-error")).not_to_be_empty()
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url("**/tokens")

    page.fill("input[name=name]", "my solver")
    page.click("#token-form button[type=submit]")
    key = page.locator("#new-key")
    expect(key).not_to_be_empty()
    row = page.locator("#tokens tbody tr", has_text="my solver")
    expect(row).to_have_count(1)
    # The key shown once works for the API, without any cookie.
    request = urllib.request.Request(
        f"{live}/api/me", headers={"Authorization": f"Token {key.inner_text()}"}
    )
    with urllib.request.urlopen(request) as answer:
        assert json.load(answer)["username"] == "ivan"
    row.locator("button").click()
    page.click("#ask-yes")  # "Revoke this token?" in the site's dialog
    expect(row).to_have_count(0)

    page.click("#signout")
    page.wait_for_url("**/")
    expect(page.locator("body")).to_have_attribute("data-user", "")
    expect(page.locator("nav a[href='/signin']")).to_be_visible()


def test_a_custom_board_starts_from_the_home_page(desktop: Any) -> None:
    sign_up_by_api(desktop, "judy")
    page = desktop.new_page()
    start_custom_game(page, 12, 7, 9)
    expect(page.locator("#board .cell")).to_have_count(84)
    expect(page.locator("#game-sub")).to_contain_text("12 \u00d7 7, 9")
    page.goto("/")
    expect(page.locator("#current-list li")).to_have_count(1)  # your current game


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


def test_the_tokens_page_hides_an_empty_table_and_a_revoked_new_key(desktop: Any) -> None:
    sign_up_by_api(desktop, "quinn")
    page = desktop.new_page()
    page.goto("/tokens")
    expect(page.locator("#no-tokens")).to_be_visible()
    expect(page.locator("#tokens")).to_be_hidden()  # no headers over an empty table
    name = page.locator("#token-form input[name=name]")
    assert name.bounding_box()["width"] >= 200  # a name field, not a number field
    name.fill("my solver bot")
    page.click("#token-form button[type=submit]")
    expect(page.locator("#new-token")).to_be_visible()
    expect(page.locator("#tokens tbody tr")).to_have_count(1)
    page.click("#tokens tbody tr button")
    # The site's own dialog asks, not the browser's confirm().
    expect(page.get_by_role("dialog", name="Revoke this token?")).to_be_visible()
    page.click("#ask-yes")
    expect(page.locator("#new-token")).to_be_hidden()  # a revoked key is no "new key"
    expect(page.locator("#new-key")).to_have_text("")
    expect(page.locator("#tokens")).to_be_hidden()
    screenshot(page, "walk-tokens-revoked")


def test_a_token_made_on_the_page_carries_the_scopes_ticked(desktop: Any) -> None:
    sign_up_by_api(desktop, "rhea")
    page = desktop.new_page()
    page.goto("/tokens")
    page.locator("#token-form input[name=name]").fill("race bot")
    page.uncheck("#token-form input[value='game:play']")
    page.uncheck("#token-form input[value='account:read']")
    page.click("#token-form button[type=submit]")
    expect(page.locator("#new-key")).to_have_text(re.compile(r"^dmn_[0-9a-f]{40}$"))
    expect(page.locator("#tokens tbody tr .token-scopes")).to_have_text("race:play")
    key = page.locator("#new-key").inner_text()
    # The key does what it was made for and nothing more (API.md, Token scopes).
    answer = desktop.request.post(
        "/api/games", data={"level": "beginner"}, headers={"Authorization": f"Token {key}"}
    )
    assert answer.status == 403 and answer.json()["error"]["code"] == "missing_scope"
    assert answer.headers["x-oauth-scopes"] == "race:play"
    screenshot(page, "tokens-scopes")
