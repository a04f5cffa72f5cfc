"""`POST /api/me/email` mails a verification link to any address it is given, so it is limited
per recipient (the hashed, lower-cased address, whatever the account) and per account
(whatever the addresses): accounts/throttles.py, docs/ACCOUNTS.md (Limits).

The review sent 25 verification mails to an address that was not the caller's, without a
429. A refusal is 429 `throttled` with Retry-After and the API.md body, and it mails nothing
and changes nothing. The suite's settings raise both limits; these tests set them."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from accounts.models import OutgoingMail, User
from deploy.processes import server_env
from tests.support.http import assert_error
from tests.support.personas import PASSWORD, client_for
from tests.support.services import settings_under

pytestmark = pytest.mark.django_db


def _account(name: str, email: str = "") -> tuple[User, APIClient]:
    user = User.objects.create_user(username=name, password=PASSWORD, email=email)
    return user, client_for(user)


def _set(api: APIClient, email: str) -> Any:
    return api.post("/api/me/email", {"email": email}, format="json")


def _mails_to(address: str) -> int:
    return OutgoingMail.objects.filter(to__iexact=address).count()


def test_the_shipped_limits_are_five_a_day_per_address_and_ten_per_account() -> None:
    env = {k: v for k, v in server_env(debug=True).items() if not k.startswith("THROTTLE_EMAIL_")}
    printed = settings_under(
        env,
        "r = s.REST_FRAMEWORK['DEFAULT_THROTTLE_RATES']\n"
        "print(r['email_recipient'], r['email_account'])",
    )
    assert printed.split() == ["5/day", "10/day"]


def test_one_address_gets_a_few_links_a_day_however_many_accounts_ask(rates: Any) -> None:
    rates(email_recipient="3/day", email_account=None)
    callers = [_account(f"caller{i}", f"caller{i}@example.org") for i in range(5)]
    for i, (_, api) in enumerate(callers[:3]):
        spelled = ["victim@example.org", "VICTIM@example.org", " Victim@Example.org "][i]
        assert _set(api, spelled).status_code == 202
    assert _mails_to("victim@example.org") == 3

    for user, api in callers[3:]:
        refused = _set(api, "victim@example.org")
        assert_error(refused, 429, "throttled")
        assert 3600 < int(refused["Retry-After"]) <= 86400 + 1
        user.refresh_from_db()  # nothing changed
        assert (user.email, user.email_verified) == (f"{user.username}@example.org", False)
    assert _mails_to("victim@example.org") == 3  # nothing mailed

    # Another address is another budget.
    assert _set(callers[3][1], "someone.else@example.org").status_code == 202


def test_one_account_asks_for_a_few_links_a_day_whatever_the_addresses(rates: Any) -> None:
    rates(email_recipient=None, email_account="3/day")
    user, api = _account("sprayer")
    User.objects.filter(pk=user.pk).update(email="mine@example.org", email_verified=True)
    for i in range(3):
        assert _set(api, f"stranger{i}@example.org").status_code == 202
    sent = OutgoingMail.objects.count()
    refused = _set(api, "stranger3@example.org")
    assert_error(refused, 429, "throttled")
    assert int(refused["Retry-After"]) > 3600
    assert OutgoingMail.objects.count() == sent
    user.refresh_from_db()
    assert user.email == "stranger2@example.org"
    # Another account is not held back by this one.
    assert _set(_account("neighbour")[1], "stranger3@example.org").status_code == 202


def test_a_refusal_by_one_limit_spends_nothing_of_the_other(rates: Any) -> None:
    rates(email_recipient="1/day", email_account="2/day")
    _, first = _account("first")
    _, second = _account("second")
    assert _set(first, "shared@example.org").status_code == 202
    for _ in range(3):  # refused per recipient: the second account's own budget is untouched
        assert_error(_set(second, "shared@example.org"), 429, "throttled")
    assert _set(second, "a@example.org").status_code == 202
    assert _set(second, "b@example.org").status_code == 202
    assert_error(_set(second, "c@example.org"), 429, "throttled")


def test_refused_input_spends_nothing(rates: Any) -> None:
    rates(email_recipient="1/day", email_account="1/day")
    _, api = _account("typist")
    for bad in ("not an address", "", None):
        assert_error(api.post("/api/me/email", {"email": bad}, format="json"), 400, "invalid")
    assert _set(api, "typist@example.org").status_code == 202


def test_a_guest_is_refused_before_the_limits(rates: Any) -> None:
    rates(email_recipient="1/day", email_account=None)
    page = APIClient()
    assert page.post("/api/auth/guest").status_code == 201
    assert_error(_set(page, "kept@example.org"), 409, "guest_account")
    _, api = _account("owner")
    assert _set(api, "kept@example.org").status_code == 202
