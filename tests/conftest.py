"""Shared fixtures: named personas and API clients.

alice plays; bob is another player who must not touch alice's games; anonymous visitors may
read but never act."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from accounts.models import User
from accounts.services import token_issue


@pytest.fixture
def alice(db: Any) -> User:
    return User.objects.create_user(username="alice", password="correct horse battery")


@pytest.fixture
def bob(db: Any) -> User:
    return User.objects.create_user(username="bob", password="correct horse battery")


def client_for(user: User | None) -> APIClient:
    client = APIClient()
    if user is not None:
        _, key = token_issue(user=user)
        client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


@pytest.fixture
def alice_api(alice: User) -> APIClient:
    return client_for(alice)


@pytest.fixture
def bob_api(bob: User) -> APIClient:
    return client_for(bob)


@pytest.fixture
def anon_api(db: Any) -> APIClient:
    return APIClient()
