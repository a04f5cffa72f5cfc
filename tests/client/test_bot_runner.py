"""The bot runner of clients/python (demineur_client.bot) against the real server: a declared
bot plays solo games to their end with the deduction solver over the socket, two bots meet in
quick match and race, and a bot carries on when the server restarts under it."""

from __future__ import annotations

import asyncio
import threading
import uuid

from demineur_client import AsyncClient, BotRunner, DeductionSolver, RetryPolicy
from demineur_client.solver import constraints

from deploy.processes import free_port
from tests.support.personas import PASSWORD
from tests.support.uvicorn_pair import NEEDS_POSTGRES_AND_REDIS, uvicorn_servers


async def _bot(base: str, **options: object) -> AsyncClient:
    name = f"bot{uuid.uuid4().hex[:10]}"
    api = AsyncClient(base, **options)  # type: ignore[arg-type]
    await api.accounts.register(name, PASSWORD, kind="bot")
    await api.accounts.sign_in(name, PASSWORD)
    return api


def test_the_solver_deduces_from_the_numbers_alone() -> None:
    # The 1 in the corner touches one closed cell: a mine. The 1 beside it is then satisfied,
    # so its other closed neighbours are safe (the subset rule finds them).
    board = ["1#", "1#", "##"]
    assert constraints(board) == [
        (frozenset({(1, 0), (1, 1)}), 1),
        (frozenset({(1, 0), (1, 1), (0, 2), (1, 2)}), 1),
    ]
    decision = DeductionSolver().decide(board, mines=1)
    assert decision.reveal == {(0, 2), (1, 2)} and not decision.flag
    # Nothing provable: the least likely cell is guessed, never a sure mine.
    assert DeductionSolver().decide(["##", "##"], mines=1).guess == (0, 0)
    # The count of mines left decides what the numbers cannot.
    assert DeductionSolver().decide(["##", "##"], mines=0).reveal == {
        (0, 0),
        (1, 0),
        (0, 1),
        (1, 1),
    }
    full = DeductionSolver().decide(["##", "##"], mines=4)
    assert len(full.flag) == 4 and not full.reveal and full.guess is None
    # An end of Beginner where nine mines are proved and a 50/50 is left: the guess is one of
    # the two, never a proved mine (a bot that only knew how to reveal stopped here).
    end = ["111112###", "#22#23#31", "2#212#210", "221011100", "#21001110", "2#1001#10",
           "111001110", "000000000", "000000000"]  # fmt: skip
    decision = DeductionSolver().decide(end, mines=10)
    assert not decision.reveal and len(decision.flag) == 9
    assert decision.guess in {(7, 0), (8, 0)}


async def test_a_bot_plays_solo_games_to_their_end(live: str) -> None:
    api = await _bot(live)
    async with api:
        runner = BotRunner(api)
        results = [await runner.play_solo("beginner") for _ in range(3)]
        assert all(r.state in ("won", "lost") for r in results)
        assert all(r.moves >= 1 for r in results)
        me = await api.accounts.me()
        assert me["kind"] == "bot" and me["stats"]["beginner"]["played"] == 3


async def test_two_bots_meet_in_quick_match_and_race(live: str, race_clock: object) -> None:
    first, second = await _bot(live), await _bot(live)
    async with first, second:
        results = await asyncio.wait_for(
            asyncio.gather(
                BotRunner(first).play_race("beginner"), BotRunner(second).play_race("beginner")
            ),
            timeout=60,
        )
        assert all(r.state in ("won", "lost") for r in results)
        games = [await first.games.get(r.game_id) for r in results]
        assert games[0]["race"] is not None and games[0]["race"] == games[1]["race"]
        race = await first.races.get(games[0]["race"])
        assert race["state"] == "finished"


@NEEDS_POSTGRES_AND_REDIS
async def test_a_bot_carries_on_when_the_server_restarts(transactional_db: object) -> None:
    """A uvicorn process on the test database is stopped (SIGTERM) while the bot plays, and
    another one started on the same port: the bot finishes the same game. (Processes, not
    threads: the layouts are not seeded, which the served settings refuse with DEBUG off.)"""
    port = free_port()
    ready, stop_now, stopped, finished = (threading.Event() for _ in range(4))
    failures: list[BaseException] = []

    def serve() -> None:
        try:
            with uvicorn_servers((port,)):
                ready.set()
                stop_now.wait(timeout=60)
            stopped.set()
            with uvicorn_servers((port,)):
                finished.wait(timeout=90)
        except BaseException as exc:  # shown by the test, not lost in the thread
            failures.append(exc)
            ready.set()

    serving = threading.Thread(target=serve, daemon=True)
    serving.start()
    base = f"http://127.0.0.1:{port}"
    await asyncio.to_thread(ready.wait, 60)
    assert not failures, failures
    api = await _bot(base, retry=RetryPolicy(retries=8, backoff=0.2, max_sleep=2))
    moves = 0

    def count(action: str, x: int, y: int) -> None:
        nonlocal moves
        moves += 1
        if moves == 3:
            stop_now.set()

    try:
        async with api:
            runner = BotRunner(api, restart_wait=0.3, receive_timeout=5, on_move=count)
            # A game lost on a guess before its third move never saw the restart: play again.
            for _ in range(5):
                moves = 0
                result = await asyncio.wait_for(runner.play_solo("intermediate"), timeout=90)
                if stop_now.is_set():
                    break
            assert stopped.is_set()  # the first server went away mid-game
            assert result.state in ("won", "lost")
            assert moves > 3  # and the bot played that game on against the second one
            game = await api.games.get(result.game_id)
            assert game["state"] == result.state and game["seq"] > 3
    finally:
        stop_now.set()
        finished.set()
        await asyncio.to_thread(serving.join, 30)
