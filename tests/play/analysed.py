"""Analysing a player's games as the worker may land them: the tests of what the analyses fold
(the skill streak, luck, insights) check that the result does not depend on their order."""

from __future__ import annotations

from games.play.analysis_jobs import analyse_game

# The orders of a parametrized test: the games' end order, and the newest first.
ORDERS = ["end order", "reversed"]


def analyse_in(order: str, ids: list[str]) -> None:
    """Analyse the games `ids` (given in end order) in `order`, one of ORDERS."""
    for game_id in ids if order == "end order" else reversed(ids):
        assert analyse_game(game_id)
