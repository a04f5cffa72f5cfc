"""Players for the benchmarks, made through the real services (Django must be set up)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from accounts.models import User
    from games.play.models import Game
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


def kept_player_with_a_game(
    username: str, level: str, first_reveal: tuple[int, int] | None = None
) -> tuple[User, Game]:
    """The in-process benches' player (made on their first run; the database is not flushed
    between runs, so later runs find it) and a new game of `level`, started by a reveal at
    `first_reveal` when one is given (the Game as created: not refreshed after the reveal)."""
    from accounts.models import User
    from games.play import services

    user = User.objects.filter(username=username).first()
    if user is None:
        user = User.objects.create_user(username=username, password="x" * 20)
    game = services.game_create(player=user, level=level)
    if first_reveal is not None:
        x, y = first_reveal
        services.game_move(game_id=game.id, player=user, action="reveal", x=x, y=y)
    return user, game


def middle_closed_cell(game: Game) -> tuple[int, int]:
    """The middle one, in reading order, of the cells of `game` still closed (as the database
    has it now): a cell the in-process benches can flag again and again."""
    from games.engine import Board

    game.refresh_from_db()
    board = Board.decode(bytes(game.board))
    closed = [
        (x, y)
        for y, row in enumerate(board.render(layout=False))
        for x, ch in enumerate(row)
        if ch == "#"
    ]
    return closed[len(closed) // 2]
