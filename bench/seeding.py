"""Players for the benchmarks, made through the real services (Django must be set up)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from bench.harness.clients import Account
from bench.harness.report import Progress

if TYPE_CHECKING:
    from accounts.models import User
    from games.engine import Board
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


@dataclass(frozen=True)
class Player:
    """A player with a started game and a closed cell of it to flag (and unflag) for ever."""

    username: str
    token: str
    game_id: str
    x: int
    y: int


def players_with_started_games(count: int, *, prefix: str = "bench") -> list[Player]:
    """`count` players, each with an Expert game started in the middle, and the first closed
    cell of it in reading order; the live events of the seeding published before returning."""
    from demineur_site import publish
    from games.play.presenters import game_dict

    players: list[Player] = []
    progress = Progress(count, "players seeded with a started expert game", every=50)
    for i in range(count):
        user, key, result = player_with_a_started_game(f"{prefix}{i}", "expert", 15, 8)
        rows = game_dict(result.game, player_name=user.username)["board"]
        x, y = next((x, y) for y, row in enumerate(rows) for x, c in enumerate(row) if c == "#")
        players.append(Player(user.username, key, str(result.game.id), x, y))
        progress.step()
    publish.flush()
    return players


def bot_accounts(count: int, prefix: str, *, every: int = 0) -> list[Account]:
    """`count` accounts of kind bot (no password: they play at machine speed, which fair play
    would otherwise hold for review) with an API token each; a progress line every `every`
    (0: none)."""
    from accounts.models import AccountKind, User
    from accounts.services import token_issue

    accounts = []
    progress = Progress(count, "bot accounts made", every=every) if every else None
    for i in range(count):
        user = User(username=f"{prefix}{i}", kind=AccountKind.BOT)
        user.set_unusable_password()
        user.save()
        _, key = token_issue(user=user)
        accounts.append(Account(user.username, key))
        if progress is not None:
            progress.step()
    return accounts


def layout_cells(board: Board, kind: str) -> list[tuple[int, int]]:
    """The cells of a laid-out board that are mines (`kind` "mine"), or closed safe cells with a
    mine next to them ("number": revealing one opens that cell alone)."""
    rows = board.to_ascii()
    h, w = len(rows), len(rows[0])
    out = []
    for y, row in enumerate(rows):
        for x, c in enumerate(row):
            if kind == "mine" and c == "*":
                out.append((x, y))
            elif kind == "number" and c == ".":
                near = sum(
                    rows[yy][xx] == "*"
                    for yy in range(max(0, y - 1), min(h, y + 2))
                    for xx in range(max(0, x - 1), min(w, x + 2))
                )
                if near:
                    out.append((x, y))
    return out
