"""A solver that never finds a move (the bot command loads it by import path in a test of
tests/client/test_bot_config.py): its game stays in play until the bot is told to stop."""

from __future__ import annotations

from collections.abc import Sequence

from demineur_client import Decision


class Idle:
    def decide(self, board: Sequence[str], mines: int) -> Decision:
        return Decision()
