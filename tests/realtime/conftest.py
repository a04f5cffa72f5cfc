"""Fixtures of the socket tests: personas' tokens and session cookies, new games.

Socket tests run on whatever channel layer the settings pick: Redis (PubSub) when REDIS_URL
is set, as in CI, the in-memory layer otherwise. They need real commits (events leave only
after a commit), hence `transaction=True`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.db import connections
from django.test import Client

from accounts.models import User
from accounts.services import token_issue
from games import services
from games.models import Game


@pytest.fixture(autouse=True)
async def _close_thread_connections() -> Any:
    """database_sync_to_async keeps a connection open in its worker thread; close it so the
    transactional flush and the test database's removal are not blocked by it."""
    yield
    await database_sync_to_async(connections.close_all)()


@pytest.fixture
def alice_token(alice: User) -> str:
    return token_issue(user=alice)[1]


@pytest.fixture
def bob_token(bob: User) -> str:
    return token_issue(user=bob)[1]


@pytest.fixture
def session_cookie() -> Callable[[User], Any]:
    """The `Cookie` header of a browser signed in as `user`."""

    def login(user: User) -> str:
        client = Client()
        client.force_login(user)
        return f"sessionid={client.cookies['sessionid'].value}"

    async def make(user: User) -> str:
        return await database_sync_to_async(login)(user)

    return make


@pytest.fixture
def new_game() -> Callable[..., Any]:
    async def make(player: User, level: str = "beginner") -> Game:
        return await database_sync_to_async(services.game_create)(player=player, level=level)

    return make
