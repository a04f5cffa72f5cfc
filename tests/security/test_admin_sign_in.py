"""The Django admin's sign-in has the API's sign-in limits.

The review sent 60 wrong passwords for a staff account in 37 s, all answered 200, then the
right one 302. Now the admin's form counts against the same per-address (THROTTLE_AUTH) and
per-username (THROTTLE_AUTH_USERNAME) budgets as POST /api/auth/token and /api/auth/session:
over either, a 429 page with Retry-After, the right password refused too. The admin's path
is ADMIN_PATH (default `admin/`)."""

from __future__ import annotations

import importlib
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client, override_settings
from django.urls import clear_url_caches, reverse
from rest_framework.test import APIClient

import demineur_site.urls
from accounts.models import User
from tests.support.http import assert_error
from tests.support.personas import PASSWORD

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(db: Any) -> User:
    return User.objects.create_user(
        username="warden", password=PASSWORD, is_staff=True, is_superuser=True
    )


def _sign_in(client: Client, username: str, password: str, path: str = "/admin/login/") -> Any:
    return client.post(
        f"{path}?next=/admin/", {"username": username, "password": password, "next": "/admin/"}
    )


def test_wrong_passwords_then_the_right_one_is_refused_while_limited(
    staff: User, rates: Any
) -> None:
    rates(auth="1000/min", auth_username="5/min")
    codes = [
        _sign_in(Client(REMOTE_ADDR=f"192.0.2.{i}"), "warden", "wrong").status_code
        for i in range(5)
    ]
    assert codes == [200] * 5  # the form again, with its error
    browser = Client(REMOTE_ADDR="198.51.100.7")
    refused = _sign_in(browser, "warden", PASSWORD)
    assert refused.status_code == 429
    assert int(refused["Retry-After"]) >= 1
    assert refused["Content-Type"].startswith("text/html")
    assert b"Too many sign-in attempts" in refused.content
    assert "_auth_user_id" not in browser.session
    assert browser.get("/admin/").status_code == 302  # still signed out
    # Another spelling of the name is the same name (accounts.names).
    assert _sign_in(Client(), "WARDEN", PASSWORD).status_code == 429


def test_the_address_limit_holds_across_usernames(staff: User, rates: Any) -> None:
    rates(auth="3/min", auth_username="1000/min")
    browser = Client(REMOTE_ADDR="203.0.113.5")
    for name in ("a", "b", "c"):
        assert _sign_in(browser, name, "wrong").status_code == 200
    assert _sign_in(browser, "warden", PASSWORD).status_code == 429
    # Another address signs in.
    elsewhere = Client(REMOTE_ADDR="203.0.113.6")
    signed_in = _sign_in(elsewhere, "warden", PASSWORD)
    assert signed_in.status_code == 302, signed_in.content
    assert elsewhere.get("/admin/").status_code == 200


def test_the_admin_and_the_api_share_one_budget_per_name(staff: User, rates: Any) -> None:
    rates(auth="1000/min", auth_username="3/min")
    api = APIClient()
    for path in ("/api/auth/token", "/api/auth/session", "/api/auth/token"):
        answer = api.post(path, {"username": "warden", "password": "wrong"}, format="json")
        assert_error(answer, 401, "invalid_credentials")
    assert _sign_in(Client(), "warden", PASSWORD).status_code == 429
    # ... and the other way round: the admin's guesses count for the API.
    cache.clear()
    for _ in range(3):
        assert _sign_in(Client(), "warden", "wrong").status_code == 200
    answer = api.post(
        "/api/auth/token", {"username": "warden", "password": PASSWORD}, format="json"
    )
    assert_error(answer, 429, "throttled")


def test_reading_the_form_costs_nothing_and_a_right_password_signs_in(
    staff: User, rates: Any
) -> None:
    rates(auth="2/min", auth_username="2/min")
    browser = Client()
    for _ in range(5):
        assert browser.get("/admin/login/").status_code == 200
    assert _sign_in(browser, "warden", PASSWORD).status_code == 302


def test_the_csrf_check_still_comes_first(staff: User, rates: Any) -> None:
    rates(auth="1000/min", auth_username="1000/min")
    strict = Client(enforce_csrf_checks=True)
    assert _sign_in(strict, "warden", PASSWORD).status_code == 403


@pytest.fixture
def admin_at_staff_door() -> Iterator[None]:
    """The URLconf rebuilt with ADMIN_PATH=staff-door/, and rebuilt as it was afterwards."""
    with override_settings(ADMIN_PATH="staff-door/"):
        importlib.reload(demineur_site.urls)
        clear_url_caches()
        yield
    importlib.reload(demineur_site.urls)
    clear_url_caches()


@pytest.mark.usefixtures("admin_at_staff_door")
def test_the_admin_path_is_a_setting_and_its_sign_in_is_limited_there(
    staff: User, rates: Any
) -> None:
    assert reverse("admin:login") == "/staff-door/login/"
    assert Client().get("/admin/").status_code == 404
    assert Client().get("/staff-door/").status_code == 302
    rates(auth="1000/min", auth_username="2/min")
    for _ in range(2):
        assert _sign_in(Client(), "warden", "wrong", "/staff-door/login/").status_code == 200
    assert _sign_in(Client(), "warden", PASSWORD, "/staff-door/login/").status_code == 429


def test_a_bad_admin_path_is_refused_at_start_up() -> None:
    root = Path(__file__).resolve().parents[2]
    for bad in ("/admin/", "admin", "api/", "static/"):
        run = subprocess.run(
            [sys.executable, "-c", "import demineur_site.settings_test"],
            env={"ADMIN_PATH": bad, "PATH": "/usr/bin:/bin"},
            cwd=root,
            capture_output=True,
            text=True,
            check=False,
        )
        assert run.returncode != 0 and "ADMIN_PATH" in run.stderr, (bad, run.stderr[-300:])
