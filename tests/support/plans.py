"""A plan of moves played through the service (games.play.services.game_move), for tests that
play one plan two ways and compare what each way answered."""

from __future__ import annotations

from typing import Any

from accounts.models import User
from games.errors import GameError
from games.play import services

# (action, x, y, flagged, client_move_id)
Step = tuple[str, int, int, Any, str | None]


def answers_to(player: User, game_id: Any, plan: list[Step]) -> list[Any]:
    """Each step of `plan` played in turn on `game_id` by `player`: for each, the answer's seq,
    changes, replay flag, game state and mines left, or the refusal's code."""
    answers: list[Any] = []
    for action, x, y, flagged, client_move_id in plan:
        try:
            r = services.game_move(
                game_id=game_id, player=player, action=action, x=x, y=y, flagged=flagged,
                client_move_id=client_move_id,
            )  # fmt: skip
        except GameError as exc:
            answers.append(exc.code)
            continue
        answers.append((r.seq, r.changes, r.replayed, r.game.state, r.game.mines_left))
    return answers
