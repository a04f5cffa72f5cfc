"""A lone surrogate (JSON `"\\ud800"`, text with no UTF-8 form) in any field
of any auth endpoint is a 4xx with the API.md error body, never a 500, and changes nothing.

The bodies are written by hand: a JSON encoder would not let the surrogate through."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient
from rest_framework.throttling import SimpleRateThrottle

from accounts.models import ApiToken, User
from tests.support.http import assert_error
from tests.support.personas import PASSWORD, client_for

pytestmark = pytest.mark.django_db

LONE = '"\\ud800"'  # as JSON spells it
OTHERS = ["\\udfff", "a\\ud83dz", "\\ude00x"]  # a low one alone, a high one without its pair


@pytest.fixture(autouse=True)
def _fresh_counts() -> Any:
    cache.clear()
    yield
    cache.clear()


def _post(client: APIClient, path: str, body: str, method: str = "post") -> Any:
    return getattr(client, method)(path, body, content_type="application/json")


def obj(*pairs: tuple[str, str]) -> str:
    """A JSON object from raw JSON (key, value) texts: `obj(('"name"', LONE))`."""
    return "{" + ", ".join(f"{k}: {v}" for k, v in pairs) + "}"


SIGN_IN = ["/api/auth/token", "/api/auth/session"]


@pytest.mark.parametrize("path", SIGN_IN)
@pytest.mark.parametrize("field", ["username", "password"])
def test_sign_in_with_a_lone_surrogate_is_a_400(alice: User, path: str, field: str) -> None:
    for spelled in [LONE] + [f'"{s}"' for s in OTHERS]:
        fields = {"username": '"alice"', "password": f'"{PASSWORD}"', field: spelled}
        body = "{" + ", ".join(f'"{k}": {v}' for k, v in fields.items()) + "}"
        answer = _post(APIClient(), path, body)
        assert_error(answer, 400, "invalid")
    assert not ApiToken.objects.exists()


@pytest.mark.parametrize("field", ["username", "password", "email", "kind"])
def test_sign_up_with_a_lone_surrogate_is_a_400(db: Any, field: str) -> None:
    fields = {"username": '"zed"', "password": f'"{PASSWORD}"', field: LONE}
    body = "{" + ", ".join(f'"{k}": {v}' for k, v in fields.items()) + "}"
    assert_error(_post(APIClient(), "/api/auth/register", body), 400, "invalid")
    assert not User.objects.exists()


def test_sign_up_from_a_guest_session_with_a_lone_surrogate_is_a_400(db: Any) -> None:
    guest = APIClient()
    made = guest.post("/api/auth/guest", LONE, content_type="application/json")  # body ignored
    assert made.status_code == 201, made.content
    body = obj(('"username"', LONE), ('"password"', LONE))
    assert_error(_post(guest, "/api/auth/register", body), 400, "invalid")
    assert User.objects.get().username == made.json()["username"]  # still the guest


def test_the_other_auth_endpoints_take_a_lone_surrogate_without_a_500(alice: User) -> None:
    api = client_for(alice)
    assert_error(_post(api, "/api/tokens", obj(('"name"', LONE))), 400, "invalid")
    assert_error(_post(api, "/api/tokens", obj((LONE, '"x"'))), 400, "invalid")
    assert ApiToken.objects.count() == 1  # the client's own
    for body in (obj(('"theme"', LONE)), obj((LONE, "1"))):
        assert_error(_post(api, "/api/me/settings", body, "patch"), 400, "invalid")
    assert User.objects.get().settings == {}
    # Methods without a body keep ignoring one (GET carries none).
    assert api.get("/api/auth/session").status_code == 200
    assert _post(api, "/api/auth/token", obj(('"x"', LONE)), "delete").status_code == 204
    anon = APIClient()
    assert _post(anon, "/api/auth/session", obj(('"x"', LONE)), "delete").status_code == 204


def test_a_lone_surrogate_spends_no_ones_sign_in_budget(
    alice: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The name throttle keys on the name; a surrogate is no name, so it neither crashes the
    key nor counts against an account (the address budget still counts it)."""
    rates = {**SimpleRateThrottle.THROTTLE_RATES, "auth_username": "2/min"}
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", rates)
    for _ in range(3):
        body = obj(('"username"', LONE), ('"password"', '"x"'))
        assert_error(_post(APIClient(), "/api/auth/token", body), 400, "invalid")
    ok = APIClient().post(
        "/api/auth/token", {"username": "alice", "password": PASSWORD}, format="json"
    )
    assert ok.status_code == 200, ok.content
