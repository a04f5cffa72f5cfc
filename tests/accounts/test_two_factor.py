"""Two-factor sign-in with TOTP and recovery codes (API.md, The account's
lifecycle: `otp_required`, `otp_invalid`; docs/ACCOUNTS.md, Two-factor sign-in), and the
admin closed to staff who did not sign in with a second factor (STAFF_REQUIRE_TOTP)."""

from __future__ import annotations

import time
from io import StringIO
from typing import Any
from urllib.parse import parse_qs, urlsplit
from xml.etree import ElementTree

import pyotp
import pytest
import segno
from django.core.management import call_command
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import RecoveryCode, TwoFactor, User
from tests.support.personas import PASSWORD

pytestmark = pytest.mark.django_db


def code(secret: str, steps_ahead: int = 0) -> str:
    """The code of the current 30 s step, or of a later one (each code is accepted once)."""
    return pyotp.TOTP(secret).at(time.time() + 30 * steps_ahead)


def sign_in(otp: str | None = None, name: str = "alice") -> Any:
    body = {"username": name, "password": PASSWORD, **({"otp": otp} if otp is not None else {})}
    return APIClient().post("/api/auth/token", body, format="json")


def enrolled(api: APIClient) -> tuple[str, list[str], str]:
    """Two-factor turned on: the secret, the recovery codes and the code the confirmation used
    (computed again later, it may be the next 30 s step's)."""
    started = api.post("/api/me/totp")
    assert started.status_code == 201
    secret = started.json()["secret"]
    uri = urlsplit(started.json()["otpauth_uri"])
    assert (uri.scheme, uri.netloc) == ("otpauth", "totp")
    assert parse_qs(uri.query)["secret"] == [secret] and "alice" in uri.path
    used = code(secret)
    confirmed = api.post("/api/me/totp/confirm", {"code": used}, format="json")
    assert confirmed.status_code == 200, confirmed.content
    return secret, confirmed.json()["recovery_codes"], used


def test_a_pending_secret_does_not_change_sign_in_until_confirmed(alice_api: APIClient) -> None:
    started = alice_api.post("/api/me/totp").json()
    assert sign_in().status_code == 200  # not on yet
    wrong = alice_api.post("/api/me/totp/confirm", {"code": "000000"}, format="json")
    if code(started["secret"]) == "000000":  # one chance in a million
        pytest.skip("the current code happens to be 000000")
    # 403, not 401: the caller is still signed in (API.md's 401 means it is not)
    assert (wrong.status_code, wrong.json()["error"]["code"]) == (403, "wrong_otp")
    assert alice_api.get("/api/me").json()["two_factor"] is False


def test_sign_in_then_needs_a_code_and_refuses_a_wrong_or_replayed_one(
    alice_api: APIClient,
) -> None:
    secret, recovery, confirmed_with = enrolled(alice_api)
    assert len(recovery) == 10 and len(set(recovery)) == 10
    assert alice_api.get("/api/me").json()["two_factor"] is True
    missing = sign_in()
    assert (missing.status_code, missing.json()["error"]["code"]) == (401, "otp_required")
    wrong = sign_in("123456" if code(secret) != "123456" else "654321")
    assert (wrong.status_code, wrong.json()["error"]["code"]) == (401, "otp_invalid")
    # the code the confirmation used is not accepted twice (taken as it was: a new step may
    # have begun since, whose code would be a fresh one)
    assert sign_in(confirmed_with).json()["error"]["code"] == "otp_invalid"
    fresh = code(secret, steps_ahead=1)  # the next step (clocks drift): accepted once
    assert sign_in(fresh).status_code == 200
    assert sign_in(fresh).json()["error"]["code"] == "otp_invalid"
    # a wrong password is still a wrong password, whatever the code
    body = {"username": "alice", "password": "nope", "otp": code(secret, 1)}
    assert APIClient().post("/api/auth/token", body, format="json").status_code == 401


def test_a_recovery_code_signs_in_once(alice_api: APIClient, alice: User) -> None:
    _, recovery, _ = enrolled(alice_api)
    assert sign_in(recovery[0]).status_code == 200
    assert sign_in(recovery[0]).json()["error"]["code"] == "otp_invalid"
    assert sign_in(recovery[1].upper()).status_code == 200  # as typed from paper
    assert RecoveryCode.objects.filter(user=alice, used_at__isnull=True).count() == 8
    # stored hashed: no code appears in the table
    stored = set(RecoveryCode.objects.filter(user=alice).values_list("code_hash", flat=True))
    assert not stored & set(recovery)


def test_the_session_sign_in_asks_for_the_code_too(alice_api: APIClient) -> None:
    secret, _, _ = enrolled(alice_api)
    page = Client()
    body = {"username": "alice", "password": PASSWORD}
    answer = page.post("/api/auth/session", body, "application/json")
    assert answer.json()["error"]["code"] == "otp_required"
    answer = page.post("/api/auth/session", {**body, "otp": code(secret, 1)}, "application/json")
    assert answer.status_code == 200


def test_turning_it_off_needs_a_code(alice_api: APIClient, alice: User) -> None:
    secret, recovery, _ = enrolled(alice_api)
    assert alice_api.post("/api/me/totp").json()["error"]["code"] == "totp_active"
    refused = alice_api.delete("/api/me/totp", {"code": "12"}, format="json")
    assert (refused.status_code, refused.json()["error"]["code"]) == (403, "wrong_otp")
    assert alice_api.delete("/api/me/totp", {"code": recovery[5]}, format="json").status_code == 204
    assert sign_in().status_code == 200
    assert not RecoveryCode.objects.filter(user=alice).exists()
    again = alice_api.delete("/api/me/totp", {"code": code(secret)}, format="json")
    assert (again.status_code, again.json()["error"]["code"]) == (409, "totp_inactive")


def test_the_admin_opens_to_staff_only_after_a_second_factor(settings: Any) -> None:
    settings.STAFF_REQUIRE_TOTP = True
    User.objects.create_user(
        username="referee", password=PASSWORD, is_staff=True, is_superuser=True
    )
    admin = f"/{settings.ADMIN_PATH}"
    # without two-factor sign-in the admin stays closed, the password right or not
    page = Client()
    page.post(f"{admin}login/", {"username": "referee", "password": PASSWORD, "next": admin})
    assert page.get(admin).status_code == 302
    # enrolled on the site with an operator's enrolment code (tests/security/
    # test_staff_enrolment.py), then signed in to the admin with a code
    out = StringIO()
    call_command("staff_enrol", "referee", stdout=out)
    enrolment = out.getvalue().split("referee: ", 1)[1].split()[0]
    api = APIClient()
    api.force_authenticate(User.objects.get(username="referee"))
    secret = api.post("/api/me/totp").json()["secret"]
    body = {"code": code(secret), "enrolment_code": enrolment}
    assert api.post("/api/me/totp/confirm", body, format="json").status_code == 200
    page = Client()
    no_code = page.post(f"{admin}login/", {"username": "referee", "password": PASSWORD})
    assert no_code.status_code == 200 and page.get(admin).status_code == 302
    page.post(
        f"{admin}login/",
        {"username": "referee", "password": PASSWORD, "otp": code(secret, 1), "next": admin},
    )
    assert page.get(admin).status_code == 200
    settings.STAFF_REQUIRE_TOTP = False
    assert Client().get(admin).status_code == 302  # nobody signed in: the sign-in page


def test_a_code_already_used_is_refused_as_used_with_the_error_code_api_md_gives(
    alice_api: APIClient, alice: User
) -> None:
    secret, _, _ = enrolled(alice_api)
    # The confirmation's step, read rather than recomputed: still in the window for the next
    # 30 s whatever the clock does meanwhile, and taken.
    used = pyotp.TOTP(secret).generate_otp(TwoFactor.objects.get(user=alice).last_step)
    again = sign_in(used)
    assert (again.status_code, again.json()["error"]["code"]) == (401, "otp_invalid")
    assert again.json()["error"]["details"] == {"reason": "used"}
    assert "already used" in again.json()["error"]["message"]
    assert "next code" in again.json()["error"]["message"]
    off = alice_api.delete("/api/me/totp", {"code": used, "password": PASSWORD}, format="json")
    assert (off.status_code, off.json()["error"]["code"]) == (403, "wrong_otp")
    assert off.json()["error"]["details"] == {"reason": "used"}

    wrong = "123456" if used != "123456" else "654321"
    refused = sign_in(wrong)
    assert refused.json()["error"]["details"] == {"reason": "wrong"}
    assert refused.json()["error"]["message"] == "The two-factor code is wrong or expired."
    refused = alice_api.delete("/api/me/totp", {"code": wrong, "password": PASSWORD}, format="json")
    assert refused.json()["error"]["details"] == {"reason": "wrong"}
    assert alice_api.get("/api/me").json()["two_factor"] is True


def test_the_enrolment_answers_the_uri_as_a_qr_code_in_a_standalone_svg(
    alice_api: APIClient,
) -> None:
    started = alice_api.post("/api/me/totp").json()
    svg = ElementTree.fromstring(started["qr_svg"])
    ns = "{http://www.w3.org/2000/svg}"
    assert svg.tag == f"{ns}svg"  # its own namespace: an image from a data: URI needs it
    # segno's drawing only: two paths (the light square, the dark modules), no text, no script
    assert [child.tag for child in svg] == [f"{ns}path", f"{ns}path"]
    assert "alice" not in started["qr_svg"] and started["secret"] not in started["qr_svg"]
    # the size of the version segno picks for this URI at error correction M, border 4
    version = segno.make(started["otpauth_uri"], error="m").version
    assert int(svg.get("width", "0")) == 17 + 4 * version + 2 * 4
