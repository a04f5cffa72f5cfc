"""accounts.authentication.user_for_token_key is one hand-written statement: it must give
what the ORM gives, field by field, on PostgreSQL and on SQLite."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from accounts.authentication import LAST_USED_RESOLUTION, user_for_token_key
from accounts.models import ApiToken, User
from accounts.services import token_issue

pytestmark = pytest.mark.django_db


def _fields(instance: Any) -> dict[str, Any]:
    return {f.attname: getattr(instance, f.attname) for f in instance._meta.concrete_fields}


def test_it_returns_the_rows_the_orm_returns(alice: User) -> None:
    token, key = token_issue(user=alice, name="solver")
    ApiToken.objects.filter(pk=token.pk).update(last_used_at=timezone.now())
    found = user_for_token_key(key)
    assert found is not None
    user, got = found
    stored = ApiToken.objects.select_related("user").get(pk=token.pk)
    assert _fields(user) == _fields(stored.user)
    assert _fields(got) == _fields(stored)
    assert got.user is user and not got._state.adding


def test_it_refreshes_last_used_at_at_most_once_an_hour(alice: User) -> None:
    token, key = token_issue(user=alice)
    assert ApiToken.objects.get(pk=token.pk).last_used_at is None
    user_for_token_key(key)
    first = ApiToken.objects.get(pk=token.pk).last_used_at
    assert first is not None
    user_for_token_key(key)
    assert ApiToken.objects.get(pk=token.pk).last_used_at == first
    old = timezone.now() - LAST_USED_RESOLUTION - timedelta(minutes=1)
    ApiToken.objects.filter(pk=token.pk).update(last_used_at=old)
    user_for_token_key(key)
    assert ApiToken.objects.get(pk=token.pk).last_used_at > old


@pytest.mark.parametrize("key", ["", "nope", "x" * 129])
def test_an_unknown_or_malformed_key_finds_nobody(alice: User, key: str) -> None:
    token_issue(user=alice)
    assert user_for_token_key(key) is None


def test_a_deactivated_account_is_nobody(alice: User) -> None:
    _, key = token_issue(user=alice)
    User.objects.filter(pk=alice.pk).update(is_active=False)
    assert user_for_token_key(key) is None


def test_a_socket_token_credential_stands_while_the_orm_would_say_so(
    alice: User, bob: User
) -> None:
    """accounts.socket_credentials.credential_is_valid (a hand-written statement) against the
    ORM question it replaces, through revocation, another user's token and deactivation."""
    from accounts.services import token_revoke
    from accounts.socket_credentials import SocketCredential, credential_is_valid

    token, _ = token_issue(user=alice)
    other, _ = token_issue(user=bob)

    def orm(token_id: int, user_id: int) -> bool:
        return ApiToken.objects.filter(pk=token_id, user_id=user_id, user__is_active=True).exists()

    cases = [(token.pk, alice.pk), (other.pk, alice.pk), (token.pk, bob.pk), (other.pk, bob.pk)]
    for token_id, user_id in cases:
        credential = SocketCredential(method="token", user_id=user_id, token_id=token_id)
        assert credential_is_valid(credential) == orm(token_id, user_id)
    assert credential_is_valid(
        SocketCredential(method="token", user_id=alice.pk, token_id=token.pk)
    )
    User.objects.filter(pk=bob.pk).update(is_active=False)
    assert not credential_is_valid(
        SocketCredential(method="token", user_id=bob.pk, token_id=other.pk)
    )
    token_revoke(token=token)
    assert not credential_is_valid(
        SocketCredential(method="token", user_id=alice.pk, token_id=token.pk)
    )
