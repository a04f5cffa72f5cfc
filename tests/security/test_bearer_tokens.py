"""`Authorization: Bearer <key>` is a token's header as much as `Token <key>` (RFC 6750; the
default of OAuth libraries and of clients generated from the schema): on REST, on a game's
socket and on the NDJSON streams, with the same refusals (an unknown key 401 with the error
body, a narrow token 403 `missing_scope` with its headers)."""

from __future__ import annotations

from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.test import RequestFactory
from rest_framework.test import APIClient

from accounts.models import User
from accounts.services import token_issue
from demineur_site.db_router import client_key
from games.play import services
from tests.support.personas import SOCKET_TESTS
from tests.support.sockets import connected, game_path, socket
from tests.support.streams import StreamCall


def _bearer(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    return client


@pytest.mark.django_db
def test_a_bearer_token_signs_a_rest_request_in(alice: User, alice_token: str) -> None:
    answer = _bearer(alice_token).get("/api/me")
    assert answer.status_code == 200
    assert answer.json()["username"] == "alice"
    created = _bearer(alice_token).post("/api/games", {"level": "beginner"}, format="json")
    assert created.status_code == 201 and created.json()["player"] == "alice"


@pytest.mark.django_db
@pytest.mark.parametrize("keyword", ["Bearer", "bearer", "BEARER"])
def test_an_unknown_bearer_token_is_401_with_the_error_body(keyword: str) -> None:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"{keyword} not-a-real-key")
    answer = client.get("/api/me")
    assert answer.status_code == 401
    assert answer.json()["error"]["code"] == "authentication_failed"
    assert set(answer.json()["error"]) == {"code", "message", "details"}


@pytest.mark.django_db
@pytest.mark.parametrize("header", ["Bearer", "Bearer two words"])
def test_a_malformed_bearer_header_is_401(header: str) -> None:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=header)
    answer = client.post("/api/games", {"level": "beginner"}, format="json")
    assert answer.status_code == 401
    assert answer.json()["error"]["code"] == "authentication_failed"


@pytest.mark.django_db
def test_a_narrow_bearer_token_is_refused_with_the_scope_headers(alice: User) -> None:
    _, key = token_issue(user=alice, scopes="account:read")
    answer = _bearer(key).post("/api/games", {"level": "beginner"}, format="json")
    assert answer.status_code == 403
    assert answer.json()["error"]["code"] == "missing_scope"
    assert answer["X-OAuth-Scopes"] == "account:read"
    assert answer["X-Accepted-OAuth-Scopes"] == "game:play"


def test_read_your_writes_pins_a_bearer_client_as_a_token_client() -> None:
    factory = RequestFactory()
    token = client_key(factory.get("/api/me", HTTP_AUTHORIZATION="Token k1"))
    bearer = client_key(factory.get("/api/me", HTTP_AUTHORIZATION="Bearer k1"))
    assert token is not None and token == bearer
    assert client_key(factory.get("/api/me", HTTP_AUTHORIZATION="Bearer k2")) != token


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_thread_connections")
class TestSocketsAndStreams:
    pytestmark = SOCKET_TESTS

    async def test_a_bearer_token_moves_on_the_game_socket(
        self, alice: User, alice_token: str
    ) -> None:
        game = await database_sync_to_async(services.game_create)(player=alice, level="beginner")
        player = socket(game_path(game), headers=[("authorization", f"Bearer {alice_token}")])
        try:
            assert (await connected(player))["type"] == "state"
            await player.send_json_to({"action": "reveal", "x": 4, "y": 4})
            move: dict[str, Any] = await player.receive_json_from(timeout=3)
            assert move["type"] == "move" and move["seq"] == 1
        finally:
            await player.disconnect()

    async def test_an_unknown_bearer_token_is_refused_on_the_socket(self, alice: User) -> None:
        game = await database_sync_to_async(services.game_create)(player=alice, level="beginner")
        intruder = socket(game_path(game), headers=[("authorization", "Bearer not-a-real-key")])
        try:
            first = await connected(intruder)
            assert first["type"] == "error"
            assert first["error"]["code"] == "authentication_failed"
        finally:
            await intruder.disconnect()

    async def test_the_event_stream_takes_a_bearer_token(self, alice_token: str) -> None:
        stream = StreamCall(
            "/api/stream/event", headers=[("authorization", f"Bearer {alice_token}")]
        )
        try:
            assert await stream.open() == 200
            assert stream.headers[b"content-type"] == b"application/x-ndjson"
        finally:
            await stream.close()

    async def test_an_unknown_bearer_token_is_401_on_a_stream(self) -> None:
        stream = StreamCall("/api/stream/event", headers=[("authorization", "Bearer nobody")])
        try:
            assert await stream.open() == 401
            assert (await stream.error_body())["error"]["code"] == "authentication_failed"
        finally:
            await stream.close()
