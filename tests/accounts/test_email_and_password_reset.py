"""An optional, verified address; a password reset by email (API.md,
The account's lifecycle; docs/ACCOUNTS.md). Mail goes to a real SMTP server the test starts
(tests/support/smtp.py), sent by the outbox's sender thread after the commit, so these tests
commit (transactional database)."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

from accounts import mail
from accounts.models import OutgoingMail, User
from tests.support.personas import PASSWORD
from tests.support.smtp import Inbox, body_of, link_token, smtp_server

pytestmark = pytest.mark.django_db(transaction=True)
NEW_PASSWORD = "a brand new passphrase"


@pytest.fixture
def smtp(settings: Any) -> Any:
    with smtp_server(settings) as inbox:
        yield inbox


@pytest.fixture(autouse=True)
def _fresh_throttles() -> Any:
    cache.clear()
    yield
    cache.clear()


def sent(answer: Any) -> Any:
    """The answer, once this process's mail sender is idle again: the next request never
    meets its writes (SQLite's in-memory test database locks whole tables)."""
    assert mail.flush()
    return answer


def register(name: str, email: str = "") -> APIClient:
    api = APIClient()
    body = {"username": name, "password": PASSWORD, **({"email": email} if email else {})}
    assert sent(api.post("/api/auth/register", body, format="json")).status_code == 201
    key = api.post("/api/auth/token", {"username": name, "password": PASSWORD}, format="json")
    api.credentials(HTTP_AUTHORIZATION=f"Token {key.json()['token']}")
    return api


def verify(token: str) -> Any:
    return sent(APIClient().post("/api/auth/email/verify", {"token": token}, format="json"))


def test_an_address_given_at_sign_up_is_verified_by_the_mailed_link(smtp: Inbox) -> None:
    api = register("alice", "alice@example.org")
    (message,) = smtp.wait_for(1)
    assert message["To"] == "alice@example.org"
    path, token = link_token(message)
    assert path == "/account/verify-email"
    me = api.get("/api/me").json()
    assert (me["email"], me["email_verified"]) == ("alice@example.org", False)

    answer = verify(token)
    assert answer.status_code == 200, answer.content
    assert (answer.json()["email"], answer.json()["email_verified"]) == ("alice@example.org", True)
    assert api.get("/api/me").json()["email_verified"] is True
    # never shown to others
    public = APIClient().get("/api/users/alice").json()
    assert "email" not in public and "alice@example.org" not in str(public)
    assert not OutgoingMail.objects.exists()  # a sent message leaves no copy of its link


def test_a_later_address_replaces_the_first_and_an_old_link_no_longer_verifies(
    smtp: Inbox,
) -> None:
    api = register("alice", "first@example.org")
    _, first = link_token(smtp.wait_for(1)[0])
    changed = api.post("/api/me/email", {"email": "second@example.org"}, format="json")
    assert sent(changed).status_code == 202
    _, second = link_token(smtp.wait_for(2)[1])
    assert smtp.messages[1]["To"] == "second@example.org"
    assert verify(first).json()["error"]["code"] == "token_invalid"
    assert verify(second).json()["email"] == "second@example.org"


def test_an_expired_or_forged_link_is_refused(smtp: Inbox, settings: Any) -> None:
    register("alice", "alice@example.org")
    _, token = link_token(smtp.wait_for(1)[0])
    for bad in (token[:-2] + "xx", "nonsense"):
        answer = verify(bad)
        assert (answer.status_code, answer.json()["error"]["code"]) == (400, "token_invalid")
    settings.EMAIL_VERIFY_HOURS = 0  # every token is older than 0 s by now
    assert verify(token).json()["error"]["code"] == "token_invalid"
    assert User.objects.get(username="alice").email_verified is False


def test_an_address_is_verified_on_one_account_at_most(smtp: Inbox) -> None:
    register("alice", "shared@example.org")
    register("bob", "Shared@Example.org")
    messages = smtp.wait_for(2)
    tokens = {body_of(m).split(",")[0].removeprefix("Hello "): link_token(m)[1] for m in messages}
    assert verify(tokens["alice"]).status_code == 200
    answer = verify(tokens["bob"])
    assert (answer.status_code, answer.json()["error"]["code"]) == (409, "email_taken")
    assert User.objects.get(username="bob").email_verified is False


def test_the_request_does_not_wait_for_a_slow_smtp_server(smtp: Inbox) -> None:
    """The SMTP server holds every message until the gate opens: the sign-up and the reset
    request are answered meanwhile, and the mail arrives once the server answers."""
    smtp.gate.clear()
    body = {"username": "alice", "password": PASSWORD, "email": "alice@example.org"}
    answer = APIClient().post("/api/auth/register", body, format="json")
    assert answer.status_code == 201  # answered while the server holds the mail
    assert smtp.messages == [] and not mail.flush(timeout=0.5)  # still talking to it
    smtp.gate.set()
    assert smtp.wait_for(1)[0]["To"] == "alice@example.org"
    assert mail.flush()


def _verified(name: str, email: str, smtp: Inbox) -> APIClient:
    count = len(smtp.messages) + 1
    api = register(name, email)
    assert verify(link_token(smtp.wait_for(count)[-1])[1]).status_code == 200
    return api


def reset_request(email: str, address: str = "127.0.0.1") -> Any:
    return sent(
        APIClient(REMOTE_ADDR=address).post(
            "/api/auth/password-reset", {"email": email}, format="json"
        )
    )


def confirm(token: str, password: str = NEW_PASSWORD) -> Any:
    return APIClient().post(
        "/api/auth/password-reset/confirm",
        {"token": token, "new_password": password},
        format="json",
    )


def signs_in(name: str, password: str) -> bool:
    answer = APIClient().post(
        "/api/auth/token", {"username": name, "password": password}, format="json"
    )
    return answer.status_code == 200


def test_a_reset_link_sets_a_new_password_once(smtp: Inbox) -> None:
    _verified("alice", "alice@example.org", smtp)
    known = reset_request("ALICE@example.org")
    unknown = reset_request("nobody@example.org")
    assert (known.status_code, unknown.status_code) == (202, 202)
    assert known.content == unknown.content  # the same answer either way
    message = smtp.wait_for(2)[1]
    assert message["To"] == "alice@example.org" and "works once" in body_of(message)
    path, token = link_token(message)
    assert path == "/account/reset-password"

    assert confirm(token).status_code == 204
    assert signs_in("alice", NEW_PASSWORD) and not signs_in("alice", PASSWORD)
    again = confirm(token, "yet another passphrase")
    assert (again.status_code, again.json()["error"]["code"]) == (400, "token_invalid")
    assert signs_in("alice", NEW_PASSWORD)
    assert smtp.to("nobody@example.org") == []


def test_an_unverified_address_gets_no_reset_link(smtp: Inbox) -> None:
    register("alice", "alice@example.org")
    smtp.wait_for(1)  # the verification message, never followed
    assert reset_request("alice@example.org").status_code == 202
    register("bob", "bob@example.org")  # a later message: by then a reset mail would be in
    smtp.wait_for(2)
    assert [m["To"] for m in smtp.messages] == ["alice@example.org", "bob@example.org"]


def test_a_reset_link_expires(smtp: Inbox, settings: Any) -> None:
    _verified("alice", "alice@example.org", smtp)
    reset_request("alice@example.org")
    _, token = link_token(smtp.wait_for(2)[1])
    settings.PASSWORD_RESET_TIMEOUT = -1  # every link is past its time
    assert confirm(token).json()["error"]["code"] == "token_invalid"
    assert signs_in("alice", PASSWORD)


def test_a_weak_new_password_is_refused_and_the_link_still_works(smtp: Inbox) -> None:
    _verified("alice", "alice@example.org", smtp)
    reset_request("alice@example.org")
    _, token = link_token(smtp.wait_for(2)[1])
    weak = confirm(token, "123")
    assert (weak.status_code, weak.json()["error"]["code"]) == (400, "invalid")
    assert "new_password" in weak.json()["error"]["details"]["fields"]
    assert confirm(token).status_code == 204


def test_reset_requests_are_throttled_per_address_and_per_client(smtp: Inbox) -> None:
    from rest_framework.settings import api_settings
    from rest_framework.throttling import SimpleRateThrottle

    rates = {
        **api_settings.DEFAULT_THROTTLE_RATES,
        "reset_email": "2/hour",
        "reset_address": "4/hour",
    }
    SimpleRateThrottle.THROTTLE_RATES = rates
    try:
        # per submitted address, whatever the client: 2 an hour
        statuses = [reset_request("victim@example.org").status_code for _ in range(3)]
        assert statuses == [202, 202, 429]
        refused = reset_request("victim@example.org", address="192.0.2.7")
        assert refused.json()["error"]["code"] == "throttled" and refused.has_header("Retry-After")
        # per client: 4 an hour, whatever the address (its 3 requests above counted)
        assert reset_request("other@example.org").status_code == 202
        assert reset_request("third@example.org").status_code == 429
        assert reset_request("third@example.org", address="192.0.2.8").status_code == 202
    finally:
        SimpleRateThrottle.THROTTLE_RATES = api_settings.DEFAULT_THROTTLE_RATES
