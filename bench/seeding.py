"""Players for the benchmarks, made through the real services (Django must be set up)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from accounts.models import User
    from games.play.services import MoveResult


def player_with_a_started_game(
    username: str, level: str, x: int, y: int
) -> tuple[User, str, MoveResult]:
    """A new player (no password) with an API token, and a game of `level` started by a reveal
    at (x, y): the player, the token's key and the reveal's result."""
    from accounts.models import User
    from accounts.services import token_issue
    from games.play import services

    user = User(username=username)
    user.set_unusable_password()
    user.save()
    _, key = token_issue(user=user)
    game = services.game_create(player=user, level=level)
    result = services.game_move(game_id=game.id, player=user, action="reveal", x=x, y=y)
    return user, key, result
