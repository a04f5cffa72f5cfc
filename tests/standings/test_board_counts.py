"""Board counts (accounts migration 0006, docs/STATS.md "How the boards stay fast"): the
histogram the triggers keep gives the same count, ranks, pages and `around=me` as counting
the rows directly, after any mix of writes, at any moment of a rolling period, whether or
not the anchors have been moved since, and after compaction or a full recount."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection

from accounts.models import RANKED_LEVELS, User
from accounts.standings import leaderboards as lb
from accounts.standings.models import RecordKind
from accounts.standings.records import GameEnd
from accounts.standings.stats import record_game_end
from tests.support.board_history import START, board_history
from tests.support.personas import PASSWORD

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "postgresql", reason="board counts are PostgreSQL's"),
]


def _specs(level: str = "beginner", players: str = "humans") -> list[lb.BoardSpec]:
    specs = [
        lb.board_spec(
            level=level, board=board, period=period, sort=None, players=players, style=style
        )
        for board in ("times", "speed")
        for period in lb.PERIODS
        for style in lb.STYLES  # the standard boards, then the NF ones
    ]
    specs += [
        lb.board_spec(level=level, board="streaks", period=None, sort=sort, players=players)
        for sort in lb.STREAK_SORTS
    ]
    return specs


def _assert_same(spec: lb.BoardSpec, users: list[User], now: datetime, page_size: int) -> None:
    q = lb._sql(spec, now)
    whole = lb.direct_page(spec, q, lb.PageAsk(page=1, page_size=1000))
    for page in range(1, whole.last_page * 1000 // page_size + 2):
        if page > 1 and (page - 1) * page_size >= whole.count:
            break  # page 1 of an empty board is still read: an empty page
        want = lb.direct_page(spec, q, lb.PageAsk(page=page, page_size=page_size))
        got = lb.leaderboard_page(
            spec=spec, ask=lb.PageAsk(page=page, page_size=page_size), now=now
        )
        assert (got.count, got.results) == (want.count, want.results), (spec, now, page)
    for user in users:
        for around in (False, True):
            ask = lb.PageAsk(page=1, page_size=page_size, viewer=user, around_me=around)
            want = lb.direct_page(spec, q, ask)
            got = lb.leaderboard_page(spec=spec, ask=ask, now=now)
            assert (got.count, got.page, got.results, got.me) == (
                want.count,
                want.page,
                want.results,
                want.me,
            ), (spec, now, user.username, around)


# Before, inside and after the history (days after START); the anchors were set at migration
# time (today).
MOMENTS = {"day40": 40, "day200": 200, "day401": 401, "today": None}


def _moment(name: str) -> datetime:
    days = MOMENTS[name]
    return (
        datetime.now(UTC) + timedelta(seconds=5) if days is None else START + timedelta(days=days)
    )


# One test a moment, so that the suite's workers share them (all four in one took 28 s of a
# parallel PostgreSQL run); each writes the same history (seed 1), as the one test did.
@pytest.mark.parametrize("moment", MOMENTS)
def test_the_histogram_reads_agree_with_counting_the_rows_at_every_moment(moment: str) -> None:
    users = board_history(seed=1)
    now, first = _moment(moment), _moment(next(iter(MOMENTS)))
    for spec in _specs("beginner") + _specs("expert")[::3] + _specs("beginner", "bots")[::4]:
        # A board whose two reads are the very queries they were at the first moment (no
        # rolling period: the all-time and streak boards), on rows no moment changes, answers
        # as it did there: compared once, at the first moment.
        same_reads = (lb._sql(spec, now), lb._histogram_sql(spec, now)) == (
            lb._sql(spec, first),
            lb._histogram_sql(spec, first),
        )
        if now == first or not same_reads:
            _assert_same(spec, users, now, page_size=3)


def test_moving_the_anchors_and_folding_the_deltas_changes_no_answer():
    users = board_history(seed=2)
    for now in (START + timedelta(days=250), START + timedelta(days=420)):
        moved = lb.maintain_boards(now=now)
        # levels, pools, kinds (time and speed, standard and NF), periods
        assert moved["advanced"] == len(RANKED_LEVELS) * 2 * len(RecordKind) * 4
        with connection.cursor() as cur:
            cur.execute(
                "SELECT count(*) FROM (SELECT 1 FROM accounts_board_count"
                " GROUP BY level, pool, board, bucket HAVING count(*) > 1) x"
            )
            assert cur.fetchone()[0] == 0  # one row per bucket once folded
        for probe in (now + timedelta(days=3), now - timedelta(days=40)):
            for spec in _specs("beginner")[::2]:
                _assert_same(spec, users, probe, page_size=4)


def test_the_kept_counts_equal_a_recount_from_the_rows():
    board_history(seed=3)
    at = START + timedelta(days=300)
    lb.maintain_boards(now=at)

    def counts() -> dict[tuple[str, str, str, int], int]:
        with connection.cursor() as cur:
            cur.execute(
                "SELECT level, pool, board, bucket, sum(n) FROM accounts_board_count"
                " GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0"
            )
            return {tuple(r[:4]): int(r[4]) for r in cur.fetchall()}

    kept = counts()
    lb.rebuild_boards(now=at)
    assert kept == counts() and kept


def test_a_new_personal_best_moves_the_count_and_ranks_at_once():
    users = board_history(seed=4, players=6, games=40)
    now = START + timedelta(days=60)
    spec = lb.board_spec(level="beginner", board="times", period="week", sort=None)
    before = lb.leaderboard_page(spec=spec, ask=lb.PageAsk(page=1, page_size=50), now=now)
    newcomer = User.objects.create_user(username="newcomer", password=PASSWORD)
    record_game_end(
        end=GameEnd(
            won=True,
            game_id=uuid.uuid4(),
            elapsed_ms=1,
            bbbv_per_s=50.0,
            ended_at=now - timedelta(hours=1),
        ),
        user_id=newcomer.pk,
        level="beginner",
    )
    after = lb.leaderboard_page(
        spec=spec, ask=lb.PageAsk(page=1, page_size=50, viewer=newcomer), now=now
    )
    assert after.count == before.count + 1
    assert after.me is not None and after.me["rank"] == 1
    assert after.results[0]["player"] == "newcomer"
    _assert_same(spec, [*users, newcomer], now, page_size=2)


def test_truncating_the_boards_empties_their_counts():
    board_history(seed=5, players=4, games=30)
    with connection.cursor() as cur:
        cur.execute("SET CONSTRAINTS ALL IMMEDIATE")  # no deferred FK checks left pending
        cur.execute("TRUNCATE accounts_personal_record")
        cur.execute("SELECT DISTINCT split_part(board, ':', 1) FROM accounts_board_count")
        assert {r[0] for r in cur.fetchall()} == {"streak"}
        cur.execute("TRUNCATE accounts_player_stats")
        cur.execute("SELECT count(*) FROM accounts_board_count")
        assert cur.fetchone()[0] == 0
