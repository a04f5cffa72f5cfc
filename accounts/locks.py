"""The player-row lock: one player's actions that must not interleave (two tabs creating a game,
two first calls of a daily, a race join while queueing, an arena join) run one after the other
by locking the player's `User` row for the rest of the transaction. Moves never take it, so no
lock order can cross with the game-row locks of a move.

The lock is FOR NO KEY UPDATE: the actions still queue on one another (and on FOR UPDATE, which
an account's own changes take), but a transaction that commits rows referencing the player is
not held up by it. PostgreSQL checks such a reference at the commit by a KEY SHARE lock on the
player's row, which FOR UPDATE blocks: an arena's pairing inserting racers waited for a join
that waited for the arena the pairing held, and a game creation (holding the player, ending the
previous game: its statistics row) deadlocked with the analysis of a game (holding that row,
committing rows that reference the player; tests/standings/test_player_lock_and_stats_rows.py)."""

from __future__ import annotations

from accounts.models import User


def lock_player(player: User) -> None:
    """Lock `player`'s row until the end of the current transaction (must be inside one)."""
    User.objects.select_for_update(no_key=True).filter(pk=player.pk).first()
