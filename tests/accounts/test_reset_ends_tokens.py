"""A password reset revokes every API token of the account; a password change keeps them
(accounts.services.password_reset_confirm, password_change; docs/ACCOUNTS.md, Password change
and reset).

The review made tokens, reset the password from the mailed link, and the old tokens still
worked and could mint new ones: a reset is what an owner does who lost the password, perhaps
to whoever made those tokens. A change is made by someone who knows the current password, and
API.md says its tokens stay."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from accounts import email_links, scopes
from accounts.models import ApiToken, User
from accounts.services import token_issue
from tests.support.http import assert_error
from tests.support.personas import PASSWORD

pytestmark = pytest.mark.django_db
NEW_PASSWORD = "a brand new passphrase"


def _api(key: str) -> APIClient:
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return api


@pytest.fixture
def owner() -> User:
    return User.objects.create_user(
        username="alice", password=PASSWORD, email="alice@example.org", email_verified=True
    )


def _reset(user: User) -> Any:
    return APIClient().post(
        "/api/auth/password-reset/confirm",
        {"token": email_links.reset_token(user), "new_password": NEW_PASSWORD},
        format="json",
    )


def test_a_reset_ends_every_token_made_before_it(owner: User) -> None:
    keys = [
        token_issue(user=owner)[1],
        token_issue(user=owner, name="bot", scopes=scopes.stored(["game:play"]))[1],
    ]
    assert all(_api(k).get("/api/games?user=alice").status_code == 200 for k in keys)
    assert _reset(owner).status_code == 204

    for key in keys:
        assert_error(_api(key).get("/api/me"), 401, "authentication_failed")
        minted = _api(key).post("/api/tokens", {"name": "again"}, format="json")
        assert_error(minted, 401, "authentication_failed")  # nor can it mint a new one
    assert not ApiToken.objects.filter(user=owner).exists()

    signed_in = APIClient().post(
        "/api/auth/token", {"username": "alice", "password": NEW_PASSWORD}, format="json"
    )
    assert _api(signed_in.json()["token"]).get("/api/me").status_code == 200


def test_a_refused_reset_ends_nothing(owner: User) -> None:
    key = token_issue(user=owner)[1]
    weak = APIClient().post(
        "/api/auth/password-reset/confirm",
        {"token": email_links.reset_token(owner), "new_password": "123"},
        format="json",
    )
    assert_error(weak, 400, "invalid")
    assert _api(key).get("/api/me").status_code == 200


def test_a_password_change_keeps_the_tokens(owner: User) -> None:
    key = token_issue(user=owner)[1]
    changed = _api(key).post(
        "/api/me/password",
        {"current_password": PASSWORD, "new_password": NEW_PASSWORD},
        format="json",
    )
    assert changed.status_code == 204, changed.content
    assert _api(key).get("/api/me").status_code == 200
