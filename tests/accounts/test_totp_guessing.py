"""Guessing two-factor codes outside the sign-in (docs/ACCOUNTS.md, Two-factor sign-in).

The review sent 300 wrong codes to `DELETE /api/me/totp` in 18.6 s, none refused: whoever
holds a session or an `account:write` token could find the code and turn two-factor sign-in
off, then enrol their own. Now every door that checks a code takes a count from the
sign-in's own budgets, per account (THROTTLE_AUTH_USERNAME) and per address (THROTTLE_AUTH),
before it looks at anything; over either, 429 `throttled` with Retry-After and nothing
changes. Turning it off takes the password too (403 `wrong_password` when wrong); API.md's
`{code}` alone still works, at most 5 times a day per account."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pyotp
import pytest
from django.core.cache import cache
from django.test import Client
from rest_framework.test import APIClient

from accounts import scopes
from accounts.models import RecoveryCode, TwoFactor, User
from accounts.services import token_issue
from tests.support.http import assert_error
from tests.support.personas import PASSWORD, client_for

pytestmark = pytest.mark.django_db


def code(secret: str, steps_ahead: int = 0) -> str:
    return pyotp.TOTP(secret).at(time.time() + 30 * steps_ahead)


def wrong_codes(secret: str, n: int) -> list[str]:
    """`n` six-digit codes that none of the steps around now accepts."""
    valid = {code(secret, s) for s in (-2, -1, 0, 1, 2)}
    candidates = (f"{(i * 104_729) % 1_000_000:06d}" for i in range(1, 100))
    return [c for c in candidates if c not in valid][:n]


def enrolled(api: APIClient) -> str:
    """Two-factor sign-in turned on for `api`'s account, and the sign-in's counts emptied
    again (the confirmation took one of each); its secret."""
    secret: str = api.post("/api/me/totp").json()["secret"]
    confirmed = api.post("/api/me/totp/confirm", {"code": code(secret)}, format="json")
    assert confirmed.status_code == 200, confirmed.content
    cache.clear()
    return secret


@pytest.fixture
def alice_on(alice_api: APIClient, rates: Any) -> Callable[..., str]:
    """`alice_on(per_account=..., per_address=...)`: two-factor sign-in turned on for alice
    (enrolled), then the sign-in's budgets set for the test, per account (THROTTLE_AUTH_USERNAME)
    and per address (THROTTLE_AUTH), both out of the way unless given; her secret."""

    def turn_on(*, per_account: str = "1000/min", per_address: str = "1000/min") -> str:
        secret = enrolled(alice_api)
        rates(auth=per_address, auth_username=per_account)
        return secret

    return turn_on


def still_on(user: User) -> bool:
    return TwoFactor.objects.filter(user=user, confirmed_at__isnull=False).exists()


def sign_in(otp: str, name: str = "alice") -> Any:
    body = {"username": name, "password": PASSWORD, "otp": otp}
    return APIClient().post("/api/auth/token", body, format="json")


def off(api: APIClient, otp: str, password: str | None = PASSWORD) -> Any:
    body = {"code": otp, **({"password": password} if password is not None else {})}
    return api.delete("/api/me/totp", body, format="json")


def test_wrong_codes_at_turning_it_off_run_out_of_the_accounts_sign_in_budget(
    alice: User, alice_api: APIClient, alice_on: Callable[..., str]
) -> None:
    secret = alice_on(per_account="5/min")
    for guess in wrong_codes(secret, 5):
        assert_error(off(alice_api, guess), 403, "wrong_otp")
    refused = off(alice_api, code(secret, 1))  # the right code, once the budget is spent
    assert_error(refused, 429, "throttled")
    assert int(refused["Retry-After"]) >= 1
    assert still_on(alice) and RecoveryCode.objects.filter(user=alice).count() == 10
    # ... and the sign-in naming the account is held as well: one budget, not two
    assert_error(sign_in(code(secret, 1)), 429, "throttled")
    # the right code still works once the budget is back
    cache.clear()
    assert off(alice_api, code(secret, 1)).status_code == 204
    assert not still_on(alice)


def test_guesses_at_the_sign_in_and_the_admin_leave_none_for_turning_it_off(
    alice: User, alice_api: APIClient, alice_on: Callable[..., str]
) -> None:
    secret = alice_on(per_account="4/min")
    guesses = wrong_codes(secret, 4)
    for guess in guesses[:2]:
        assert_error(sign_in(guess), 401, "otp_invalid")
    for guess in guesses[2:]:  # the admin's sign-in form counts too (accounts.admin)
        form = {"username": "alice", "password": PASSWORD, "otp": guess, "next": "/admin/"}
        assert Client().post("/admin/login/", form).status_code == 200
    assert_error(off(alice_api, code(secret, 1)), 429, "throttled")
    assert still_on(alice)


def test_wrong_codes_at_the_confirmation_are_counted_too(
    alice: User, alice_api: APIClient, rates: Any
) -> None:
    secret = alice_api.post("/api/me/totp").json()["secret"]
    rates(auth="1000/min", auth_username="3/min")
    for guess in wrong_codes(secret, 3):
        answer = alice_api.post("/api/me/totp/confirm", {"code": guess}, format="json")
        assert_error(answer, 403, "wrong_otp")
    answer = alice_api.post("/api/me/totp/confirm", {"code": code(secret)}, format="json")
    assert_error(answer, 429, "throttled")
    assert int(answer["Retry-After"]) >= 1
    assert not still_on(alice) and not RecoveryCode.objects.filter(user=alice).exists()


def test_one_address_guessing_at_several_accounts_is_held_by_the_address_budget(
    alice: User, alice_api: APIClient, bob: User, bob_api: APIClient, rates: Any
) -> None:
    secret = enrolled(alice_api)
    bob_secret = bob_api.post("/api/me/totp").json()["secret"]
    rates(auth="3/min", auth_username="1000/min")
    for guess in wrong_codes(secret, 3):
        assert_error(off(alice_api, guess), 403, "wrong_otp")
    answer = bob_api.post("/api/me/totp/confirm", {"code": code(bob_secret)}, format="json")
    assert_error(answer, 429, "throttled")
    assert not still_on(bob)


def test_turning_it_off_with_a_wrong_password_changes_nothing(
    alice: User, alice_api: APIClient, alice_on: Callable[..., str]
) -> None:
    secret = alice_on()
    right = code(secret, 1)
    assert_error(off(alice_api, right, password="not the password"), 403, "wrong_password")
    assert still_on(alice) and RecoveryCode.objects.filter(user=alice).count() == 10
    # the code was not looked at, so not used up: with the password it works
    assert off(alice_api, right).status_code == 204
    assert not still_on(alice) and not RecoveryCode.objects.filter(user=alice).exists()


def test_wrong_passwords_there_are_counted_like_codes(
    alice: User, alice_api: APIClient, alice_on: Callable[..., str]
) -> None:
    secret = alice_on(per_account="3/min")
    for n in range(3):
        assert_error(off(alice_api, code(secret, 1), password=f"guess {n}"), 403, "wrong_password")
    assert_error(off(alice_api, code(secret, 1)), 429, "throttled")  # the right password too
    assert still_on(alice)


def test_api_mds_body_without_the_password_works_a_few_times_a_day(
    alice: User, alice_api: APIClient, alice_on: Callable[..., str]
) -> None:
    secret = alice_on()
    for guess in wrong_codes(secret, 5):
        assert_error(off(alice_api, guess, password=None), 403, "wrong_otp")
    refused = off(alice_api, code(secret, 1), password=None)
    body = assert_error(refused, 429, "throttled")
    assert "password" in body["error"]["message"]
    assert int(refused["Retry-After"]) >= 1
    assert still_on(alice)
    # the password path is not held by that limit
    assert off(alice_api, code(secret, 1)).status_code == 204


def test_a_client_that_follows_api_md_turns_it_off_with_the_code_alone(
    alice: User, alice_api: APIClient
) -> None:
    secret = enrolled(alice_api)
    assert off(alice_api, code(secret, 1), password=None).status_code == 204
    assert not still_on(alice)


def test_the_web_pages_session_turns_it_off_with_the_code_and_the_password(
    alice: User, alice_api: APIClient
) -> None:
    secret = enrolled(alice_api)
    page = Client()
    page.force_login(alice)
    wrong = page.delete(
        "/api/me/totp", {"code": code(secret, 1), "password": "nope"}, "application/json"
    )
    assert_error(wrong, 403, "wrong_password")
    right = page.delete(
        "/api/me/totp", {"code": code(secret, 1), "password": PASSWORD}, "application/json"
    )
    assert right.status_code == 204
    assert not still_on(alice)


def test_refused_bodies_change_nothing(alice: User, alice_api: APIClient) -> None:
    secret = enrolled(alice_api)
    for body in ({}, {"password": PASSWORD}, {"code": 123456, "password": PASSWORD},
                 {"code": code(secret, 1), "password": None}):  # fmt: skip
        assert_error(alice_api.delete("/api/me/totp", body, format="json"), 400, "invalid")
    assert still_on(alice)


def test_a_token_holder_is_held_as_a_session_is(alice: User, rates: Any) -> None:
    """The review's own setup: a token with only `account:write`."""
    secret = enrolled(client_for(alice))
    _, key = token_issue(user=alice, name="script", scopes=scopes.stored([scopes.ACCOUNT_WRITE]))
    thief = APIClient()
    thief.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    rates(auth="1000/min", auth_username="10/min")
    answers = [off(thief, g, password=None).status_code for g in wrong_codes(secret, 8)]
    assert answers == [403] * 5 + [429] * 3
    assert still_on(alice)


def test_the_schema_documents_the_password_and_the_refusals(anon_api: APIClient) -> None:
    schema = anon_api.get("/api/schema/?format=json").json()
    delete = schema["paths"]["/api/me/totp"]["delete"]
    ref = delete["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    body = schema["components"]["schemas"][ref.rsplit("/", 1)[1]]
    assert set(body["properties"]) == {"code", "password"}
    assert body["required"] == ["code"]  # API.md's `{code}` stays a valid body
    assert {"403", "429"} <= delete["responses"].keys()
    assert "wrong_password" in delete["responses"]["403"]["description"]
    confirm = schema["paths"]["/api/me/totp/confirm"]["post"]
    ref = confirm["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    body = schema["components"]["schemas"][ref.rsplit("/", 1)[1]]
    assert set(body["properties"]) == {"code", "enrolment_code"}
    assert "enrolment_code_required" in confirm["responses"]["403"]["description"]
