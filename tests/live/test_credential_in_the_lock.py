"""A socket move re-checks its token in the statement that locks the game: the
condition of accounts.socket_credentials.still_signed_in_condition, run by
games.play.move_store.lock_only_if, must answer exactly what credential_is_valid answers, and
nothing is cached between two moves (a revocation is seen by the very next lock)."""

from __future__ import annotations

import pytest
from django.db import transaction

from accounts.models import User
from accounts.services import token_issue, token_revoke
from accounts.socket_credentials import (
    SocketCredential,
    credential_is_valid,
    still_signed_in_condition,
)
from games.play import move_store, services

pytestmark = pytest.mark.django_db


def _locks(game_id: object, credential: SocketCredential) -> bool:
    with transaction.atomic(), move_store.lock_only_if(still_signed_in_condition(credential)):
        return move_store.lock_game(game_id) is not None


def test_the_lock_finds_the_game_exactly_while_the_token_stands(alice: User, bob: User) -> None:
    game = services.game_create(player=alice, level="beginner")
    token, _ = token_issue(user=alice)
    other, _ = token_issue(user=bob)
    cases = [(token.pk, alice.pk), (other.pk, alice.pk), (token.pk, bob.pk), (other.pk, bob.pk)]
    for token_id, user_id in cases:
        credential = SocketCredential(method="token", user_id=user_id, token_id=token_id)
        assert _locks(game.id, credential) == credential_is_valid(credential), (token_id, user_id)
    mine = SocketCredential(method="token", user_id=alice.pk, token_id=token.pk)
    assert _locks(game.id, mine)
    token_revoke(token=token)
    assert not _locks(game.id, mine)  # the next lock after the revocation: nothing cached
    # Without a condition (REST, or outside the block) the lock is the plain one.
    with transaction.atomic():
        assert move_store.lock_game(game.id) is not None


def test_a_deactivated_account_locks_nothing(alice: User) -> None:
    game = services.game_create(player=alice, level="beginner")
    token, _ = token_issue(user=alice)
    credential = SocketCredential(method="token", user_id=alice.pk, token_id=token.pk)
    assert _locks(game.id, credential)
    User.objects.filter(pk=alice.pk).update(is_active=False)
    assert not _locks(game.id, credential)


def test_a_session_or_no_credential_has_no_lock_condition(alice: User) -> None:
    assert still_signed_in_condition(None) is None
    session = SocketCredential(method="session", user_id=alice.pk, session_key="k" * 32)
    assert still_signed_in_condition(session) is None
