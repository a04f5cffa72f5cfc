"""The account's pages in real Chromium (docs/ACCOUNTS.md, Pages): the account page (address,
sessions and their sign-out, two-factor sign-in), the sign-in page asking for the code, and a
password reset from the mailed link (a real SMTP server, tests/support/smtp.py)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pyotp
import pytest
from playwright.sync_api import expect

from tests.support.browser import screenshot
from tests.support.personas import PASSWORD
from tests.support.smtp import Inbox, link_token, smtp_server


@pytest.fixture
def smtp(settings: Any) -> Iterator[Inbox]:
    with smtp_server(settings) as inbox:
        yield inbox


def sign_up(context: Any, name: str, email: str = "") -> None:
    body = {"username": name, "password": PASSWORD, **({"email": email} if email else {})}
    assert context.request.post("/api/auth/register", data=body).status == 201
    sign_in(context, name)


def sign_in(context: Any, name: str, password: str = PASSWORD) -> None:
    r = context.request.post("/api/auth/session", data={"username": name, "password": password})
    assert r.status == 200, r.text()


def test_the_account_page_shows_the_address_the_sessions_and_two_factor_sign_in(
    desktop: Any, laptop: Any, smtp: Inbox
) -> None:
    sign_up(desktop, "alice", "alice@example.org")
    sign_in(laptop, "alice")
    page = desktop.new_page()
    page.goto("/account")
    expect(page.locator("#email-state")).to_contain_text("alice@example.org")
    expect(page.locator("#email-state")).to_contain_text("waiting")
    rows = page.locator("#sessions tbody tr")
    expect(rows).to_have_count(2)
    expect(page.locator("#password-section")).to_contain_text("API tokens keep working")

    # the laptop's session signed out from here
    other = page.locator("#sessions tbody tr", has=page.locator("button"))
    other.locator("button").click()
    expect(rows).to_have_count(1)
    assert laptop.request.get("/api/auth/session").status == 401

    # two-factor sign-in: the key, a code, the recovery codes
    page.click("#totp-start")
    expect(page.locator("#totp-secret")).not_to_be_empty()
    secret = page.locator("#totp-secret").inner_text().strip()
    page.fill("#totp-confirm-form input[name=code]", pyotp.TOTP(secret).now())
    page.click("#totp-confirm-form button[type=submit]")
    expect(page.locator("#totp-code-list li")).to_have_count(10)
    expect(page.locator("#totp-state")).to_contain_text("On")
    page.set_viewport_size({"width": 1280, "height": 2300})  # the whole page, header on top
    screenshot(page, "account-page")

    # signing in again asks for a code
    signin = laptop.new_page()
    signin.goto("/signin")
    signin.fill("input[name=username]", "alice")
    signin.fill("input[name=password]", PASSWORD)
    signin.click("#auth-form button[type=submit]")
    expect(signin.locator("#otp-field")).to_be_visible()
    screenshot(signin, "signin-two-factor")
    code = page.locator("#totp-code-list li").first.inner_text().strip()  # a recovery code
    signin.fill("input[name=otp]", code)
    signin.click("#auth-form button[type=submit]")
    signin.wait_for_url("**/")
    assert laptop.request.get("/api/auth/session").status == 200


def test_a_forgotten_password_is_reset_from_the_mailed_link(desktop: Any, smtp: Inbox) -> None:
    sign_up(desktop, "bob", "bob@example.org")
    _, token = link_token(smtp.wait_for(1)[0])
    page = desktop.new_page()
    page.goto(f"/account/verify-email?token={token}")
    expect(page.locator("#verify-state")).to_contain_text("bob@example.org")

    page.goto("/signin")
    page.click("#forgot-password")
    page.fill("#reset-request-form input[name=email]", "bob@example.org")
    page.click("#reset-request-form button[type=submit]")
    expect(page.locator("#reset-sent")).to_be_visible()
    path, token = link_token(smtp.wait_for(2)[1])
    page.goto(f"{path}?token={token}")
    page.fill("#reset-confirm-form input[name=new_password]", "a brand new passphrase")
    page.click("#reset-confirm-form button[type=submit]")
    expect(page.locator("#reset-done")).to_be_visible()
    screenshot(page, "reset-password-done")
    assert desktop.request.get("/api/auth/session").status == 401  # signed out everywhere
    sign_in(desktop, "bob", "a brand new passphrase")


def test_closing_the_account_asks_with_a_button_that_says_so_and_a_calm_safe_answer(
    desktop: Any,
) -> None:
    sign_up(desktop, "carol")
    page = desktop.new_page()
    page.goto("/account")
    # The sections above the form are drawn from the API after the load and push it down: the
    # clicks wait for them, or they land where the form was.
    expect(page.locator("#sessions tbody tr")).not_to_have_count(0)
    expect(page.locator("#totp-state")).not_to_be_empty()
    page.fill("#close-form input[name=password]", PASSWORD)
    page.check("#close-form input[value=delete]")
    page.click("#close-form button[type=submit]")
    ask = page.get_by_role("dialog", name="Delete your account?")
    expect(ask).to_be_visible()
    yes, no = page.locator("#ask-yes"), page.locator("#ask-no")
    expect(yes).to_have_text(
        "Delete my account"
    )  # not a bare "Close" that reads as "close this box"
    expect(no).to_have_text("Keep it")
    expect(no).to_be_focused()
    expect(yes).to_have_class("btn btn-danger")
    expect(no).to_have_class("btn btn-calm")
    accent = page.evaluate(
        "getComputedStyle(document.documentElement).getPropertyValue('--accent')"
    )
    background = no.evaluate("b => getComputedStyle(b).backgroundColor")
    assert background != "rgb(208, 38, 58)" and accent.strip() == "#d0263a"  # not the red accent
    screenshot(page, "account-close-dialog")
    page.click("#ask-no")
    expect(ask).to_be_hidden()
    assert desktop.request.get("/api/auth/session").status == 200  # kept

    page.check("#close-form input[value=close]")
    page.click("#close-form button[type=submit]")
    expect(page.get_by_role("dialog", name="Close your account?")).to_be_visible()
    expect(yes).to_have_text("Close my account")
    yes.click()
    page.wait_for_url("**/")
    assert desktop.request.get("/api/auth/session").status == 401


def test_two_factor_shows_a_qr_code_and_the_key_in_groups_and_says_when_a_code_was_used(
    desktop: Any,
) -> None:
    sign_up(desktop, "dora")
    page = desktop.new_page()
    page.goto("/account")
    page.click("#totp-start")
    qr = page.locator("#totp-qr")
    expect(qr).to_be_visible()
    expect(qr).to_have_attribute("src", re.compile(r"^data:image/svg\+xml;base64,"))
    page.wait_for_function("document.getElementById('totp-qr').naturalWidth > 0")  # drawn
    groups = page.locator("#totp-secret span")
    expect(groups).to_have_count(8)
    assert all(len(g) == 4 for g in groups.all_inner_texts())
    # a selection of the key copies it whole, without the spaces between the groups
    copied = page.evaluate(
        """() => { const range = document.createRange();
        range.selectNodeContents(document.getElementById('totp-secret'));
        getSelection().removeAllRanges(); getSelection().addRange(range);
        return getSelection().toString(); }"""
    )
    assert copied == "".join(groups.all_inner_texts()) and re.fullmatch(r"[A-Z2-7]{32}", copied)
    screenshot(page, "account-two-factor-qr")

    used = pyotp.TOTP(copied).now()
    page.fill("#totp-confirm-form input[name=code]", used)
    page.click("#totp-confirm-form button[type=submit]")
    expect(page.locator("#totp-state")).to_contain_text("On")
    # the same code again, to turn it off: refused as used, not as wrong
    page.fill("#totp-off-form input[name=code]", used)
    page.fill("#totp-off-form input[name=password]", PASSWORD)
    page.click("#totp-off-form button[type=submit]")
    expect(page.locator("#account-error")).to_have_text(
        "This code was already used: wait for the next code of your app."
    )
    expect(page.locator("#totp-state")).to_contain_text("On")
