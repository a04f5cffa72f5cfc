"""A history of game ends for the boards' count tests (tests/standings/test_board_counts.py) and
the suite's flush test (tests/site/test_suite_flush.py): it writes every kind of row the
count tables and their triggers keep."""

from __future__ import annotations

import random
import uuid
from datetime import UTC, datetime, timedelta

from accounts.models import BoardPool, User
from accounts.standings.records import GameEnd
from accounts.standings.stats import record_game_end, record_ranked_win, remove_from_boards
from tests.support.personas import PASSWORD

START = datetime(2026, 3, 1, tzinfo=UTC)


def board_history(seed: int, players: int = 9, games: int = 150) -> list[User]:
    """Random game ends over 400 days, recorded out of time order now and then, with equal
    times (ties), wins without a 3BV/s, wins without a flag (the NF boards), a staff-cleared
    win and a flagged player."""
    rng = random.Random(seed)
    users = [
        User.objects.create_user(username=f"b{seed}_{i}", password=PASSWORD) for i in range(players)
    ]
    at = START
    for _ in range(games):
        at += timedelta(hours=rng.uniform(0, 40))
        when = at - timedelta(days=rng.choice([0, 0, 0, 0, 3, 40]))  # now and then, late
        user = rng.choice(users)
        won = rng.random() < 0.7
        ms = rng.choice([rng.randint(2_000, 60_000), 5_000, 7_000])
        speed = None if rng.random() < 0.1 else round(rng.uniform(0.3, 4.0), 3)
        record_game_end(
            end=GameEnd(
                won=won,
                game_id=uuid.uuid4(),
                elapsed_ms=ms,
                bbbv_per_s=speed,
                ended_at=when,
                no_flags=won and rng.random() < 0.4,  # the NF boards' rows too
            ),
            user_id=user.pk,
            level=rng.choice(["beginner", "beginner", "expert"]),
            pool=BoardPool.BOT if user is users[-1] else BoardPool.HUMAN,
        )
    record_ranked_win(
        user_id=users[1].pk,
        level="beginner",
        pool=BoardPool.HUMAN,
        game_id=uuid.uuid4(),
        elapsed_ms=1_500,
        bbbv_per_s=9.0,
        ended_at=START + timedelta(days=100),
        no_flags=True,
    )
    remove_from_boards(user_id=users[2].pk)
    return users
