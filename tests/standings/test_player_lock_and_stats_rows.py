"""The player-row lock (accounts/locks.py) and the statistics rows, taken in opposite orders by
two transactions, never deadlock.

A game creation locks the player and may then end their previous game, which locks a stats row
(accounts.standings.stats.lock_bucket_row). The analysis of a finished game locks the same row
first and commits rows that reference the player; PostgreSQL checks those references at the
commit by a KEY SHARE lock on the player's row. Under FOR UPDATE that check waited for the
creation, which waited for the stats row: PostgreSQL ended one of the two as a deadlock (seen
as a 503 to a game creation in a load run). FOR NO KEY UPDATE does not block the check."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest
from django.db import connection, connections, transaction

from accounts.locks import lock_player
from accounts.models import User
from accounts.standings.models import PlayerStats
from accounts.standings.stats import lock_bucket_row

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor != "postgresql", reason="row locks of PostgreSQL (SQLite locks the file)"
    ),
]

# Bounds on conditions only: a thread that has not reached its step by then has failed.
STEP_S = 30


def _in_thread(work: Callable[[], None], errors: list[BaseException]) -> threading.Thread:
    def run() -> None:
        try:
            work()
        except BaseException as error:  # the test reads it: a deadlock is an OperationalError
            errors.append(error)
        finally:
            connections.close_all()

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def test_a_creation_holding_the_player_and_an_analysis_holding_a_stats_row_both_commit() -> None:
    player = User.objects.create_user(username="lena", password="x")
    PlayerStats.objects.create(user=player, level="beginner")
    creation_holds_the_player = threading.Event()
    analysis_holds_the_row = threading.Event()
    errors: list[BaseException] = []

    def creation() -> None:
        with transaction.atomic():
            lock_player(player)
            creation_holds_the_player.set()
            assert analysis_holds_the_row.wait(STEP_S)
            # Ending the previous game: waits here until the analysis commits.
            lock_bucket_row(PlayerStats, user_id=player.pk, bucket="beginner")

    def analysis() -> None:
        assert creation_holds_the_player.wait(STEP_S)
        with transaction.atomic():
            lock_bucket_row(PlayerStats, user_id=player.pk, bucket="beginner")
            analysis_holds_the_row.set()
            # A row that references the player, checked at the commit.
            PlayerStats.objects.create(user=player, level="expert")

    threads = [_in_thread(creation, errors), _in_thread(analysis, errors)]
    for thread in threads:
        thread.join(STEP_S * 2)
        assert not thread.is_alive(), "a transaction never ended"
    assert errors == []
    assert set(PlayerStats.objects.filter(user=player).values_list("level", flat=True)) == {
        "beginner",
        "expert",
    }
