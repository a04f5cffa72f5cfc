"""The named personas and their credentials, as fixtures every test package may request.

alice plays; bob is another player who must not touch alice's games; anonymous visitors may
read but never act. tests/conftest.py makes these fixtures visible to the whole suite."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.db import connections
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import User
from accounts.services import token_issue

PASSWORD = "correct horse battery"


def _persona(name: str) -> Any:
    """A fixture: the player `name`, signed up with PASSWORD."""

    @pytest.fixture(name=name)
    def player(db: Any) -> User:
        return User.objects.create_user(username=name, password=PASSWORD)

    return player


def _api_of(name: str) -> Any:
    """A fixture `<name>_api`: an API client with a fresh token of the player `name`."""

    @pytest.fixture(name=f"{name}_api")
    def api(request: pytest.FixtureRequest) -> APIClient:
        return client_for(request.getfixturevalue(name))

    return api


# alice plays; bob (and, in races, carol) plays too and must not touch alice's things; dave
# watches.
alice, bob, carol, dave = (_persona(n) for n in ("alice", "bob", "carol", "dave"))
alice_api, bob_api, carol_api, dave_api = (_api_of(n) for n in ("alice", "bob", "carol", "dave"))


def client_for(user: User | None) -> APIClient:
    """An API client carrying a fresh token of `user` (none for an anonymous visitor)."""
    client = APIClient()
    if user is not None:
        _, key = token_issue(user=user)
        client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


@pytest.fixture
def anon_api(db: Any) -> APIClient:
    return APIClient()


@pytest.fixture
def alice_token(alice: User) -> str:
    return token_issue(user=alice)[1]


@pytest.fixture
def bob_token(bob: User) -> str:
    return token_issue(user=bob)[1]


@pytest.fixture
def session_cookie() -> Callable[[User], Awaitable[str]]:
    """The `Cookie` header of a browser signed in as `user` (awaited: socket tests are async)."""

    def login(user: User) -> str:
        client = Client()
        client.force_login(user)
        return f"sessionid={client.cookies['sessionid'].value}"

    async def make(user: User) -> str:
        return str(await database_sync_to_async(login)(user))

    return make


@pytest.fixture
async def close_thread_connections() -> Any:
    """database_sync_to_async keeps a connection open in its worker thread; close it so the
    transactional flush and the test database's removal are not blocked by it. Socket test
    modules request it for every test (`pytestmark = SOCKET_TESTS`)."""
    yield
    await database_sync_to_async(connections.close_all)()


SOCKET_TESTS = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("close_thread_connections"),
]


def sign_up_on(server: Any, name: str) -> str:
    """Sign `name` up with PASSWORD on a real server process (tests/support/services.py's
    AppServer) through the public API, and return a token of theirs."""
    status, _, body, _ = server.request(
        "POST", "/api/auth/register", {"username": name, "password": PASSWORD}
    )
    assert status == 201, body
    status, _, body, _ = server.request(
        "POST", "/api/auth/token", {"username": name, "password": PASSWORD}
    )
    assert status == 200, body
    return str(body["token"])
