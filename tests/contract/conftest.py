"""Fixtures of the contract socket tests (the same as tests/realtime's)."""

from __future__ import annotations

from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.db import connections

from accounts.models import User
from accounts.services import token_issue


@pytest.fixture
async def close_thread_connections() -> Any:
    """database_sync_to_async keeps a connection open in its worker thread; close it so the
    transactional flush is not blocked by it."""
    yield
    await database_sync_to_async(connections.close_all)()


@pytest.fixture
def alice_token(alice: User) -> str:
    return token_issue(user=alice)[1]
