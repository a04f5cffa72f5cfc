"""The player-row lock: one player's actions that must not interleave (two tabs creating a game,
two first calls of a daily, a race join while queueing, an arena join) run one after the other
by locking the player's `User` row for the rest of the transaction. Moves never take it, so no
lock order can cross with the game-row locks of a move.

`no_key=True` takes FOR NO KEY UPDATE: the actions still queue on one another, but a
transaction inserting rows that reference the user (racers of an arena's pairing, which holds
the arena) is not blocked by it, so a join or leave waiting for the arena never blocks the
pairing that holds it."""

from __future__ import annotations

from accounts.models import User


def lock_player(player: User, *, no_key: bool = False) -> None:
    """Lock `player`'s row until the end of the current transaction (must be inside one)."""
    User.objects.select_for_update(no_key=no_key).filter(pk=player.pk).first()
