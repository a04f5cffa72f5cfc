"""A bot runner: a declared bot account (API.md: `kind: "bot"`) plays solo games and
quick-match races with a Solver (solver.py), over the socket, and carries on after the
server restarts (the client retries what is safe to retry, the socket reconnects and
re-reads the state).

    DEMINEUR_TOKEN=KEY python -m demineur_client.bot --url http://127.0.0.1:8000 --games 5
    python -m demineur_client.bot --url ... --token-file ~/.config/demineur/token --race
    python -m demineur_client.bot --url ... --puzzles 20 --theme pattern

The token is read from the environment variable DEMINEUR_TOKEN or from a file
(`--token-file PATH`, `-` for standard input), never from the command line: every local user
can read a process's arguments (`ps`), so `--token KEY` is refused.

Plugging in your own solver: any object with `decide(board, mines) -> Decision`, passed as
`BotRunner(api, solver=MySolver())` (README.md); for puzzles, `puzzle_solver=`, whose
`guess` is never played."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

from .aio import AsyncClient
from .errors import Conflict, NotFound, TransportError, Unavailable
from .sockets import GameSocket, RaceSocket
from .solver import Decision, DeductionSolver, PuzzleSolver, Solver
from .types import Game, Puzzle

log = logging.getLogger("demineur_client.bot")


@dataclass
class Result:
    game_id: str
    state: str
    elapsed_ms: int
    moves: int


@dataclass
class PuzzleResult:
    """`state`: solved, failed, or playing when the solver could prove nothing more (the
    attempt is left in play rather than lost on a guess)."""

    puzzle_id: str
    state: str
    openings: int
    rating_before: int | None
    rating_after: int | None


class BoardView:
    """The board as the bot knows it: the last Game's `board`, patched by each move's changes."""

    def __init__(self, game: Game) -> None:
        self.load(game)

    def load(self, game: Game) -> None:
        self.width, self.height, self.mines = game["width"], game["height"], game["mines"]
        board = game.get("board")
        self.rows = (
            [list(r) for r in board] if board else [["#"] * self.width for _ in range(self.height)]
        )
        self.state = game.get("state", "new")

    def apply(self, frame: dict[str, Any]) -> None:
        for change in frame.get("changes", []):
            self.rows[change["y"]][change["x"]] = change["v"]
        self.state = frame.get("state", self.state)

    def strings(self) -> list[str]:
        return ["".join(r) for r in self.rows]


class BotRunner:
    def __init__(
        self,
        api: AsyncClient,
        *,
        solver: Solver | None = None,
        restart_wait: float = 1.0,
        restarts: int = 30,
        receive_timeout: float = 30.0,
        on_move: Callable[[str, int, int], None] | None = None,
        puzzle_solver: Solver | None = None,
    ) -> None:
        self.api = api
        self.solver = solver or DeductionSolver()
        self.puzzle_solver = puzzle_solver or PuzzleSolver()
        self.restart_wait = restart_wait
        self.restarts = restarts
        # A socket silent this long is taken for dead (a server gone without closing it) and
        # opened again; the state it sends on connect says where the game stands.
        self.receive_timeout = receive_timeout
        self.on_move = on_move

    async def _patiently(self, make: Callable[[], Any]) -> Any:
        """Runs a coroutine again while the server is away (restarting) or unavailable."""
        for attempt in range(self.restarts):
            try:
                return await make()
            except (TransportError, Unavailable) as exc:
                log.info("server away (%s), again in %.1f s", exc, self.restart_wait)
                await asyncio.sleep(self.restart_wait * min(attempt + 1, 5))
        return await make()

    async def play_solo(self, level: str, *, no_guess: bool = False) -> Result:
        game = await self._patiently(lambda: self.api.games.create(level, no_guess=no_guess))
        return await self.play_game(game)

    async def play_game(self, game: Game) -> Result:
        """Plays one game to its end over the socket (the game may be new or already opened).
        It decides again only once every move it sent has been answered, so it never sends
        the same cell twice nor outruns the socket's message budget."""
        view = BoardView(game)
        sent = 0
        pending: set[str] = set()
        socket = GameSocket(
            self.api, game["id"], reconnects=self.restarts, receive_timeout=self.receive_timeout
        )
        try:
            if view.state == "new":
                pending.add(await self._move(socket, "reveal", view.width // 2, view.height // 2))
                sent += 1
            async for frame in socket.frames():
                kind = frame.get("type")
                pending.discard(str(frame.get("client_move_id", "")))
                if kind in ("state", "ended", "resumed") and isinstance(frame.get("game"), dict):
                    view.load(frame["game"])
                    if kind == "state":
                        pending.clear()  # after a reconnect or a gap: decide from the state
                elif kind == "move" and not frame.get("replayed"):
                    view.apply(frame)
                if socket.over or view.state in ("won", "lost"):
                    break
                if pending:
                    continue
                if view.state == "paused":
                    await self._patiently(lambda: self.api.games.resume(game["id"]))
                    continue
                for x, y in self._next_cells(view):
                    pending.add(await self._move(socket, "reveal", x, y))
                    sent += 1
        finally:
            await socket.close()
        final = await self._patiently(lambda: self.api.games.get(game["id"]))
        return Result(game["id"], final["state"], final.get("elapsed_ms", 0), sent)

    def _next_cells(self, view: BoardView, batch: int = 20) -> list[tuple[int, int]]:
        decision: Decision = self.solver.decide(view.strings(), view.mines)
        cells = sorted(decision.reveal)[:batch]
        return cells or ([decision.guess] if decision.guess else [])

    async def _move(self, socket: GameSocket, action: str, x: int, y: int) -> str:
        if self.on_move:
            self.on_move(action, x, y)
        return await socket.send(action, x, y)

    async def play_race(self, level: str, *, no_guess: bool = False, poll: float = 0.5) -> Result:
        """Quick match: waits in the queue until matched, readies, plays its race game."""
        place = await self._patiently(lambda: self.api.races.queue(level, no_guess=no_guess))
        while place.get("state") != "matched" or not place.get("race"):
            await asyncio.sleep(poll)
            place = await self._patiently(lambda: self.api.races.queue_place())
        race = place["race"]
        assert race is not None
        me = (await self.api.accounts.me())["username"]
        with contextlib.suppress(Conflict):  # already counting down or running
            await self.api.races.ready(race["id"])
        async for frame in RaceSocket(self.api, race["id"], reconnects=self.restarts).frames():
            # Whole-race frames carry the Race; each racer's game appears once it started.
            for racer in (frame.get("race") or {}).get("racers", []):
                if racer.get("player") == me and racer.get("game"):
                    return await self.play_game(await self.api.games.get(racer["game"]))
        raise RuntimeError(f"race {race['id']} ended before this bot's game started")

    async def play_puzzle(self, *, theme: str | None = None) -> PuzzleResult:
        """The next puzzle near the bot's puzzle rating (`theme` among its themes), solved.
        Raises NotFound when none is left to try."""
        puzzle = await self._patiently(lambda: self.api.puzzles.next(theme))
        return await self.solve_puzzle(puzzle)

    async def solve_puzzle(self, puzzle: Puzzle) -> PuzzleResult:
        """Opens, one at a time, a cell the puzzle solver proves safe from the board as it
        stands (each opening shows a number that may prove more) and the count of mines left,
        until the attempt ends. Never a guess: an unproved opening fails a puzzle even when
        the cell is safe (RULES.md, Puzzles)."""
        openings = 0
        puzzle_id = puzzle["id"]
        while _attempt_state(puzzle) == "playing":
            decision = self.puzzle_solver.decide(puzzle["board"], puzzle["mines_left"])
            if not decision.reveal:
                break
            # A cell proved safe stays proved as numbers appear: open every one of them (those
            # a cascade has not opened meanwhile) before asking the solver again.
            for x, y in sorted(decision.reveal, key=lambda cell: (cell[1], cell[0])):
                if _attempt_state(puzzle) != "playing" or puzzle["board"][y][x] != "#":
                    continue
                if self.on_move:
                    self.on_move("open", x, y)
                try:
                    opened = await self._patiently(partial(self.api.puzzles.open, puzzle_id, x, y))
                    puzzle = opened["puzzle"]
                except Conflict as refused:
                    # An opening whose answer was lost may have been taken: read where it is.
                    if refused.code not in ("cell_open", "attempt_over"):
                        raise
                    puzzle = await self._patiently(partial(self.api.puzzles.get, puzzle_id))
                openings += 1
        attempt = puzzle.get("attempt") or {}
        return PuzzleResult(
            puzzle_id,
            _attempt_state(puzzle),
            openings,
            attempt.get("rating_before"),
            attempt.get("rating_after"),
        )


def _attempt_state(puzzle: Puzzle) -> str:
    """A puzzle shown to a signed-in player carries their attempt, `playing` until it ends."""
    attempt = puzzle.get("attempt")
    return attempt.get("state", "playing") if attempt else "playing"


TOKEN_ENV = "DEMINEUR_TOKEN"
TOKEN_ON_THE_COMMAND_LINE = (
    "--token is refused: a token on the command line can be read by every local user (ps). "
    f"Set {TOKEN_ENV} in the environment or pass --token-file PATH (- for standard input)."
)
NO_TOKEN = f"no API token: set {TOKEN_ENV} in the environment or pass --token-file PATH."


class TokenError(ValueError):
    """No usable token: the message says where to put one (it never repeats a token)."""


def read_token(token_file: str | None, environ: Mapping[str, str]) -> str:
    """The API token: from `token_file` when given (its first line; `-` reads standard
    input), else from the environment variable DEMINEUR_TOKEN."""
    if token_file is not None:
        try:
            if token_file == "-":
                text = sys.stdin.readline()
            else:
                with open(os.path.expanduser(token_file), encoding="utf-8") as handle:
                    text = handle.readline()
        except OSError as exc:
            raise TokenError(f"cannot read the token file {token_file}: {exc.strerror}") from None
        token = text.strip()
        if not token:
            raise TokenError(f"the token file {token_file} is empty")
        return token
    token = environ.get(TOKEN_ENV, "").strip()
    if not token:
        raise TokenError(NO_TOKEN)
    return token


async def _main(args: argparse.Namespace, token: str) -> None:
    async with AsyncClient(args.url, token=token) as api:
        runner = BotRunner(api)
        games = args.games if args.games is not None else 0 if args.puzzles else 1
        for number in range(games):
            if args.race:
                result = await runner.play_race(args.level, no_guess=args.no_guess)
            else:
                result = await runner.play_solo(args.level, no_guess=args.no_guess)
            print(
                f"{number + 1}/{games} {result.game_id} {result.state} {result.elapsed_ms} ms {result.moves} moves",
                flush=True,
            )
        for number in range(args.puzzles):
            try:
                solved = await runner.play_puzzle(theme=args.theme)
            except NotFound:
                print(f"puzzle {number + 1}/{args.puzzles}: none left to try", flush=True)
                break
            print(
                f"puzzle {number + 1}/{args.puzzles} {solved.puzzle_id} {solved.state} "
                f"{solved.openings} openings rating {solved.rating_before} -> {solved.rating_after}",
                flush=True,
            )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description="Play Démineur, or solve its puzzles, with a deduction solver.",
        epilog=f"The API token of a bot account comes from {TOKEN_ENV} or --token-file.",
        allow_abbrev=False,
    )
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument(
        "--token-file",
        metavar="PATH",
        help=f"read the API token from this file's first line (- for standard input); "
        f"without it, from the environment variable {TOKEN_ENV}",
    )
    # Still parsed, only to refuse it with a message that says where the token goes now.
    parser.add_argument("--token", help=argparse.SUPPRESS)
    parser.add_argument("--level", default="beginner")
    parser.add_argument(
        "--games", type=int, default=None, help="games to play (default 1, 0 with --puzzles)"
    )
    parser.add_argument(
        "--race", action="store_true", help="quick-match races instead of solo games"
    )
    parser.add_argument("--no-guess", action="store_true")
    parser.add_argument(
        "--puzzles",
        type=int,
        default=0,
        metavar="N",
        help="then solve N puzzles (the next near the bot's puzzle rating), opening only "
        "what the numbers and the mines left prove safe",
    )
    parser.add_argument("--theme", help="the puzzles' theme: single, subset, pattern, ...")
    args = parser.parse_args(argv)
    if args.token is not None:
        parser.error(TOKEN_ON_THE_COMMAND_LINE)
    try:
        token = read_token(args.token_file, os.environ)
    except TokenError as missing:
        parser.error(str(missing))
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    asyncio.run(_main(args, token))


if __name__ == "__main__":
    main()
