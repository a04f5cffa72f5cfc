"""What a racer's move changes in their race, inside the move's transaction (games.play.services
calls `after_race_move` for every stored action of a race game).

Lock order everywhere in races (docs/RACES.md, Locks): the player's row, then game rows (by
id), then the race row, then racer rows. A move already holds its game's lock; the race row is
locked here by the one UPDATE that takes the next `seq` (the last statement of the move before
its commit), so two racers' moves in one race are serialised only from there to the commit,
and their progress events are numbered without gaps. A move stored without the lock
(`UnlockedShare`) takes the seq in its own single statement, after the game's row, in the
same order.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from functools import cache

from django.db import connection, transaction

from games.engine import Board
from games.errors import GameError
from games.play.models import ENDED_STATES, Game, GameState
from games.play.move_store import Also
from games.races import events as race_events
from games.races.models import Race, Racer, RacerState
from games.races.services import race_end


@dataclass(frozen=True)
class _Taken:
    seq: int  # the race's seq after this move's events
    racing: int  # racers still racing after this move
    time_limit_ms: int


_TAKE = (
    "UPDATE {table} SET seq = seq + %s, racing = racing - %s,"
    " deadline = CASE WHEN racing - %s <= 0 THEN %s ELSE deadline END"
    " WHERE id = %s RETURNING seq, racing, time_limit_ms"
)


def _take(race_id: object, *, events: int, done: bool, now: datetime) -> _Taken:
    """One statement, the race's only write on a racer's move: the next `events` numbers of the
    race's seq, one racer fewer still racing when `done` (the race clock is asked to act now
    once none is left), and the race's time limit to check the move against. The UPDATE
    locks the race's row until the move's commit."""
    pk = Race._meta.pk
    assert pk is not None
    race_pk = pk.get_db_prep_value(race_id, connection)
    finished = 1 if done else 0
    with connection.cursor() as cur:
        cur.execute(
            _TAKE.format(table=Race._meta.db_table), [events, finished, finished, now, race_pk]
        )
        row = cur.fetchone()
    if row is None:
        raise Race.DoesNotExist(race_id)
    return _Taken(int(row[0]), int(row[1]), int(row[2]))


def after_race_move(
    game: Game,
    board: Board,
    *,
    now: datetime,
    at_ms: int,
    player_name: str,
    left: bool = False,
    by_player: bool = True,
) -> None:
    """Number the move's `progress` (and `finished`) events and publish them after the commit.
    A player's own move (`by_player`) past the race's time limit is refused; the server's
    ends (the time limit, leaving, the idle rule) are not.
    The counts are the game's own (Game.opened, mines_left); the racer row is written only
    when their game is over. When they were the last racer still racing, the race is ended
    right after this commit (games.races.services.race_end), or by the race clock's next tick."""
    race_id = game.race_id
    assert race_id is not None
    done = game.state in ENDED_STATES
    if left:
        state = RacerState.LEFT
    elif done:
        state = RacerState.WON if game.state == GameState.WON else RacerState.LOST
    else:
        state = RacerState.RACING
    if done:
        Racer.objects.filter(game_id=game.id).update(state=state, elapsed_ms=at_ms, active=False)
    taken = _take(race_id, events=2 if done else 1, done=done, now=now)
    if by_player and at_ms >= taken.time_limit_ms:
        # Past the race's time limit no move counts: refused, and the whole transaction with
        # it. The race clock ends the game within its tick (games.races.services).
        raise GameError("game_over", "The race's time is up.")
    counts = race_events.Counts(player_name, board.opened_count(), board.flags, state, at_ms)
    seq = taken.seq
    for number, finished in ((seq - 1, False), (seq, True)) if done else ((seq, False),):
        event = race_events.progress_event(seq=number, counts=counts, finished=finished)
        race_events.race_on_commit(race_id, event)
    if done and taken.racing <= 0:
        transaction.on_commit(lambda: race_end(race_id=race_id))


# The race's share of a move stored without the lock (games.play.services._move_without_lock):
# a move that neither ends the racer's game nor comes past the time limit takes the race's next
# seq in the move's own statement, once the game's row is written. A move past the limit finds
# no row here, so the whole move is undone and the locked path refuses it as above.
_TAKE_UNLOCKED = (
    "UPDATE {table} SET seq = seq + 1 WHERE id = %s AND time_limit_ms > %s"
    " AND EXISTS (SELECT 1 FROM saved) RETURNING seq"
)


@cache
def _take_unlocked_sql() -> str:
    """Written once, not on every move."""
    return _TAKE_UNLOCKED.format(table=Race._meta.db_table)


class UnlockedShare:
    """What games.play.services asks of the races room for a move stored without the lock."""

    def statement(self, game: Game, *, at_ms: int) -> Also:
        """The race's write inside the move's compare-and-set: its next seq."""
        pk = Race._meta.pk
        assert pk is not None
        race_pk = pk.get_db_prep_value(game.race_id, connection)
        return Also(_take_unlocked_sql(), (race_pk, at_ms))

    def stored(
        self, game: Game, board: Board, row: tuple[int, ...], *, at_ms: int, player_name: str
    ) -> None:
        """The move is stored (its own statement, committed): its `progress` event, numbered
        with the seq the statement took, as `after_race_move` numbers it."""
        race_id = game.race_id
        assert race_id is not None
        counts = race_events.Counts(
            player_name, board.opened_count(), board.flags, RacerState.RACING, at_ms
        )
        event = race_events.progress_event(seq=int(row[0]), counts=counts, finished=False)
        race_events.race_on_commit(race_id, event)
