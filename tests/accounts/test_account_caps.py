"""Caps on new accounts (accounts/throttles.py): guests and sign-ups per address.

The review made about 30 guests or sign-ups a minute from one address, with no end. Now:
guests and sign-ups per address and rolling day (ACCOUNT_GUESTS_PER_ADDRESS_DAY,
ACCOUNT_SIGNUPS_PER_ADDRESS_DAY), and a site-wide ceiling per hour (ACCOUNT_NEW_PER_HOUR)
with an alarm: a WARNING line and a counter. Only accounts about to be made count; a refusal
is 429 `throttled` with Retry-After and makes nothing.

With REDIS_URL set the counts are Redis's (the suite's cache), and the last test proves they
live there and not in this process."""

from __future__ import annotations

import logging
import os
from typing import Any

import pytest
from rest_framework.test import APIClient

from accounts import throttles
from accounts.models import AccountKind, User
from tests.support.http import assert_error
from tests.support.personas import PASSWORD

pytestmark = pytest.mark.django_db


def _guest(address: str) -> Any:
    return APIClient(REMOTE_ADDR=address).post("/api/auth/guest")


def _sign_up(name: str, address: str, password: str = PASSWORD, client: Any = None) -> Any:
    client = client or APIClient(REMOTE_ADDR=address)
    return client.post(
        "/api/auth/register", {"username": name, "password": password}, format="json"
    )


def test_guests_per_address_and_day(rates: Any) -> None:
    rates(guest_day="2/day")
    assert [_guest("192.0.2.1").status_code for _ in range(2)] == [201, 201]
    refused = _guest("192.0.2.1")
    assert_error(refused, 429, "throttled")
    assert int(refused["Retry-After"]) > 3600  # the oldest of the day's two leaves first
    assert User.objects.filter(kind=AccountKind.GUEST).count() == 2
    assert _guest("192.0.2.2").status_code == 201  # another address
    # A session that already is a guest's makes no account and is not refused.
    again = APIClient(REMOTE_ADDR="192.0.2.3")
    assert again.post("/api/auth/guest").status_code == 201
    assert [again.post("/api/auth/guest").status_code for _ in range(3)] == [200] * 3
    assert _guest("192.0.2.3").status_code == 201


def test_sign_ups_per_address_and_day_count_only_accounts_made(rates: Any) -> None:
    rates(signup_day="2/day")
    for i in range(5):  # refused input makes no account and spends nothing
        answer = _sign_up(f"weak{i}", "198.51.100.1", password="123")
        assert_error(answer, 400, "invalid")
    assert _sign_up("ann", "198.51.100.1").status_code == 201
    assert _sign_up("ben", "198.51.100.1").status_code == 201
    refused = _sign_up("cid", "198.51.100.1")
    assert_error(refused, 429, "throttled")
    assert int(refused["Retry-After"]) >= 1
    assert not User.objects.filter(username="cid").exists()
    assert _sign_up("cid", "198.51.100.2").status_code == 201


def test_a_guest_signing_up_makes_no_new_account_and_is_not_counted(rates: Any) -> None:
    rates(signup_day="1/day")
    assert _sign_up("ann", "198.51.100.9").status_code == 201
    browser = APIClient(REMOTE_ADDR="198.51.100.9")
    guest = browser.post("/api/auth/guest").json()
    became = _sign_up("ben", "198.51.100.9", client=browser)
    assert became.status_code == 201, became.content
    assert became.json()["id"] == guest["id"]


def test_the_site_wide_ceiling_refuses_every_address_and_raises_the_alarm(
    rates: Any, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    rates(new_accounts="3/hour")
    monkeypatch.setattr(throttles, "_last_alarm", float("-inf"))
    before = throttles.new_account_ceiling_refusals()
    assert _guest("203.0.113.1").status_code == 201
    assert _sign_up("ann", "203.0.113.2").status_code == 201
    assert _guest("203.0.113.3").status_code == 201
    with caplog.at_level(logging.WARNING, logger="accounts.throttles"):
        refused = [_guest("203.0.113.4"), _sign_up("ben", "203.0.113.5"), _guest("203.0.113.6")]
    for answer in refused:
        assert_error(answer, 429, "throttled")
        assert int(answer["Retry-After"]) >= 1
    assert User.objects.count() == 3
    assert throttles.new_account_ceiling_refusals() == before + 3
    alarms = [r for r in caplog.records if r.name == "accounts.throttles"]
    assert len(alarms) == 1, alarms  # one line, not one per refusal
    assert alarms[0].levelno == logging.WARNING
    assert "ceiling of 3 per 3600 s" in alarms[0].getMessage()


def test_an_address_over_its_own_cap_spends_none_of_the_ceiling(rates: Any) -> None:
    rates(guest_day="1/day", new_accounts="3/hour")
    assert _guest("192.0.2.50").status_code == 201
    for _ in range(5):
        assert_error(_guest("192.0.2.50"), 429, "throttled")
    assert [_guest(f"192.0.2.{60 + i}").status_code for i in range(2)] == [201, 201]


def test_zero_turns_a_cap_off(rates: Any) -> None:
    rates(guest_day=None, signup_day=None, new_accounts=None)
    assert [_guest("192.0.2.80").status_code for _ in range(5)] == [201] * 5


@pytest.mark.skipif(
    not os.environ.get("REDIS_URL"), reason="needs REDIS_URL: the shared counts live in Redis"
)
def test_the_counts_live_in_redis_not_in_the_process(
    rates: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A second cache client of the same Redis (what another worker process holds) sees the
    count this one made, and refuses the next account."""
    from django.conf import settings

    from demineur_site.cache import RedisCacheWithFallback

    rates(guest_day="2/day")
    assert [_guest("192.0.2.90").status_code for _ in range(2)] == [201, 201]
    location = settings.CACHES["default"]["LOCATION"]
    other = RedisCacheWithFallback(
        location, {"KEY_PREFIX": settings.CACHES["default"].get("KEY_PREFIX", "")}
    )
    monkeypatch.setattr(throttles.GuestsPerDayThrottle, "cache", other)
    assert_error(_guest("192.0.2.90"), 429, "throttled")
    assert User.objects.count() == 2
