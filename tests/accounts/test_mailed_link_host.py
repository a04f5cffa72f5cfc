"""Mailed links are never built from a Host header the site did not declare
(accounts.email_links.site_origin; docs/ACCOUNTS.md, Mailed links).

The review, with SITE_URL unset, sent `Host: 127.0.0.1:<another port>`: Django checks only a
Host's name against ALLOWED_HOSTS, never its port, and the reset link mailed to the victim
pointed at that port. Now: SITE_URL when set; else the request's origin only when it is an
entry of CSRF_TRUSTED_ORIGINS (scheme, host and port) or, with DEBUG on, when its Host names
the port the request arrived on; else nothing is mailed and the answer is as usual. With
DEBUG off, `manage.py check --deploy` requires SITE_URL (accounts.E001)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core.checks import run_checks
from rest_framework.test import APIClient

from accounts.models import OutgoingMail, User
from tests.support.personas import PASSWORD, client_for

pytestmark = pytest.mark.django_db

ALICE = "alice@example.org"


@pytest.fixture
def alice_verified(settings: Any) -> User:
    settings.SITE_URL = ""  # the suite sets one; these tests are about its absence
    settings.CSRF_TRUSTED_ORIGINS = []
    return User.objects.create_user(
        username="alice", password=PASSWORD, email=ALICE, email_verified=True
    )


def _reset(host: str, **extra: Any) -> Any:
    answer = APIClient().post(
        "/api/auth/password-reset", {"email": ALICE}, format="json", HTTP_HOST=host, **extra
    )
    assert answer.status_code == 202, answer.content  # the same answer, mail or not
    return answer


def _links() -> list[str]:
    """The links of the queued mails, oldest first (the outbox is sent only after a commit,
    which these tests never make: every queued mail is still there)."""
    found = [re.search(r"https?://\S+", m.body) for m in OutgoingMail.objects.order_by("id")]
    return [m.group(0) for m in found if m is not None]


def test_with_debug_off_and_no_site_url_an_undeclared_host_gets_no_link(
    alice_verified: User,
) -> None:
    _reset("testserver:6666")
    _reset("testserver")
    assert _links() == []
    # The other doors that mail a link: sign-up with an address, a new address.
    signed_up = APIClient().post(
        "/api/auth/register",
        {"username": "bob", "password": PASSWORD, "email": "bob@example.org"},
        format="json",
        HTTP_HOST="testserver:6666",
    )
    assert signed_up.status_code == 201  # the account is made; its address waits unverified
    changed = client_for(alice_verified).post(
        "/api/me/email", {"email": "new@example.org"}, format="json", HTTP_HOST="testserver:6666"
    )
    assert changed.status_code == 202
    assert _links() == []


def test_a_declared_origin_is_used_with_its_own_port_and_no_other(
    alice_verified: User, settings: Any
) -> None:
    settings.CSRF_TRUSTED_ORIGINS = ["http://testserver:8080", "https://*.example.org"]
    settings.ALLOWED_HOSTS = ["testserver", ".example.org"]
    _reset("testserver:6666")
    _reset("testserver")  # port 80: not the declared 8080
    _reset("alice.example.org", secure=True)  # a wildcard entry declares no origin
    assert _links() == []
    _reset("TestServer:8080")
    (link,) = _links()
    assert link.startswith("http://testserver:8080/account/reset-password?token=")


def test_with_debug_on_the_host_must_name_the_port_the_request_arrived_on(
    alice_verified: User, settings: Any
) -> None:
    settings.DEBUG = True
    _reset("testserver:6666")  # arrived on port 80 (the test client's SERVER_PORT)
    assert _links() == []
    _reset("testserver")
    _reset("testserver:6666", SERVER_PORT="6666")
    assert [link.split("?")[0] for link in _links()] == [
        "http://testserver/account/reset-password",
        "http://testserver:6666/account/reset-password",
    ]


def test_site_url_is_used_whatever_the_host(alice_verified: User, settings: Any) -> None:
    settings.SITE_URL = "https://demineur.example"
    _reset("testserver:6666")
    (link,) = _links()
    assert link.startswith("https://demineur.example/account/reset-password?token=")


def test_check_deploy_requires_site_url_with_debug_off(settings: Any) -> None:
    def errors() -> list[str]:
        return [m.id for m in run_checks(include_deployment_checks=True) if m.id]

    settings.DEBUG, settings.SITE_URL = False, ""
    assert "accounts.E001" in errors()
    settings.SITE_URL = "https://demineur.example"
    assert "accounts.E001" not in errors()
    settings.DEBUG, settings.SITE_URL = True, ""  # `make run`: links to its own port
    assert "accounts.E001" not in errors()
