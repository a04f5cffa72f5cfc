"""The load bench's solver (bench/load/bots.py) against the rules engine standing in for the
server: it sees only what a player sees (the rendered board, then each move's changes), and its
certain moves must be right on every board."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest

from bench.load.bots import LoadSolver, Move
from bench.races.bots import Solver
from deploy.processes import run_python, server_env
from games.engine import LEVELS, LOST, WON, Board


def _game(board: Board, seq: int = 0) -> dict[str, Any]:
    """The Game the API would show of `board` (the fields the bots read)."""
    return {
        "id": "g",
        "width": board.width,
        "height": board.height,
        "mines": board.mines,
        "state": board.status,
        "seq": seq,
        "board": board.render(),
    }


def _play(board: Board, move: Move, rng: random.Random) -> list[dict[str, Any]]:
    if move.action == "reveal":
        outcome = board.reveal(move.x, move.y, rng)
    elif move.action == "flag":
        outcome = board.flag(move.x, move.y, True)
    else:
        outcome = board.chord(move.x, move.y)
    return [{"x": c.x, "y": c.y, "v": c.v} for c in outcome.changes]


def test_a_known_board_is_flagged_then_chorded_to_a_win() -> None:
    # 1###      the 1 in the corner has one closed neighbour: a mine, flagged first;
    # 1110      then the 1 under it with two closed neighbours left is chorded,
    # 0000      which opens both and wins.
    board = Board.from_ascii(["o*..", "oooo", "oooo"])
    solver = LoadSolver(_game(board))
    rng = random.Random(0)
    played = []
    while board.status not in (WON, LOST):
        move = solver.next_move(rng)
        assert move is not None
        played.append((move.action, move.x, move.y, move.certain))
        solver.apply(_play(board, move, rng))
        solver.state = board.status
    assert played == [("flag", 1, 0, True), ("chord", 2, 1, True)]
    assert board.status == WON
    assert solver.mines == {(1, 0)}


def test_last_closed_neighbour_is_revealed_not_chorded() -> None:
    # 1##   the corner 1 makes (1, 0) a mine; every 1 touching (2, 0) then has one closed
    # 111   safe neighbour left: a reveal of it, not a chord.
    board = Board.from_ascii(["o*.", "ooo"])
    solver = LoadSolver(_game(board))
    rng = random.Random(0)
    first = solver.next_move(rng)
    assert first == Move("flag", 1, 0, True)
    solver.apply(_play(board, first, rng))
    second = solver.next_move(rng)
    assert second == Move("reveal", 2, 0, True)
    solver.apply(_play(board, second, rng))
    assert board.status == WON


def test_with_nothing_certain_it_guesses_a_closed_cell() -> None:
    # 1#   one mine among two closed cells: no rule applies.
    # 1#
    board = Board.from_ascii(["o*", "o."])
    solver = LoadSolver(_game(board))
    move = solver.next_move(random.Random(3))
    assert move is not None
    assert move.action == "reveal"
    assert not move.certain
    assert (move.x, move.y) in {(1, 0), (1, 1)}


@pytest.mark.parametrize("level", ["beginner", "intermediate", "expert"])
def test_whole_games_never_go_wrong_on_a_certain_move(level: str) -> None:
    """Seeded games to their end (30 of Beginner and Intermediate, 10 of Expert): flags only on
    mines, no certain reveal or chord opens a mine, and after every move the incremental
    deductions equal those of bench/races' Solver recomputed over the whole board."""
    size = LEVELS[level]
    count = 10 if level == "expert" else 30
    games = won = 0
    moves: dict[str, int] = {"reveal": 0, "flag": 0, "chord": 0}
    for seed in range(count):
        rng = random.Random(seed)
        board = Board.new(size.width, size.height, size.mines)
        first = LoadSolver(_game(board)).first_move()
        board.reveal(first.x, first.y, rng)
        solver = LoadSolver(_game(board, seq=1))
        while board.status not in (WON, LOST):
            oracle = Solver(_game(board))
            safe = oracle.deduce()
            flags = {
                (x, y)
                for y, row in enumerate(board.render())
                for x, v in enumerate(row)
                if v == "F"
            }
            assert solver.certain_safe() == safe
            assert solver.mines == oracle.mines | flags
            move = solver.next_move(rng)
            assert move is not None, "a closed cell is always left while the game runs"
            truth = board.to_ascii()
            if move.action == "flag":
                assert truth[move.y][move.x] == "*", "flags go on mines only"
            solver.apply(_play(board, move, rng))
            solver.state = board.status
            moves[move.action] += 1
            if move.certain:
                assert board.status != LOST, f"a certain {move.action} lost (seed {seed})"
        games += 1
        won += board.status == WON
    assert games == count
    assert won > 0
    assert moves["flag"] > 0 and moves["chord"] > 0


# --- a tiny real run ------------------------------------------------------------------------------


def _service_urls() -> tuple[str, str] | None:
    """The bench's own database and Redis db on the servers the suite was given, or None."""
    database, redis_url = os.environ.get("DATABASE_URL", ""), os.environ.get("REDIS_URL", "")
    if not database.startswith("postgres") or not redis_url.startswith("redis"):
        return None
    return (
        urlparse(database)._replace(path="/demineur_load_test").geturl(),
        urlparse(redis_url)._replace(path="/12").geturl(),
    )


# It starts server processes of its own (gunicorn and uvicorn): `make test-stack` runs it, as
# the other tests that do (tests/conftest.py, STACK_MODULES).
@pytest.mark.stack
@pytest.mark.skipif(_service_urls() is None, reason="needs PostgreSQL and Redis")
def test_a_tiny_run_plays_games_over_both_transports(tmp_path: Path) -> None:
    """`python -m bench.load.run` for real, in a subprocess (its own Django, database and
    servers): two bots on Beginner, one worker, two seconds a transport.

    No warm-up: the run has to show that every part works, not a steady rate. Counted from
    the bots' start, each transport's first create (and socket connect) is in the window,
    where after a warm-up it fell in the warm-up and only a game ended and begun again in the
    window counted one. Two seconds, not one: a create, a connect and a first move take a few
    hundred ms each on a loaded machine.
    """
    urls = _service_urls()
    assert urls is not None
    out = tmp_path / "load.json"
    done = run_python(
        "-m", "bench.load.run", "--players", "2", "--workers", "1", "--seconds", "2",
        "--warmup", "0", "--levels", "beginner", "--api-accounts", "1",
        "--no-access-log", "--database-url", urls[0], "--redis-url", urls[1],
        "--json", str(out),
        env=server_env(debug=False), timeout=180,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    result = json.loads(out.read_text())
    assert result["signin_ms"]["n"] == 1
    by_transport = {r["transport"]: r for r in result["results"]}
    assert set(by_transport) == {"http", "ws"}
    for transport, r in by_transport.items():
        assert r["errors"] == {}, transport
        assert r["moves"] > 0 and r["moves_per_s"] > 0, transport
        # Whole games in two seconds is a matter of the machine's speed (a loaded machine
        # ended none over HTTP): games are counted as they end, and the bots' play of whole
        # games is checked above, in process, without a clock.
        assert r["won"] + r["lost"] == r["games"] >= 0, transport
        assert r["actions"]["create"]["n"] >= 1, transport
        assert r["cpu_s"]["rest"] > 0, transport  # the meter found the servers' processes
    assert by_transport["ws"]["actions"]["connect"]["n"] >= 1
    assert by_transport["ws"]["cpu_s"]["ws"] > 0
