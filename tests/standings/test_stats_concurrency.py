"""Two games of one player ending at the same moment must not lose an update.

Real threads, real PostgreSQL transactions: each thread ends a game inside its own
transaction and holds it open a little after the update, the way a game-ending request
does. Without the row lock both would read `played = N` and both write `N + 1`."""

from __future__ import annotations

import functools
import threading
import time
import uuid
from datetime import UTC, datetime

import pytest
from django.db import connection, transaction

from accounts.standings.models import PersonalRecord
from accounts.standings.records import GameEnd
from accounts.standings.selectors import stats_for_user
from accounts.standings.stats import record_game_end
from tests.support.threads import in_threads

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor != "postgresql", reason="row locks across threads need PostgreSQL"
    ),
]

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)


def end_games_at_once(user_id: int, ends: list[dict]) -> list[BaseException]:
    barrier = threading.Barrier(len(ends))
    errors: list[BaseException] = []

    def worker(end: dict) -> None:
        try:
            with transaction.atomic():
                barrier.wait(timeout=10)
                record_game_end(
                    end=GameEnd(game_id=uuid.uuid4(), ended_at=NOW, **end),
                    user_id=user_id,
                    level="beginner",
                )
                time.sleep(0.2)  # the rest of the ending transaction: the other one must wait
        except BaseException as exc:  # reported to the test thread
            errors.append(exc)

    in_threads(*(functools.partial(worker, end) for end in ends), timeout=30)
    return errors


WIN = {"won": True, "elapsed_ms": 12_000, "bbbv_per_s": 1.5}


def test_two_first_games_ending_together_create_one_row_with_both(alice):
    errors = end_games_at_once(alice.pk, [WIN, {**WIN, "elapsed_ms": 9_000}])
    assert errors == []
    s = stats_for_user(user_id=alice.pk)["beginner"]
    assert (s["played"], s["won"], s["current_streak"], s["best_streak"]) == (2, 2, 2, 2)
    assert s["best_time_ms"] == 9_000
    assert len(s["best_times"]) == 2


def test_two_later_games_ending_together_both_count(alice):
    record_game_end(
        end=GameEnd(game_id=uuid.uuid4(), ended_at=NOW, **WIN), user_id=alice.pk, level="beginner"
    )
    errors = end_games_at_once(
        alice.pk,
        [WIN, {"won": False, "elapsed_ms": 5_000, "bbbv_per_s": None}],
    )
    assert errors == []
    s = stats_for_user(user_id=alice.pk)["beginner"]
    assert (s["played"], s["won"]) == (3, 2)
    # Applied one after the other, in either order: win then loss, or loss then win.
    assert (s["current_streak"], s["best_streak"]) in {(0, 2), (1, 1)}
    assert PersonalRecord.objects.filter(user=alice, kind="time").count() >= 1
