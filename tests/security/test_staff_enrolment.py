"""Staff and their second factor (docs/ACCOUNTS.md, Staff).

The review signed in as a staff account made by `createsuperuser` with its password alone,
put its own authenticator on the account over the API and then opened the admin with that
authenticator's codes (the real owner locked out of the second factor). Now, under
STAFF_REQUIRE_TOTP, a staff account without two-factor sign-in is not signed in by the
admin's login door at all, and it turns two-factor sign-in on only with a one-time enrolment
code that an operator makes on the server (`manage.py staff_enrol <username>`): stored as a
hash, expiring, used once. Through the real admin door (the Django test client) and the real
commands (call_command)."""

from __future__ import annotations

import time
from io import StringIO
from typing import Any

import pyotp
import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client
from rest_framework.test import APIClient

from accounts import two_factor
from accounts.models import RecoveryCode, TwoFactor, User
from tests.support.http import assert_error
from tests.support.personas import PASSWORD

pytestmark = pytest.mark.django_db

ADMIN = "/admin/"


def code(secret: str, steps_ahead: int = 0) -> str:
    return pyotp.TOTP(secret).at(time.time() + 30 * steps_ahead)


@pytest.fixture
def staff_rule(settings: Any) -> None:
    settings.STAFF_REQUIRE_TOTP = True  # as in production (on with DEBUG off)


@pytest.fixture
def warden(monkeypatch: pytest.MonkeyPatch) -> User:
    """A staff account as an operator makes the first one (docs/FAIRPLAY.md)."""
    monkeypatch.setenv("DJANGO_SUPERUSER_PASSWORD", PASSWORD)
    call_command(
        "createsuperuser",
        interactive=False,
        username="warden",
        email="warden@example.org",
        stdout=StringIO(),
    )
    return User.objects.get(username="warden")


def enrolment_code(username: str, *options: str) -> str:
    out = StringIO()
    call_command("staff_enrol", username, *options, stdout=out)
    return out.getvalue().split(f"{username}: ", 1)[1].split()[0]


def signed_in(name: str = "warden") -> APIClient:
    """The site signed in with the password alone, as the review's attacker did."""
    api = APIClient()
    answer = api.post("/api/auth/session", {"username": name, "password": PASSWORD}, format="json")
    assert answer.status_code == 200, answer.content
    return api


def admin_sign_in(otp: str = "") -> Client:
    page = Client()
    form = {
        "username": "warden",
        "password": PASSWORD,
        "next": ADMIN,
        **({"otp": otp} if otp else {}),
    }
    page.post(f"{ADMIN}login/", form)
    return page


def admin_opens(page: Client) -> bool:
    status: int = page.get(ADMIN).status_code
    assert status in (200, 302)
    return status == 200


@pytest.mark.usefixtures("staff_rule")
def test_the_password_alone_puts_no_authenticator_on_a_staff_account(warden: User) -> None:
    attacker = signed_in()
    secret = attacker.post("/api/me/totp").json()["secret"]
    answer = attacker.post("/api/me/totp/confirm", {"code": code(secret)}, format="json")
    assert_error(answer, 403, "enrolment_code_required")
    assert not two_factor.is_active(warden)
    guessed = {"code": code(secret), "enrolment_code": "00000000-aaaaa-bbbbb-ccccc-ddddd"}
    assert_error(
        attacker.post("/api/me/totp/confirm", guessed, format="json"), 403, "enrolment_code_invalid"
    )
    assert not two_factor.is_active(warden)
    # the attacker's authenticator opens nothing either
    assert not admin_opens(admin_sign_in(code(secret, 1)))


@pytest.mark.usefixtures("staff_rule")
def test_the_admin_door_signs_no_staff_in_without_a_second_factor(warden: User) -> None:
    page = Client()
    answer = page.post(
        f"{ADMIN}login/", {"username": "warden", "password": PASSWORD, "next": ADMIN}
    )
    assert answer.status_code == 200  # the form again, saying how to enrol
    assert b"enrolment code" in answer.content and b"staff_enrol" in answer.content
    assert "_auth_user_id" not in page.session
    assert not admin_opens(page)


@pytest.mark.usefixtures("staff_rule")
def test_the_operators_code_enrols_the_owner_once_then_the_admin_opens_with_the_app(
    warden: User,
) -> None:
    enrolment = enrolment_code("warden")
    # stored only as a hash
    stored = list(RecoveryCode.objects.filter(user=warden).values_list("code_hash", flat=True))
    assert len(stored) == 1 and enrolment not in stored[0] and len(stored[0]) == 64
    owner = signed_in()
    secret = owner.post("/api/me/totp").json()["secret"]
    body = {"code": code(secret), "enrolment_code": enrolment}
    confirmed = owner.post("/api/me/totp/confirm", body, format="json")
    assert confirmed.status_code == 200, confirmed.content
    recovery = confirmed.json()["recovery_codes"]
    assert len(recovery) == 10 and two_factor.is_active(warden)
    # the enrolment code is gone with the confirmation: it is not a recovery code
    assert RecoveryCode.objects.filter(user=warden).count() == 10
    owner_on_admin = admin_sign_in(code(secret, 1))
    assert admin_opens(owner_on_admin)
    # used once: with two-factor sign-in off again, the same code does not enrol a new app
    off = {"code": recovery[0], "password": PASSWORD}
    assert owner.delete("/api/me/totp", off, format="json").status_code == 204
    assert not admin_opens(owner_on_admin)  # the admin closes with the second factor gone
    secret = owner.post("/api/me/totp").json()["secret"]
    again = {"code": code(secret), "enrolment_code": enrolment}
    assert_error(
        owner.post("/api/me/totp/confirm", again, format="json"), 403, "enrolment_code_invalid"
    )
    assert not two_factor.is_active(warden)


@pytest.mark.usefixtures("staff_rule")
def test_a_code_expires_and_a_new_one_replaces_the_last(warden: User) -> None:
    expired, _ = two_factor.issue_enrolment_code(user=warden, hours=0)
    owner = signed_in()
    secret = owner.post("/api/me/totp").json()["secret"]
    answer = owner.post(
        "/api/me/totp/confirm", {"code": code(secret), "enrolment_code": expired}, format="json"
    )
    assert_error(answer, 403, "enrolment_code_invalid")
    first = enrolment_code("warden")
    second = enrolment_code("warden")
    secret = owner.post("/api/me/totp").json()["secret"]
    answer = owner.post(
        "/api/me/totp/confirm", {"code": code(secret), "enrolment_code": first}, format="json"
    )
    assert_error(answer, 403, "enrolment_code_invalid")
    answer = owner.post(
        "/api/me/totp/confirm",
        {"code": code(secret), "enrolment_code": second.upper()},  # as read out loud
        format="json",
    )
    assert answer.status_code == 200, answer.content


@pytest.mark.usefixtures("staff_rule")
def test_a_new_code_drops_a_secret_somebody_else_started(warden: User) -> None:
    attacker = signed_in()
    secret = attacker.post("/api/me/totp").json()["secret"]
    enrolment = enrolment_code("warden")  # the operator, after the attacker started
    assert not TwoFactor.objects.filter(user=warden).exists()
    # whoever holds the code confirms only a secret started after it
    body = {"code": code(secret), "enrolment_code": enrolment}
    answer = attacker.post("/api/me/totp/confirm", body, format="json")
    assert_error(answer, 409, "totp_inactive")
    assert not two_factor.is_active(warden)


@pytest.mark.usefixtures("staff_rule")
def test_wrong_enrolment_codes_are_counted_with_the_sign_in(warden: User, rates: Any) -> None:
    enrolment_code("warden")
    attacker = signed_in()
    secret = attacker.post("/api/me/totp").json()["secret"]
    cache.clear()  # the sign-in above took one of each count
    rates(auth="1000/min", auth_username="3/min")
    for n in range(3):
        body = {"code": code(secret), "enrolment_code": f"{n:08x}-aaaaa-bbbbb-ccccc-ddddd"}
        answer = attacker.post("/api/me/totp/confirm", body, format="json")
        assert_error(answer, 403, "enrolment_code_invalid")
    body = {"code": code(secret), "enrolment_code": "ffffffff-aaaaa-bbbbb-ccccc-ddddd"}
    refused = attacker.post("/api/me/totp/confirm", body, format="json")
    assert_error(refused, 429, "throttled")
    assert int(refused["Retry-After"]) >= 1


@pytest.mark.usefixtures("staff_rule")
def test_replace_resets_a_second_factor_and_closes_the_admin_until_the_owner_enrols(
    warden: User,
) -> None:
    enrolment = enrolment_code("warden")
    owner = signed_in()
    secret = owner.post("/api/me/totp").json()["secret"]
    body = {"code": code(secret), "enrolment_code": enrolment}
    assert owner.post("/api/me/totp/confirm", body, format="json").status_code == 200
    page = admin_sign_in(code(secret, 1))
    assert admin_opens(page)
    with pytest.raises(CommandError, match="--replace"):
        call_command("staff_enrol", "warden", stdout=StringIO())
    assert two_factor.is_active(warden)
    enrolment_code("warden", "--replace")
    assert not two_factor.is_active(warden)
    assert not admin_opens(page)


def test_the_command_is_for_staff_accounts(warden: User, alice: User) -> None:
    with pytest.raises(CommandError, match="not staff"):
        call_command("staff_enrol", "alice", stdout=StringIO())
    with pytest.raises(CommandError, match="No account"):
        call_command("staff_enrol", "nobody", stdout=StringIO())
    with pytest.raises(CommandError, match="--hours"):
        call_command("staff_enrol", "warden", "--hours", "0", stdout=StringIO())
    assert not RecoveryCode.objects.filter(user__in=[warden, alice]).exists()


def test_without_the_rule_createsuperuser_staff_open_the_admin_as_before(warden: User) -> None:
    """`make run` and the suite (STAFF_REQUIRE_TOTP off): nothing changes for them."""
    assert admin_opens(admin_sign_in())
    owner = signed_in()
    secret = owner.post("/api/me/totp").json()["secret"]
    answer = owner.post("/api/me/totp/confirm", {"code": code(secret)}, format="json")
    assert answer.status_code == 200, answer.content
