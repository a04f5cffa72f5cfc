"""Sign in with Démineur in real Chromium, end to end (docs/API-CLIENTS.md): a player registers
an app on the site; the client's example app (clients/python/examples/oauth_app.py) sends
another player, signed out, to the consent page, through the sign-in page and back; they allow
it; the browser lands on the app's loopback redirect, the app trades the code and its PKCE
verifier for tokens and reads the player's profile with them; the player revokes the app on
the account page and its token is refused at once."""

from __future__ import annotations

import importlib.util
import re
import threading
from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import expect

from tests.support.browser import screenshot
from tests.support.personas import PASSWORD

EXAMPLE = Path(__file__).resolve().parents[2] / "clients" / "python" / "examples" / "oauth_app.py"


def _example() -> Any:
    spec = importlib.util.spec_from_file_location("oauth_app", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _sign_up(context: Any, name: str, *, signed_in: bool) -> None:
    body = {"username": name, "password": PASSWORD}
    assert context.request.post("/api/auth/register", data=body).status == 201
    if signed_in:
        assert context.request.post("/api/auth/session", data=body).status == 200


def test_a_third_party_app_signs_a_player_in_and_the_player_revokes_it(
    desktop: Any, laptop: Any, live: str
) -> None:
    # bob registers the app
    _sign_up(desktop, "bob", signed_in=True)
    developer = desktop.new_page()
    developer.goto("/account")
    developer.get_by_role("link", name="Register an app of your own").click()
    developer.get_by_label("Name").fill("Sweeper Stats")
    developer.get_by_label("Redirect URIs, one a line").fill("http://127.0.0.1/callback")
    developer.get_by_role("button", name="Register").click()
    client_id = developer.locator("#apps .client-id").first.inner_text()

    # the app sends alice, signed out, to the site
    flow = _example().SignIn(live, client_id, scope="account:read game:play")
    codes: list[str] = []
    waiting = threading.Thread(target=lambda: codes.append(flow.wait_for_code(timeout=60)))
    waiting.start()
    _sign_up(laptop, "alice", signed_in=False)
    player = laptop.new_page()
    player.goto(flow.url)
    expect(player).to_have_url(re.compile(r"/signin\?next="))
    player.get_by_label("Username").fill("alice")
    player.get_by_label("Password").fill(PASSWORD)
    player.get_by_role("button", name="Sign in").click()

    # the consent page: the app, who registered it, what it asks, where the answer goes
    expect(player.locator("#consent h2")).to_have_text("Let Sweeper Stats act for you?")
    expect(player.locator("#consent")).to_contain_text("registered by bob")
    expect(player.locator("#consent-scopes li")).to_have_text(
        ["Play games (create, move, pause, resign)", "Read your account"]
    )
    screenshot(player, "oauth-consent")
    player.locator("#consent-allow").click()
    expect(player.locator("body")).to_contain_text("Done: you may close this window.")
    waiting.join(timeout=30)
    assert len(codes) == 1

    # the app's call, with the token it got
    tokens = flow.tokens(codes[0])
    bearer = {"Authorization": f"Bearer {tokens['access_token']}"}
    me = httpx.get(f"{live}/api/me", headers=bearer)
    assert me.status_code == 200 and me.json()["username"] == "alice"

    # alice revokes it on her account page: the token is refused from then on
    player.goto("/account")
    row = player.locator("#authorised-apps tr", has_text="Sweeper Stats")
    expect(row).to_contain_text("account:read")
    row.get_by_role("button", name="Revoke").click()
    expect(player.locator("#no-apps")).to_be_visible()
    assert httpx.get(f"{live}/api/me", headers=bearer).status_code == 401
