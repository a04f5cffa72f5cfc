"""The daily's share of a daily game's moves (games.play.services.DailyShare), registered by
games.apps so that the play room never imports the daily room: the day's board and the
player's daily statistics follow the game in the move's own transaction
(accounts.standings.daily)."""

from __future__ import annotations

from accounts.standings import daily as daily_standings
from accounts.standings.records import GameEnd
from games.play.models import Game


class DailyProgress:
    def ended(self, game: Game, end: GameEnd) -> None:
        assert game.daily is not None
        daily_standings.entry_end(
            end=end, user=game.player, day=game.daily, level=game.level, opened=game.opened
        )

    def unranked(self, game: Game) -> None:
        daily_standings.entry_unrank(game_id=game.id)

    def state_changed(self, game: Game, state: str) -> None:
        daily_standings.entry_state(game_id=game.id, state=state)


progress = DailyProgress()
