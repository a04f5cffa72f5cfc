"""The sign-up and sign-in throttles hold.

* A client that sends a different X-Forwarded-For on each request still gets 429: the address
  is the connection's unless TRUSTED_PROXIES says how many proxies to believe.
* Sign-in is limited per submitted username, whatever the address.
* With REDIS_URL, separate server processes share one count (the Redis cache)."""

from __future__ import annotations

import os
import uuid
from pathlib import Path
from typing import Any

import pytest
from rest_framework.test import APIClient, APIRequestFactory
from rest_framework.throttling import AnonRateThrottle

from accounts.models import User
from tests.support.http import assert_error
from tests.support.personas import PASSWORD

from .http_servers import Server, migrated_sqlite, post_json


def _sign_in(client: APIClient, path: str, username: str, password: str, **extra: str) -> Any:
    return client.post(path, {"username": username, "password": password}, format="json", **extra)


@pytest.mark.parametrize("path", ["/api/auth/token", "/api/auth/session"])
def test_rotating_x_forwarded_for_does_not_reset_the_address_limit(
    alice: User, rates: Any, path: str
) -> None:
    rates(auth="3/min")
    client = APIClient()
    codes = [
        _sign_in(client, path, "alice", "wrong", HTTP_X_FORWARDED_FOR=f"203.0.113.{i}").status_code
        for i in range(3)
    ]
    assert codes == [401, 401, 401]
    response = _sign_in(client, path, "alice", PASSWORD, HTTP_X_FORWARDED_FOR="198.51.100.7")
    assert_error(response, 429, "throttled")
    assert int(response["Retry-After"]) >= 1


def test_sign_up_is_limited_per_address_whatever_x_forwarded_for(db: Any, rates: Any) -> None:
    rates(auth="2/min")
    client = APIClient()
    for i in range(2):
        created = client.post(
            "/api/auth/register",
            {"username": f"newcomer{i}", "password": PASSWORD},
            format="json",
            HTTP_X_FORWARDED_FOR=f"203.0.113.{i}",
        )
        assert created.status_code == 201, created.content
    refused = client.post(
        "/api/auth/register",
        {"username": "newcomer9", "password": PASSWORD},
        format="json",
        HTTP_X_FORWARDED_FOR="192.0.2.200",
    )
    assert_error(refused, 429, "throttled")
    assert not User.objects.filter(username="newcomer9").exists()


def test_every_throttle_ignores_x_forwarded_for_unless_proxies_are_trusted(settings: Any) -> None:
    request = APIRequestFactory().get(
        "/api/games", HTTP_X_FORWARDED_FOR="203.0.113.9, 198.51.100.1", REMOTE_ADDR="192.0.2.1"
    )
    assert AnonRateThrottle().get_ident(request) == "192.0.2.1"
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    assert AnonRateThrottle().get_ident(request) == "198.51.100.1"  # appended by our proxy


def test_sign_in_is_limited_per_username_across_addresses(
    alice: User, bob: User, rates: Any
) -> None:
    rates(auth="1000/min", auth_username="3/min")
    client = APIClient()
    paths = ["/api/auth/token", "/api/auth/session", "/api/auth/token"]
    for i, path in enumerate(paths):
        answer = _sign_in(client, path, "alice", "wrong", REMOTE_ADDR=f"192.0.2.{i + 1}")
        assert_error(answer, 401, "invalid_credentials")
    # A fourth guess from yet another address, even with the right password (or another
    # spelling of the name), is refused.
    for username in ("alice", "ALICE", " alice "):
        answer = _sign_in(client, "/api/auth/token", username, PASSWORD, REMOTE_ADDR="192.0.2.99")
        assert_error(answer, 429, "throttled")
    # Another account is not affected.
    ok = _sign_in(client, "/api/auth/token", "bob", PASSWORD, REMOTE_ADDR="192.0.2.1")
    assert ok.status_code == 200, ok.content


# --- Two server processes, one Redis -------------------------------------------------------


@pytest.mark.skipif(
    not os.environ.get("REDIS_URL"),
    reason="needs REDIS_URL: the shared count lives in Redis (without it each process counts alone)",
)
@pytest.mark.parametrize("kind", ["uvicorn", "gunicorn"])
def test_two_server_processes_share_one_count(tmp_path: Path, kind: str) -> None:
    template = migrated_sqlite()
    shared = {
        "REDIS_URL": os.environ["REDIS_URL"],
        "CACHE_PREFIX": f"throttle-test-{uuid.uuid4().hex}",  # a fresh count for this test
        "THROTTLE_AUTH": "4/min",
        # Each server would let X-Forwarded-For pick the address if it believed it.
        "TRUSTED_PROXIES": "0",
    }
    with (
        Server(kind, tmp_path / "one", template, **shared) as one,
        Server(kind, tmp_path / "two", template, **shared) as two,
    ):
        codes = [
            post_json(f"{server.url}/api/auth/token", {"username": "nobody", "password": "x"})
            for server in (one, two, one, two, one, two)
        ]
    assert codes[:4] == [401, 401, 401, 401]
    assert codes[4:] == [429, 429]
