"""The daily board's histogram (accounts migration 0014, PostgreSQL): every page, every `me`
and the count read through it agree with the rows counted directly, over a board of ties in
every kind of bucket (wins in one second, losses with the same cells, running games in one
ten-minute span and across spans), through starts, ends, unranking and compaction."""

from __future__ import annotations

import random
from datetime import UTC, date, datetime, timedelta

import pytest
from django.db import connection

from accounts.models import User
from accounts.standings import daily
from accounts.standings.leaderboards import PageAsk
from accounts.standings.models import DailyEntry
from accounts.standings.records import GameEnd
from tests.support.daily_entries import ranked_entry

pytestmark = pytest.mark.django_db

DAY = date(2026, 12, 3)
BOARD = daily.DailyBoard(day=DAY, level="expert", pool="human")


def _seed(n: int, rng: random.Random) -> list[User]:
    users = User.objects.bulk_create(User(username=f"h{i:04d}", password="!") for i in range(n))
    start = datetime(2026, 12, 3, 0, 5, tzinfo=UTC)
    entries = []
    for user in users:
        kind = rng.choice(["won", "won", "lost", "playing"])
        at = start + timedelta(seconds=rng.choice([0, 1, 599, 600, 1800, 3600 * 5]))
        time_ms = rng.choice([41_000, 41_500, 41_999, 42_000, 99_999]) if kind == "won" else None
        opened = rng.choice([3, 3, 17, 200])
        board = daily.DailyBoard(day=DAY, level="expert", pool=rng.choice(["human"] * 9 + ["none"]))
        game_id = f"00000000-0000-4000-8000-{user.pk:012d}"
        entries.append(
            ranked_entry(
                user, board, game_id=game_id, state=kind, time_ms=time_ms, opened=opened, at=at
            )
        )
    DailyEntry.objects.bulk_create(entries)
    return users


def _agree(users: list[User]) -> None:
    count = DailyEntry.objects.filter(day=DAY, level="expert", pool="human").count()
    winners = DailyEntry.objects.filter(day=DAY, level="expert", pool="human", state="won")
    assert daily.day_counts(DAY) == {"expert": (count, winners.count())}
    for size in (1, 7, 50):
        last = max(1, -(-count // size))
        for page in sorted({1, 2, last // 2 or 1, last}):
            ask = PageAsk(page=page, page_size=size)
            fast = daily.daily_board_page(board=BOARD, ask=ask)
            slow = daily.daily_board_page(board=BOARD, ask=ask, direct=True)
            assert (fast.count, fast.results) == (slow.count, slow.results), (size, page)
    for viewer in users[::9]:
        ask = PageAsk(page=1, page_size=10, viewer=viewer, around_me=True)
        fast = daily.daily_board_page(board=BOARD, ask=ask)
        slow = daily.daily_board_page(board=BOARD, ask=ask, direct=True)
        assert (fast.me, fast.page, fast.results) == (slow.me, slow.page, slow.results)


@pytest.mark.skipif(
    connection.vendor != "postgresql", reason="the histogram is PostgreSQL's (migration 0014)"
)
def test_the_histogram_agrees_with_the_rows_through_every_change():
    rng = random.Random(2212)
    users = _seed(240, rng)
    _agree(users)
    # games end, are unranked and come back, rows leave: the trigger follows each change
    for entry in DailyEntry.objects.filter(state="playing")[:20]:
        opened = rng.choice([5, 17])
        daily.entry_end(
            end=GameEnd(
                won=False,
                game_id=entry.game_id,
                elapsed_ms=1,
                bbbv_per_s=None,
                ended_at=entry.achieved_at + timedelta(minutes=3),
                ranked=True,
            ),
            user=entry.user,
            day=DAY,
            level="expert",
            opened=opened,
        )
    for entry in DailyEntry.objects.filter(state="won")[:10]:
        daily.entry_unrank(game_id=entry.game_id)
    _agree(users)
    assert daily.compact(day=DAY) > 0
    with connection.cursor() as cur:
        cur.execute(
            "SELECT count(*), count(DISTINCT (level, pool, bucket)) FROM accounts_daily_count"
            " WHERE day = %s",
            [DAY],
        )
        rows, buckets = cur.fetchone()
    assert rows == buckets  # one row per bucket once folded
    _agree(users)
    with connection.cursor() as cur:  # a recount from the entries gives the same histogram
        cur.execute(
            "SELECT bucket, sum(n) FROM accounts_daily_count WHERE day = %s"
            " GROUP BY 1, level, pool ORDER BY 1",
            [DAY],
        )
        before = cur.fetchall()
        cur.execute("SELECT accounts_daily_rebuild(%s)", [DAY])
        cur.execute(
            "SELECT bucket, sum(n) FROM accounts_daily_count WHERE day = %s"
            " GROUP BY 1, level, pool ORDER BY 1",
            [DAY],
        )
        assert cur.fetchall() == before


def test_bucket_of_orders_as_the_key():
    at = datetime(2026, 12, 3, 10, 0, tzinfo=UTC)
    keys = [
        daily.bucket_of(daily.score("won", time_ms=999, opened=0), at),
        daily.bucket_of(daily.score("won", time_ms=1000, opened=0), at),
        daily.bucket_of(daily.score("lost", time_ms=None, opened=300), at),
        daily.bucket_of(daily.score("lost", time_ms=None, opened=2), at),
        daily.bucket_of(daily.score("playing", time_ms=None, opened=9), at),
        daily.bucket_of(daily.score("playing", time_ms=None, opened=9), at + timedelta(hours=1)),
    ]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)
