"""A signed-in caller's wrong password is 403 `wrong_password`, never 401 (API.md: 401 is "not
signed in"; docs/ARCHITECTURE.md, Extra error codes).

The review sent a wrong current password to `POST /api/me/password` and got 401 while its
token still worked: a client that follows API.md drops a valid session on that answer.
Closing the account asked for the password the same way. Signing in with a wrong password is
still 401 `invalid_credentials`: there the caller is not signed in."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import User
from tests.support.http import assert_error
from tests.support.personas import PASSWORD

pytestmark = pytest.mark.django_db


def _page(user: User) -> Client:
    page = Client()
    page.force_login(user)
    return page


def _change(api: Any, current: str) -> Any:
    body = {"current_password": current, "new_password": "a brand new passphrase"}
    return api.post("/api/me/password", json.dumps(body), content_type="application/json")


def _close(api: Any, **body: Any) -> Any:
    data = json.dumps({"mode": "close", **body})
    return api.post("/api/me/close", data, content_type="application/json")


def test_a_wrong_current_password_is_403_and_the_token_still_works(
    alice: User, alice_api: APIClient
) -> None:
    refused = _change(alice_api, "not my password")
    assert_error(refused, 403, "wrong_password")
    assert alice_api.get("/api/me").status_code == 200  # still signed in, as the 403 says
    alice.refresh_from_db()
    assert alice.check_password(PASSWORD)  # nothing changed


def test_a_wrong_current_password_leaves_the_session_signed_in(alice: User) -> None:
    page = _page(alice)
    assert_error(_change(page, "not my password"), 403, "wrong_password")
    assert page.get("/api/auth/session").status_code == 200


def test_closing_with_a_wrong_or_no_password_is_403(alice: User, alice_api: APIClient) -> None:
    assert_error(_close(alice_api, password="not my password"), 403, "wrong_password")
    assert_error(_close(alice_api), 403, "wrong_password")
    alice.refresh_from_db()
    assert alice.closed_at is None and alice.is_active  # nothing changed
    assert alice_api.get("/api/me").status_code == 200
    assert _close(alice_api, password=PASSWORD).status_code == 202


def test_signing_in_with_a_wrong_password_is_still_401(alice: User) -> None:
    body = {"username": "alice", "password": "not my password"}
    assert_error(
        APIClient().post("/api/auth/token", body, format="json"), 401, "invalid_credentials"
    )
