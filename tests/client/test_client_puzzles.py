"""The Python client's puzzles area and the bot runner's puzzles against the real site (uvicorn
on a thread, the test database): the next puzzle solved by its provable cells, one failed on a
mine with its answer shown only after, sync and async alike; the bundled command solving puzzles
as a declared bot, which puts it on the bots' puzzle board; and the puzzle solver proving
exactly what the server's answer holds."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from asgiref.sync import sync_to_async
from demineur_client import AsyncClient, Client, Conflict, NotFound, PuzzleSolver

from accounts.models import User
from accounts.services import token_issue
from games.puzzles import generator, positions
from tests.support import puzzles as drawings
from tests.support.client import signed_in
from tests.support.personas import PASSWORD

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "clients" / "python" / "src"


def test_the_next_puzzle_solved_then_one_failed_through_the_client(live: str) -> None:
    flow = drawings.store(drawings.FLOW)
    with signed_in(live, "z") as api:
        puzzle = api.puzzles.next()
        assert puzzle["id"] == str(flow.id) and puzzle["mines_left"] == flow.mines
        assert puzzle["attempt"] is not None and puzzle["attempt"]["state"] == "playing"
        assert puzzle["solution"] is None and puzzle["source_game"] is None
        assert api.puzzles.next()["id"] == puzzle["id"]  # the same one until played out
        for x, y in drawings.solution_cells(flow):
            opened = api.puzzles.open(puzzle["id"], x, y)
            assert opened["correct"] is True
        solved = opened["puzzle"]
        assert solved["attempt"] is not None and solved["attempt"]["state"] == "solved"
        assert solved["attempt"]["rated"] is True and solved["attempt"]["mode"] == "rated"
        assert solved["attempt"]["rating_after"] > solved["attempt"]["rating_before"]
        assert {(c["x"], c["y"]) for c in solved["solution"] or []} == set(
            drawings.solution_cells(flow)
        )
        with pytest.raises(Conflict) as refused:
            api.puzzles.open(puzzle["id"], 0, 0)
        assert refused.value.code == "attempt_over"  # the attempt is checked before the cell

        other = drawings.store(drawings.PATTERN_121)
        shown = api.puzzles.next()
        assert shown["id"] == str(other.id) and shown["solution"] is None
        x, y = drawings.a_mine(other)
        wrong = api.puzzles.open(shown["id"], x, y)
        assert wrong["correct"] is False
        failed = wrong["puzzle"]
        assert failed["attempt"] is not None and failed["attempt"]["state"] == "failed"
        assert {(c["x"], c["y"]) for c in failed["solution"] or []} == set(
            drawings.solution_cells(other)
        )
        assert api.puzzles.get(shown["id"])["solution"] is not None
        again = api.puzzles.retry(shown["id"])  # practice: the answer hidden again
        assert again["attempt"] is not None and again["attempt"]["mode"] == "practice"
        assert again["solution"] is None
        with pytest.raises(NotFound):
            api.puzzles.next()  # both tried

        dashboard = api.puzzles.dashboard()
        assert (dashboard["rated_attempts"], dashboard["solved"]) == (2, 1)
        assert api.puzzles.daily()["id"] in (str(flow.id), str(other.id))
        assert {"count", "results", "me"} <= set(api.puzzles.board(page=1))
        assert {"count", "results"} <= set(api.puzzles.board("streak"))
        assert {"count", "results"} <= set(api.puzzles.board("storm", period="day"))
        streak = api.puzzles.streak_start()
        assert streak["kind"] == "streak" and streak["state"] == "running"
        assert api.puzzles.streak()["id"] == streak["id"]
        # The streak holds one puzzle and the practice attempt another: a third for the storm.
        drawings.store(drawings.PATTERN_1221)
        storm = api.puzzles.storm_start()
        assert storm["kind"] == "storm" and storm["time_left_ms"] == 180_000
        assert api.puzzles.storm()["id"] == storm["id"]


async def test_the_async_puzzles_area_solves_and_fails(live: str) -> None:
    subset = await sync_to_async(drawings.store)(drawings.SUBSET)
    name = f"za{os.urandom(5).hex()}"
    async with AsyncClient(live) as api:
        await api.accounts.register(name, PASSWORD)
        await api.accounts.sign_in(name, PASSWORD)
        puzzle = await api.puzzles.next(theme="subset")
        assert puzzle["id"] == str(subset.id) and "subset" in puzzle["themes"]
        for x, y in drawings.solution_cells(subset):
            opened = await api.puzzles.open(puzzle["id"], x, y)
            assert opened["correct"] is True
        assert opened["puzzle"]["attempt"] is not None
        assert opened["puzzle"]["attempt"]["state"] == "solved"

        chain = await sync_to_async(drawings.store)(drawings.CHAIN)
        shown = await api.puzzles.get(str(chain.id))
        assert shown["solution"] is None and shown["depth"] is None
        wrong = await api.puzzles.open(shown["id"], *drawings.a_mine(chain))
        assert wrong["correct"] is False
        assert wrong["puzzle"]["attempt"] is not None
        assert wrong["puzzle"]["attempt"]["state"] == "failed"
        assert wrong["puzzle"]["solution"] and wrong["puzzle"]["depth"] is not None
        board = await api.puzzles.board(around="me")
        assert board["me"] is not None and board["me"]["player"] == name


def test_the_bot_command_solves_puzzles_and_ranks_on_the_bots_board(live: str) -> None:
    # The mines left (only the count proves the corner) and a chain of three numbers.
    for drawing in (drawings.MINES_LEFT, drawings.CHAIN):
        drawings.store(drawing)
    robot = User.objects.create_user(username="puzzlebot", password=None, kind="bot")
    env = {k: v for k, v in os.environ.items() if k != "DEMINEUR_TOKEN"}
    env["PYTHONPATH"] = str(SOURCE)  # this tree's client, whatever is installed
    env["DEMINEUR_TOKEN"] = token_issue(user=robot)[1]
    done = subprocess.run(
        [sys.executable, "-m", "demineur_client.bot", "--url", live, "--puzzles", "2"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if line.startswith("puzzle ")]
    assert [line.split()[1] for line in lines] == ["1/2", "2/2"]
    assert all(line.split()[3] == "solved" for line in lines), lines
    with Client(live) as api:
        bots = api.puzzles.board(players="bots")
        assert [(row["player"], row["solved"]) for row in bots["results"]] == [("puzzlebot", 2)]
        assert all(row["player"] != "puzzlebot" for row in api.puzzles.board()["results"])


def test_the_puzzle_solver_proves_exactly_the_servers_answer() -> None:
    """On positions the generator keeps from quick Beginner and Intermediate games: the
    solver's proof (the mines left counted) is the set of cells the server calls provable."""
    rng = random.Random(11)
    solver = PuzzleSolver()
    checked = 0
    for width, height, mines in ((9, 9, 10), (16, 16, 40)):
        for _ in range(12):
            layout, moves = drawings.quick_game(width, height, mines, rng)
            for spec in generator.candidates(
                width=width, height=height, layout=layout, moves=moves
            ):
                board = positions.rows_of(width, spec.view)
                answer = {(c % width, c // width) for c in spec.solution}
                safe, mined = solver._exact(board, spec.mines)
                assert safe == answer
                assert not mined & answer
                assert solver.decide(board, spec.mines).reveal <= answer
                checked += 1
    assert checked >= 10
    # The 2 shows both mines and the 1 beside them clears (1, 0); only the count clears the
    # corner: with a third mine somewhere it is that mine.
    corner = drawings.drawn(drawings.MINES_LEFT)
    board = positions.rows_of(corner.width, corner.view)
    assert PuzzleSolver().decide(board, corner.mines).reveal == {(0, 0), (1, 0)}
    three = PuzzleSolver().decide(board, corner.mines + 1)
    assert three.reveal == {(1, 0)} and (0, 0) in three.flag
