"""What a racer's move changes in their race, inside the move's transaction (games.services
calls `after_race_move` for every stored action of a race game).

Lock order everywhere in races (docs/RACES.md, Locks): the player's row, then game rows (by
id), then the race row, then racer rows. A move already holds its game's lock; the race row is
locked here by the UPDATE that takes the next `seq`, so two racers' moves in one race are
serialised on the race and their progress events are numbered without gaps.
"""

from __future__ import annotations

from datetime import datetime

from django.db import connection, transaction
from django.utils.dateparse import parse_datetime

from . import race_events
from .engine import Board
from .errors import GameError
from .models import ENDED_STATES, EndReason, Game, GameState, Race, Racer, RacerState


def take_seq(
    race_id: object, *, count: int = 1, deadline: datetime | None = None
) -> tuple[int, datetime | None, int]:
    """Add `count` to the race's seq (locking its row); returns the new seq, the race's start
    and its time limit. With `deadline` the race clock is asked to act at that instant."""
    table = Race._meta.db_table
    pk = Race._meta.pk
    assert pk is not None
    race_pk = pk.get_db_prep_value(race_id, connection)
    with connection.cursor() as cur:
        if deadline is None:
            cur.execute(
                f"UPDATE {table} SET seq = seq + %s WHERE id = %s"
                " RETURNING seq, started_at, time_limit_ms",
                [count, race_pk],
            )
        else:
            cur.execute(
                f"UPDATE {table} SET seq = seq + %s, deadline = %s WHERE id = %s"
                " RETURNING seq, started_at, time_limit_ms",
                [count, deadline, race_pk],
            )
        row = cur.fetchone()
    if row is None:
        raise Race.DoesNotExist(race_id)
    started_at = row[1]
    if isinstance(started_at, str):  # SQLite returns the text it stores
        started_at = parse_datetime(started_at)
    return int(row[0]), started_at, int(row[2])


def after_race_move(
    game: Game, board: Board, *, now: datetime, at_ms: int, player_name: str, left: bool = False
) -> None:
    """Store the racer's counts (and result once their game is over) and publish `progress`
    (and `finished`). When they were the last racer still racing, the race clock is asked to
    end the race now (games.races.race_end), after this commit."""
    race_id = game.race_id
    assert race_id is not None
    done = game.state in ENDED_STATES
    if left:
        state = RacerState.LEFT
    elif done:
        state = RacerState.WON if game.state == GameState.WON else RacerState.LOST
    else:
        state = RacerState.RACING
    opened, flags = board.opened_count(), board.flags
    fields: dict[str, object] = {"opened": opened, "flags": flags}
    if done:
        fields.update(state=state, elapsed_ms=at_ms, active=False)
    Racer.objects.filter(game_id=game.id).update(**fields)
    last = (
        done
        and not Racer.objects.filter(race_id=race_id, state=RacerState.RACING)
        .exclude(game_id=game.id)
        .exists()
    )
    seq, started_at, limit_ms = take_seq(
        race_id, count=2 if done else 1, deadline=now if last else None
    )
    by_the_clock = game.end_reason == EndReason.OUT_OF_TIME
    if not (left or by_the_clock) and at_ms >= limit_ms and started_at is not None:
        # Past the race's time limit no move counts: refused, and the whole transaction with
        # it. The race clock ends the game as out of time within its tick (games.races).
        raise GameError("game_over", "The race's time is up.")
    counts = race_events.Counts(player_name, opened, flags, state, at_ms)
    for number, finished in ((seq - 1, False), (seq, True)) if done else ((seq, False),):
        event = race_events.progress_event(seq=number, counts=counts, finished=finished)
        race_events.race_on_commit(race_id, event)
    if last:
        from .races import race_end  # the race services import games.services, which imports us

        transaction.on_commit(lambda: race_end(race_id=race_id))
