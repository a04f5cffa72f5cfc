"""Accounts through the API: register, tokens, sessions, profiles (API.md, Accounts)."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from accounts.models import ApiToken
from tests.support.http import assert_error
from tests.support.personas import PASSWORD
from tests.support.shapes import BUCKETS

pytestmark = pytest.mark.django_db


def test_a_visitor_registers_and_gets_a_token(anon_api):
    response = anon_api.post(
        "/api/auth/register", {"username": "carol", "password": PASSWORD}, format="json"
    )
    assert response.status_code == 201
    assert set(response.json()) == {"id", "username", "kind"}
    assert (response.json()["username"], response.json()["kind"]) == ("carol", "human")
    token = anon_api.post(
        "/api/auth/token", {"username": "carol", "password": PASSWORD}, format="json"
    )
    assert token.status_code == 200
    key = token.json()["token"]
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    me = client.get("/api/me").json()
    assert me["username"] == "carol"
    assert list(me["stats"]) == BUCKETS
    assert me["recent_games"] == []


def test_tokens_are_stored_hashed(anon_api):
    anon_api.post("/api/auth/register", {"username": "carol", "password": PASSWORD}, format="json")
    key = anon_api.post(
        "/api/auth/token", {"username": "carol", "password": PASSWORD}, format="json"
    ).json()["token"]
    stored = ApiToken.objects.get()
    assert key not in (stored.key_hash, stored.prefix + "x") and stored.key_hash != key
    assert key.startswith(stored.prefix)


@pytest.mark.parametrize(
    "body, field",
    [
        ({"username": "alice", "password": PASSWORD}, "username"),
        ({"username": "ALICE", "password": PASSWORD}, "username"),
        ({"username": "dave", "password": "123"}, "password"),
        ({"username": "dave", "password": "password"}, "password"),
        ({"username": "dave dave", "password": PASSWORD}, "username"),
        ({"username": 5, "password": PASSWORD}, "username"),
        ({"password": PASSWORD}, "username"),
        ({"username": "dave"}, "password"),
        ({"username": "dave", "password": PASSWORD, "email": "not-an-email"}, "email"),
    ],
)
def test_bad_registrations_are_refused(alice, anon_api, body, field):
    response = anon_api.post("/api/auth/register", body, format="json")
    error = assert_error(response, 400, "invalid")
    assert field in error["error"]["details"]["fields"]


def test_a_wrong_password_gets_no_token(alice, anon_api):
    response = anon_api.post(
        "/api/auth/token", {"username": "alice", "password": "wrong"}, format="json"
    )
    assert_error(response, 401, "invalid_credentials")
    assert_error(
        anon_api.post("/api/auth/token", {"username": "alice"}, format="json"), 400, "invalid"
    )


def test_deleting_the_token_revokes_it(alice_api):
    assert alice_api.get("/api/me").status_code == 200
    assert alice_api.delete("/api/auth/token").status_code == 204
    assert_error(alice_api.get("/api/me"), 401, "authentication_failed")


def test_me_needs_sign_in_and_public_profiles_do_not(alice, anon_api):
    assert_error(anon_api.get("/api/me"), 401, "not_authenticated")
    profile = anon_api.get("/api/users/alice").json()
    assert profile["username"] == "alice" and "date_joined" in profile
    assert profile["stats"]["beginner"]["played"] == 0
    assert profile["stats"]["beginner"]["win_rate"] == 0
    assert_error(anon_api.get("/api/users/nobody"), 404, "not_found")


def test_named_tokens_are_listed_created_and_revoked(alice_api):
    created = alice_api.post("/api/tokens", {"name": "my bot"}, format="json")
    assert created.status_code == 201
    key = created.json()["token"]
    rows = alice_api.get("/api/tokens").json()["results"]
    assert "my bot" in {r["name"] for r in rows}
    assert all("token" not in r for r in rows)
    bot = APIClient()
    bot.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert bot.get("/api/me").json()["username"] == "alice"
    assert alice_api.delete(f"/api/tokens/{created.json()['id']}").status_code == 204
    assert bot.get("/api/me").status_code == 401
    assert_error(alice_api.delete("/api/tokens/999999"), 404, "not_found")
    assert_error(alice_api.post("/api/tokens", {"name": ""}, format="json"), 400, "invalid")


def test_another_players_token_cannot_be_revoked(alice_api, bob_api):
    created = alice_api.post("/api/tokens", {"name": "mine"}, format="json").json()
    assert_error(bob_api.delete(f"/api/tokens/{created['id']}"), 404, "not_found")


def test_the_web_page_signs_in_with_a_session_and_csrf(alice):
    browser = APIClient(enforce_csrf_checks=True)
    signed_in = browser.post(
        "/api/auth/session",
        {"username": "alice", "password": PASSWORD},
        format="json",
    )
    assert signed_in.status_code == 200
    assert browser.get("/api/auth/session").json()["username"] == "alice"
    # a session-authenticated write without the CSRF token is refused
    refused = browser.post("/api/games", {"level": "beginner"}, format="json")
    assert refused.status_code == 403 and "error" in refused.json()
    csrf = browser.cookies.get("csrftoken")
    if csrf is None:
        browser.get("/")
        csrf = browser.cookies.get("csrftoken")
    assert csrf is not None
    created = browser.post(
        "/api/games", {"level": "beginner"}, format="json", HTTP_X_CSRFTOKEN=csrf.value
    )
    assert created.status_code == 201
    assert browser.delete("/api/auth/session", HTTP_X_CSRFTOKEN=csrf.value).status_code == 204
    assert_error(browser.get("/api/auth/session"), 401, "not_authenticated")


def test_a_token_records_when_it_was_last_used(alice_api):
    token = ApiToken.objects.get()
    assert token.last_used_at is None
    alice_api.get("/api/me")
    token.refresh_from_db()
    first = token.last_used_at
    assert first is not None
    alice_api.get("/api/me")  # within the hour: no extra write
    token.refresh_from_db()
    assert token.last_used_at == first


def test_a_taken_username_has_a_stable_code(alice, anon_api):
    response = anon_api.post(
        "/api/auth/register", {"username": "alice", "password": PASSWORD}, format="json"
    )
    error = assert_error(response, 400, "invalid")
    assert error["error"]["details"]["codes"]["username"] == ["username_taken"]
