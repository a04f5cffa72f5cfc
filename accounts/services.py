"""Account writes: registration and API tokens."""

from __future__ import annotations

from django.db import transaction

from .models import ApiToken, User


@transaction.atomic
def user_register(*, username: str, password: str, email: str = "") -> User:
    return User.objects.create_user(username=username, password=password, email=email)


def token_issue(*, user: User, name: str = "api") -> tuple[ApiToken, str]:
    """A new token for the user; the key is returned once and only its hash is stored."""
    return ApiToken.issue(user=user, name=name)


def token_revoke(*, token: ApiToken) -> None:
    token.delete()
