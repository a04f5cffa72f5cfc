"""A player's settings on the site: GET/PATCH /api/me/settings (docs/ARCHITECTURE.md,
Extensions of API.md). Stored on the account, validated field by field, unknown keys refused."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import User
from tests.support.http import assert_error

pytestmark = pytest.mark.django_db

DEFAULTS = {
    "long_press_ms": 450,
    "click_chords": True,
    "animations": True,
    "sounds": False,
    "theme": "system",
    "no_flags": False,
}


def test_a_new_player_reads_the_defaults(alice_api: APIClient) -> None:
    response = alice_api.get("/api/me/settings")
    assert response.status_code == 200
    assert response.json() == DEFAULTS


def test_a_patch_changes_only_what_it_sends_and_is_kept_on_the_account(
    alice: User, alice_api: APIClient
) -> None:
    response = alice_api.patch("/api/me/settings", {"theme": "dark", "sounds": True}, format="json")
    assert response.status_code == 200
    assert response.json() == {**DEFAULTS, "theme": "dark", "sounds": True}
    response = alice_api.patch("/api/me/settings", {"long_press_ms": 700}, format="json")
    assert response.json() == {**DEFAULTS, "theme": "dark", "sounds": True, "long_press_ms": 700}
    alice.refresh_from_db()
    # Only what the player set is stored: the defaults can change for everyone else.
    assert alice.settings == {"theme": "dark", "sounds": True, "long_press_ms": 700}
    assert alice_api.get("/api/me/settings").json()["long_press_ms"] == 700


def test_an_empty_patch_changes_nothing(alice_api: APIClient) -> None:
    alice_api.patch("/api/me/settings", {"animations": False}, format="json")
    response = alice_api.patch("/api/me/settings", {}, format="json")
    assert response.status_code == 200
    assert response.json() == {**DEFAULTS, "animations": False}


def test_settings_are_per_account(alice_api: APIClient, bob_api: APIClient) -> None:
    alice_api.patch("/api/me/settings", {"theme": "light"}, format="json")
    assert bob_api.get("/api/me/settings").json()["theme"] == "system"


@pytest.mark.parametrize(
    "body, field",
    [
        ({"colour": "red"}, "colour"),
        ({"theme": "dark", "volume": 3}, "volume"),
        ({"theme": "sepia"}, "theme"),
        ({"theme": None}, "theme"),
        ({"long_press_ms": 199}, "long_press_ms"),
        ({"long_press_ms": 1501}, "long_press_ms"),
        ({"long_press_ms": "500"}, "long_press_ms"),
        ({"long_press_ms": 500.5}, "long_press_ms"),
        ({"long_press_ms": True}, "long_press_ms"),
        ({"sounds": "true"}, "sounds"),
        ({"animations": 0}, "animations"),
        ({"click_chords": None}, "click_chords"),
        ({"no_flags": "true"}, "no_flags"),
    ],
)
def test_a_bad_field_is_refused_and_nothing_is_stored(
    alice: User, alice_api: APIClient, body: dict[str, Any], field: str
) -> None:
    response = alice_api.patch("/api/me/settings", body, format="json")
    error = assert_error(response, 400, "invalid")["error"]
    assert field in error["details"]["fields"]
    alice.refresh_from_db()
    assert alice.settings == {}


def test_an_unknown_key_says_so(alice_api: APIClient) -> None:
    response = alice_api.patch("/api/me/settings", {"colour": "red"}, format="json")
    error = assert_error(response, 400, "invalid")["error"]
    assert error["details"]["codes"] == {"colour": ["unknown_setting"]}


@pytest.mark.parametrize("body", [[], ["theme"], "dark", 3])
def test_a_body_that_is_not_an_object_is_refused(alice_api: APIClient, body: Any) -> None:
    assert_error(alice_api.patch("/api/me/settings", body, format="json"), 400, "invalid")


def test_a_visitor_has_no_account_settings(anon_api: APIClient) -> None:
    assert_error(anon_api.get("/api/me/settings"), 401, "not_authenticated")
    response = anon_api.patch("/api/me/settings", {"theme": "dark"}, format="json")
    assert_error(response, 401, "not_authenticated")


def test_the_page_embeds_the_signed_in_players_settings(alice: User) -> None:
    """The pages carry the account's settings (the theme applies before the first paint)."""
    alice.settings = {"theme": "dark"}
    alice.save(update_fields=["settings"])
    browser = Client()
    browser.force_login(alice)
    page = browser.get("/").content.decode()
    assert (
        '<script id="account-settings" type="application/json">{"theme": "dark"}</script>' in page
    )
    assert 'id="account-settings"' not in Client().get("/").content.decode()
