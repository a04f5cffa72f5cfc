"""Account writes: registration and API tokens."""

from __future__ import annotations

from django.db import transaction

from demineur_site.errors import DomainError

from . import socket_credentials
from .models import AccountKind, ApiToken, User


@transaction.atomic
def user_register(
    *, username: str, password: str, email: str = "", kind: str = AccountKind.HUMAN
) -> User:
    return User.objects.create_user(username=username, password=password, email=email, kind=kind)


def account_set_kind(*, user: User, kind: str) -> User:
    """`human` <-> `bot`, only before the account's first game (RULES.md, Fair play): a game
    counts as played from its first tap, so an untapped game does not stop the change, and
    the kind at each game's end is the one that ranks it. The player's row lock orders this
    against a game creation; a first tap racing it is the same request order a player sees."""
    from games.models import Game, GameState  # accounts never imports games at module level

    with transaction.atomic():
        locked = User.objects.select_for_update().get(pk=user.pk)
        if locked.kind == AccountKind.GUEST:
            raise DomainError("guest_account", "A guest account becomes a player by signing up.")
        if locked.kind == kind:
            return locked
        if Game.objects.filter(player=locked).exclude(state=GameState.NEW).exists():
            raise DomainError(
                "account_has_games",
                "An account can change its kind only before its first game.",
            )
        locked.kind = kind
        locked.save(update_fields=["kind"])
    return locked


def token_issue(*, user: User, name: str = "api") -> tuple[ApiToken, str]:
    """A new token for the user; the key is returned once and only its hash is stored."""
    return ApiToken.issue(user=user, name=name)


def token_revoke(*, token: ApiToken) -> None:
    """Delete the token; after the commit, every socket it opened is closed (code 4401)."""
    token_id = token.pk
    with transaction.atomic():
        token.delete()
        socket_credentials.kick_token_sockets(token_id)


def session_sockets_close(*, session_key: str | None) -> None:
    """Signing out: close every socket the session opened (code 4401), after the commit."""
    socket_credentials.kick_session_sockets(session_key)
