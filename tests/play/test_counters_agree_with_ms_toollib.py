"""The counters of result_stats (docs/STATS.md, "The counters of a game") against ms-toollib's
reading of each game's own EVF file (GET /api/games/{id}/replay.evf, parsed and analysed by
`EvfVideo`: an independent implementation of the same statistics), on 200 games played through
the games service by a player that knows the layout and mixes every kind of click: reveals of
closed and of opened cells, flags on mines, flags on safe cells taken off at once, chords that
open cells and chords that open nothing, and, in some games, a mine opened on purpose.

Where ms-toollib computes the same thing the values are equal: clicks by kind, 3BV solved,
IOE, RQP, ZiNi. Where its definition differs (docs/STATS.md says how) the test holds the
difference exactly: ms-toollib counts a right click as effective only the first time it flags
a given mine, so its effective clicks (and with them correctness and throughput) are ours less
the flag clicks that placed a flag on a safe cell, took one off, or flagged a mine again.

The clock is the test's (a few hundred milliseconds between moves), so times and RQP are real
numbers rather than the milliseconds of a test run. The 200 games are four parts of 50, each
its own test, so that the suite's workers share them."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from typing import Any

import ms_toollib
import pytest
from rest_framework.test import APIClient

from accounts.models import User
from games.engine import Board
from games.play import services
from games.play.models import Game
from tests.support.boards import neighbours

pytestmark = pytest.mark.django_db

PARTS, GAMES = 4, 50  # 200 games in all
LEVELS = ("beginner", "beginner", "intermediate")  # mostly small boards: the test stays short


@dataclass
class Clock:
    """The games service's `timezone`: a clock the test moves."""

    at: datetime = field(default_factory=lambda: datetime(2026, 3, 1, tzinfo=UTC))

    def now(self) -> datetime:
        return self.at

    def tick(self, rng: random.Random) -> None:
        self.at += timedelta(milliseconds=rng.randint(150, 900))


@dataclass
class Played:
    game_id: str
    # Flag clicks ms-toollib does not count as effective: a flag on a safe cell, a flag taken
    # off, a mine flagged a second time.
    flags_not_effective_there: int = 0


def _play(user: User, level: str, rng: random.Random, clock: Clock, *, lose: bool) -> Played:
    game = services.game_create(player=user, level=level)
    w, h = game.width, game.height
    played = Played(str(game.id))

    def move(action: str, x: int, y: int) -> Board:
        clock.tick(rng)
        return services.game_move(game_id=game.id, player=user, action=action, x=x, y=y).board

    board = move("reveal", w // 2, h // 2)
    rows = board.to_ascii()
    mines = {(x, y) for y, row in enumerate(rows) for x, ch in enumerate(row) if ch in "*MX"}
    flagged_once: set[tuple[int, int]] = set()
    lose_at = rng.randint(2, 12) if lose else None  # a mine opened on purpose at that step
    for step in range(10_000):
        if board.ended:
            break
        rows = board.to_ascii()
        if step == lose_at:
            x, y = sorted(m for m in mines if rows[m[1]][m[0]] == "*")[0]
            move("reveal", x, y)
            break
        closed = [(x, y) for y, row in enumerate(rows) for x, ch in enumerate(row) if ch == "."]
        opened = [(x, y) for y, row in enumerate(rows) for x, ch in enumerate(row) if ch == "o"]
        unflagged = [m for m in mines if rows[m[1]][m[0]] == "*"]
        roll = rng.random()
        if roll < 0.1 and opened:  # a reveal of an opened cell: wasted
            board = move("reveal", *rng.choice(opened))
        elif roll < 0.25 and unflagged:  # a mine flagged (perhaps again, after a wrong flag)
            cell = rng.choice(unflagged)
            board = move("flag", *cell)
            played.flags_not_effective_there += cell in flagged_once
            flagged_once.add(cell)
            if rng.random() < 0.2:  # taken off and put back
                move("flag", *cell)
                board = move("flag", *cell)
                played.flags_not_effective_there += 2
        elif roll < 0.32 and closed:  # a flag on a safe cell, taken off at once
            cell = rng.choice(closed)
            move("flag", *cell)
            board = move("flag", *cell)
            played.flags_not_effective_there += 2
        elif roll < 0.5:  # a chord: on a number whose mines are all flagged, or anywhere opened
            ready = [
                (x, y)
                for x, y in opened
                if all(rows[ny][nx] != "*" for nx, ny in neighbours(x, y, w, h))
            ]
            if ready:
                board = move("chord", *rng.choice(ready))
            elif opened:
                board = move("chord", *rng.choice(opened))
        else:
            board = move("reveal", *rng.choice(closed))
    return played


def _video(api: APIClient, game_id: str) -> Any:
    response = api.get(f"/api/games/{game_id}/replay.evf")
    assert response.status_code == 200, response.content
    video = ms_toollib.EvfVideo("game.evf", list(response.content))
    video.parse()
    video.analyse()
    video.current_time = 1e6  # the counts as of the last event
    return video


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    clock = Clock()
    monkeypatch.setattr(services, "timezone", SimpleNamespace(now=clock.now))
    return clock


@pytest.mark.parametrize("part", range(PARTS))
def test_the_counters_agree_with_ms_toollib_on_200_games(
    part: int, alice: User, alice_api: APIClient, clock: Clock
) -> None:
    rng = random.Random(41 + part)
    seen = {"won": 0, "lost": 0, "wasted": 0, "chords": 0, "flags": 0, "differ": 0}
    for i in range(GAMES):
        # Every fifth game opens a mine on purpose: each part has lost games to compare.
        played = _play(alice, LEVELS[i % len(LEVELS)], rng, clock, lose=i % 5 == 4)
        game = Game.objects.get(pk=played.game_id)
        stats = alice_api.get(f"/api/games/{played.game_id}").json()["result_stats"]
        video = _video(alice_api, played.game_id)
        where = f"game {i} ({game.state})"
        assert (video.left, video.right, video.double) == (
            stats["reveal_clicks"],
            stats["flag_clicks"],
            stats["chord_clicks"],
        ), where
        assert video.bbbv_solved == stats["bbbv_solved"], where
        assert video.zini == stats["zini"], where
        assert round(video.ioe, 3) == stats["ioe"], where  # the same division, rounded as ours
        theirs = stats["effective_clicks"] - played.flags_not_effective_there
        assert video.ce == theirs, where
        assert video.corr == pytest.approx(theirs / stats["clicks"], abs=1e-9), where
        assert video.thrp == pytest.approx(stats["bbbv_solved"] / theirs, abs=1e-9), where
        if game.state == "won":
            assert video.rqp == pytest.approx(stats["rqp"], abs=5e-4 + 1e-9), where
            assert video.is_completed and stats["no_flags"] == (video.right == 0), where
        seen[game.state] += 1
        seen["wasted"] += stats["wasted_clicks"] > 0
        seen["chords"] += stats["chord_clicks"] > 0
        seen["flags"] += stats["flag_clicks"] > 0
        seen["differ"] += played.flags_not_effective_there > 0
    # Every kind of game and click was there to compare.
    assert min(seen.values()) >= 3, seen
