"""Following a verification link answers what the link already tells its holder, nothing more
of the owner's (accounts.views.EmailVerifyView; docs/ARCHITECTURE.md, Extensions of API.md).

The review opened a link and was answered the owner's private profile (`two_factor`,
`closed`, what `GET /api/me` shows only to its owner) with no sign-in: whoever holds a link
(a mailbox someone else typed, a forwarded mail) is not the account. API.md documents a body
for this endpoint, "the profile (`email`, `email_verified: true`)", so the answer keeps that
shape: the public profile (anyone's to read at /api/users/{name}), the address the link was
mailed to, and `email_verified`."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from accounts import email_links
from accounts.models import User
from tests.support.personas import PASSWORD

pytestmark = pytest.mark.django_db


def test_the_link_answers_the_public_profile_and_the_verified_address_only() -> None:
    owner = User.objects.create_user(username="alice", password=PASSWORD, email="alice@example.org")
    token = email_links.verification_token(owner)

    answer = APIClient().post("/api/auth/email/verify", {"token": token}, format="json")
    assert answer.status_code == 200, answer.content
    body = answer.json()
    public = APIClient().get("/api/users/alice").json()
    assert set(body) == set(public) | {"email", "email_verified"}
    assert (body["email"], body["email_verified"]) == ("alice@example.org", True)
    assert {k: body[k] for k in public} == public
    assert "two_factor" not in body and "closed" not in body

    again = APIClient().post("/api/auth/email/verify", {"token": token}, format="json")
    assert again.status_code == 200 and set(again.json()) == set(body)  # followed twice
