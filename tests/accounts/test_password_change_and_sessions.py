"""Changing the password signs every other session out and closes their sockets (tokens stay); the
account's sessions are listed and each one revocable, which closes its sockets too (API.md, The
account's lifecycle; docs/ACCOUNTS.md, Sessions)."""

from __future__ import annotations

from typing import Any

from channels.db import database_sync_to_async
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import SignedInSession
from accounts.services import token_issue
from tests.support.personas import PASSWORD, SOCKET_TESTS
from tests.support.sockets import SITE_ORIGIN, game_path, until_closed
from tests.support.sockets import socket as ws

pytestmark = SOCKET_TESTS
NEW_PASSWORD = "a brand new passphrase"


def browser(name: str, agent: str, address: str = "203.0.113.45") -> Client:
    """A browser signed in through the sign-in endpoint, as the page does."""
    client = Client(HTTP_USER_AGENT=agent, REMOTE_ADDR=address)
    answer = client.post(
        "/api/auth/session", {"username": name, "password": PASSWORD}, "application/json"
    )
    assert answer.status_code == 200, answer.content
    return client


def signed_in(client: Client) -> bool:
    return client.get("/api/auth/session").status_code == 200


async def socket_of(client: Client, game: Any) -> Any:
    comm = ws(
        game_path(game), origin=SITE_ORIGIN, cookie=f"sessionid={client.cookies['sessionid'].value}"
    )
    ok, _ = await comm.connect(timeout=3)
    assert ok
    assert (await comm.receive_json_from(timeout=3))["type"] == "state"
    return comm


async def assert_closed_by_server(comm: Any) -> None:
    frames, code = await until_closed(comm)  # no move sent: the kick alone closes it
    assert code == 4401
    assert frames[-1]["error"]["code"] == "authentication_failed"


def test_the_sessions_list_says_where_the_account_is_signed_in(alice: Any, bob: Any) -> None:
    laptop = browser("alice", "Firefox on a laptop")
    phone = browser("alice", "Safari on a phone", address="2001:db8:1234:5678::9")
    browser("bob", "Chrome")
    rows = laptop.get("/api/me/sessions").json()
    assert len(rows) == 2
    by_agent = {r["user_agent"]: r for r in rows}
    assert set(by_agent) == {"Firefox on a laptop", "Safari on a phone"}
    assert by_agent["Firefox on a laptop"]["current"] is True
    assert by_agent["Safari on a phone"]["current"] is False
    # approximate addresses only
    assert by_agent["Firefox on a laptop"]["address"] == "203.0.113.0/24"
    assert by_agent["Safari on a phone"]["address"] == "2001:db8:1234::/48"
    for row in rows:
        assert set(row) == {"id", "created_at", "last_seen_at", "user_agent", "address", "current"}
    assert [r["current"] for r in phone.get("/api/me/sessions").json()].count(True) == 1
    # a token client sees the sessions, none of them its own
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {token_issue(user=alice)[1]}")
    assert [r["current"] for r in api.get("/api/me/sessions").json()] == [False, False]
    assert APIClient().get("/api/me/sessions").status_code == 401


def test_signing_out_removes_the_session_from_the_list(alice: Any) -> None:
    laptop = browser("alice", "Firefox")
    phone = browser("alice", "Safari")
    assert phone.delete("/api/auth/session").status_code == 204
    assert [r["user_agent"] for r in laptop.get("/api/me/sessions").json()] == ["Firefox"]


async def test_revoking_a_session_signs_it_out_and_closes_its_sockets(
    alice: Any, bob: Any, new_game: Any
) -> None:
    game = await new_game(alice)
    laptop = await database_sync_to_async(browser)("alice", "Firefox")
    phone = await database_sync_to_async(browser)("alice", "Safari")
    thief = await database_sync_to_async(browser)("bob", "Chrome")
    phone_socket = await socket_of(phone, game)
    laptop_socket = await socket_of(laptop, game)

    def revoke() -> None:
        rows = {r["user_agent"]: r["id"] for r in laptop.get("/api/me/sessions").json()}
        # bob cannot revoke alice's session: it is "no such session" to him
        assert thief.delete(f"/api/me/sessions/{rows['Safari']}").status_code == 404
        assert laptop.delete(f"/api/me/sessions/{rows['Safari']}").status_code == 204
        assert laptop.delete(f"/api/me/sessions/{rows['Safari']}").status_code == 404

    await database_sync_to_async(revoke)()
    await assert_closed_by_server(phone_socket)
    assert not await database_sync_to_async(signed_in)(phone)
    assert await database_sync_to_async(signed_in)(laptop)
    await laptop_socket.send_json_to({"action": "reveal", "x": 4, "y": 4})
    assert (await laptop_socket.receive_json_from(timeout=3))["type"] == "move"
    await laptop_socket.disconnect()


async def test_a_password_change_signs_out_every_other_session_and_keeps_tokens(
    alice: Any, new_game: Any
) -> None:
    game = await new_game(alice)
    here = await database_sync_to_async(browser)("alice", "Firefox")
    elsewhere = await database_sync_to_async(browser)("alice", "Safari")
    _, key = await database_sync_to_async(token_issue)(user=alice)
    other_socket = await socket_of(elsewhere, game)

    def change() -> None:
        wrong = here.post(
            "/api/me/password",
            {"current_password": "not it", "new_password": NEW_PASSWORD},
            "application/json",
        )
        # 403: the caller is signed in, and stays so (tests/accounts/test_wrong_password_status.py)
        assert (wrong.status_code, wrong.json()["error"]["code"]) == (403, "wrong_password")
        assert signed_in(elsewhere)  # a refusal changes nothing
        answer = here.post(
            "/api/me/password",
            {"current_password": PASSWORD, "new_password": NEW_PASSWORD},
            "application/json",
        )
        assert answer.status_code == 204, answer.content

    await database_sync_to_async(change)()
    await assert_closed_by_server(other_socket)

    def after() -> None:
        assert signed_in(here) and not signed_in(elsewhere)
        assert [r["user_agent"] for r in here.get("/api/me/sessions").json()] == ["Firefox"]
        api = APIClient()
        api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
        assert api.get("/api/me").status_code == 200  # API tokens stay
        assert (
            Client()
            .post(
                "/api/auth/session",
                {"username": "alice", "password": NEW_PASSWORD},
                "application/json",
            )
            .status_code
            == 200
        )

    await database_sync_to_async(after)()


def test_a_weak_new_password_is_refused(alice: Any) -> None:
    here = browser("alice", "Firefox")
    answer = here.post(
        "/api/me/password",
        {"current_password": PASSWORD, "new_password": "alice"},
        "application/json",
    )
    assert (answer.status_code, answer.json()["error"]["code"]) == (400, "invalid")
    assert SignedInSession.objects.filter(user=alice).count() == 1
