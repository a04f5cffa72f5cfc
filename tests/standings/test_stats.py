"""accounts.standings.stats against PostgreSQL: record_game_end keeps one row per (player, level) up to
date, and stats_for_user reads it back in the shape of API.md (Stats per level)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest

from accounts.models import STATS_BUCKETS as BUCKETS
from accounts.standings.models import PersonalRecord, PlayerStats
from accounts.standings.records import GameEnd
from accounts.standings.selectors import stats_for_user
from accounts.standings.stats import record_game_end
from tests.support.shapes import BUCKETS as API_BUCKETS

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)


def finish(user, level="beginner", *, won=True, ms=10_000, speed=2.0, minute=0, game_id=None):
    gid = game_id or uuid.uuid4()
    result = record_game_end(
        end=GameEnd(
            won=won,
            game_id=gid,
            elapsed_ms=ms,
            bbbv_per_s=speed if won else None,
            ended_at=T0 + timedelta(minutes=minute),
        ),
        user_id=user.pk,
        level=level,
    )
    return gid, result


def test_a_player_with_no_games_has_all_seven_buckets_with_zeros_and_nulls(alice):
    stats = stats_for_user(user_id=alice.pk)
    assert list(stats) == list(BUCKETS) == API_BUCKETS
    for bucket in stats.values():
        assert (
            bucket["played"]
            == bucket["won"]
            == bucket["current_streak"]
            == bucket["best_streak"]
            == 0
        )
        assert bucket["win_rate"] == 0
        assert bucket["best_time_ms"] is None and bucket["best_time_game_id"] is None
        assert bucket["best_bbbv_per_s"] is None and bucket["best_bbbv_per_s_game_id"] is None
        assert bucket["average_win_ms"] is None
        assert bucket["best_times"] == []


def test_each_game_end_updates_played_won_rate_streaks_bests_and_average(alice):
    g1, _ = finish(alice, ms=30_000, speed=1.0, minute=1)
    g2, _ = finish(alice, ms=20_000, speed=3.0, minute=2)
    finish(alice, won=False, minute=3)
    g4, _ = finish(alice, ms=25_000, speed=1.5, minute=4)
    s = stats_for_user(user_id=alice.pk)["beginner"]
    assert (s["played"], s["won"], s["win_rate"]) == (4, 3, 0.75)
    assert (s["current_streak"], s["best_streak"]) == (1, 2)
    assert (s["best_streak_first_game_id"], s["best_streak_last_game_id"]) == (str(g1), str(g2))
    assert (s["current_streak_first_game_id"], s["current_streak_last_game_id"]) == (
        str(g4),
        str(g4),
    )
    assert (s["best_time_ms"], s["best_time_game_id"]) == (20_000, str(g2))
    assert (s["best_bbbv_per_s"], s["best_bbbv_per_s_game_id"]) == (3.0, str(g2))
    assert s["average_win_ms"] == 25_000
    assert [t["time_ms"] for t in s["best_times"]] == [20_000, 25_000, 30_000]
    assert s["best_times"][0] == {
        "time_ms": 20_000,
        "game_id": str(g2),
        "achieved_at": "2026-06-01T12:02:00.000000Z",
    }


def test_best_times_keep_the_five_fastest(alice):
    for i, ms in enumerate([9, 3, 7, 1, 5, 8, 2], 1):
        finish(alice, ms=ms * 1000, minute=i)
    assert [t["time_ms"] for t in stats_for_user(user_id=alice.pk)["beginner"]["best_times"]] == [
        1000,
        2000,
        3000,
        5000,
        7000,
    ]


def test_record_game_end_says_when_a_game_sets_a_personal_best(alice):
    _, first = finish(alice, ms=20_000, speed=2.0, minute=1)
    _, slower = finish(alice, ms=25_000, speed=1.0, minute=2)
    _, faster = finish(alice, ms=15_000, speed=1.5, minute=3)
    _, loss = finish(alice, won=False, minute=4)
    assert first is not None and first.best_time and first.best_speed
    assert slower is None and loss is None
    assert faster is not None and faster.best_time and not faster.best_speed


def test_levels_are_counted_apart_and_custom_has_its_own_bucket(alice):
    finish(alice, "expert", minute=1)
    finish(alice, "custom", minute=2)
    finish(alice, "custom", won=False, minute=3)
    stats = stats_for_user(user_id=alice.pk)
    assert (stats["expert"]["played"], stats["custom"]["played"], stats["beginner"]["played"]) == (
        1,
        2,
        0,
    )
    assert stats["custom"]["best_streak"] == 1 and stats["custom"]["current_streak"] == 0


def test_custom_games_never_enter_the_record_chains(alice):
    finish(alice, "custom", ms=1000)
    assert not PersonalRecord.objects.exists()
    finish(alice, "beginner", ms=1000)
    assert set(PersonalRecord.objects.values_list("level", "kind")) == {
        ("beginner", "time"),
        ("beginner", "speed"),
    }


def test_a_win_without_a_speed_enters_the_times_chain_only(alice):
    finish(alice, ms=0, speed=None)
    assert list(PersonalRecord.objects.values_list("kind", flat=True)) == ["time"]


def test_stats_are_read_from_the_summary_rows_not_recomputed(alice, django_assert_num_queries):
    for i in range(5):
        finish(alice, minute=i)
    with django_assert_num_queries(1):
        stats = stats_for_user(user_id=alice.pk)
    assert stats["beginner"]["played"] == 5
    assert PlayerStats.objects.filter(user=alice).count() == 1
