"""A bot runner: a declared bot account (API.md: `kind: "bot"`) plays solo games, quick-match
races and arenas with a Solver (solver.py), over the socket, and carries on after the server
restarts (the client retries what is safe to retry, the socket reconnects and re-reads the
state).

    DEMINEUR_TOKEN=KEY demineur-bot --config bot.toml          # bot_config.py: the file
    DEMINEUR_TOKEN=KEY python -m demineur_client.bot --url http://127.0.0.1:8000 --games 5
    python -m demineur_client.bot --url ... --token-file ~/.config/demineur/token --race
    python -m demineur_client.bot --url ... --puzzles 20 --theme pattern

The token is read from an environment variable (DEMINEUR_TOKEN, or the one the config file
names) or from a file (`--token-file PATH`, `-` for standard input), never from the command
line: every local user can read a process's arguments (`ps`), so `--token KEY` is refused.

Quiet by default: one line per game, and warnings; `--verbose` adds each HTTP request. The
first SIGINT or SIGTERM lets the game in play finish and then stops (leaving the queue or the
arena); a second one resigns that game (and leaves them) and stops at once. Sockets are closed either way.

Plugging in your own solver: any object with `decide(board, mines) -> Decision`, passed as
`BotRunner(api, solver=MySolver())` or named in the config file (`package.module:Class`;
README.md); for puzzles, `puzzle_solver=`, whose `guess` is never played."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import signal
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

from .aio import AsyncClient
from .bot_config import BotConfig, ConfigError, check, load_config, load_solver
from .errors import Conflict, NotFound, TransportError, Unavailable
from .sockets import GameSocket, RaceSocket
from .solver import Decision, DeductionSolver, PuzzleSolver, Solver
from .types import Arena, Game, Puzzle

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


class Stopped(Exception):
    """The runner was asked to stop (`BotRunner.stop`) while it waited for a game."""


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
        self.stopping = asyncio.Event()
        self.current_game: str | None = None  # the game being played, to resign on a stop
        # Where it waits for its next race, to leave on a stop: the queue, or an arena's id.
        self.queued = False
        self.current_arena: str | None = None

    def stop(self) -> None:
        """Ends what the runner waits for (a match, an arena's next race) and lets the game in
        play finish; the loops that play game after game stop before the next one."""
        self.stopping.set()

    async def _pause(self, seconds: float) -> bool:
        """Waits `seconds`, or less when a stop is asked: True when stopping."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.stopping.wait(), seconds)
        return self.stopping.is_set()

    async def abandon(self) -> None:
        """Resigns the game in play, if any, and leaves the queue or the arena it is in (the
        runner was told to stop at once): others are not paired with a bot that is gone."""
        game_id, self.current_game = self.current_game, None
        if game_id is not None:
            with contextlib.suppress(Conflict, NotFound):  # it ended meanwhile
                await self.api.games.resign(game_id)
                log.warning("resigned %s", game_id)
        await self._leave()

    async def _leave(self) -> None:
        with contextlib.suppress(Conflict, NotFound):  # matched, or the arena ended meanwhile
            if self.queued:
                await self.api.races.queue_leave()
            if self.current_arena is not None:
                await self.api.arenas.leave(self.current_arena)
        self.queued, self.current_arena = False, None

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
        self.current_game = game["id"]
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
        self.current_game = None
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
        """Quick match: waits in the queue until matched, readies, plays its race game. A
        stop asked while it waits leaves the queue and raises Stopped."""
        place = await self._patiently(lambda: self.api.races.queue(level, no_guess=no_guess))
        self.queued = True
        while place.get("state") != "matched" or not place.get("race"):
            if await self._pause(poll):
                await self._leave()
                raise Stopped
            place = await self._patiently(lambda: self.api.races.queue_place())
        self.queued = False
        race = place["race"]
        assert race is not None
        me = (await self.api.accounts.me())["username"]
        with contextlib.suppress(Conflict):  # already counting down or running
            await self.api.races.ready(race["id"])
        game = await self._race_game(race["id"], me)
        if game is None:
            raise RuntimeError(f"race {race['id']} ended before this bot's game started")
        return await self.play_game(game)

    async def _race_game(self, race_id: str, me: str) -> Game | None:
        """This bot's game in the race, once the race has started (None if it ended first)."""
        socket = RaceSocket(self.api, race_id, reconnects=self.restarts)
        try:
            async for frame in socket.frames():
                # Whole-race frames carry the Race; each racer's game appears once it started.
                race = frame.get("race") or {}
                for racer in race.get("racers", []):
                    if racer.get("player") == me and racer.get("game"):
                        return await self.api.games.get(racer["game"])
        finally:
            await socket.close()
        return None

    async def find_arena(self, ref: str) -> Arena:
        """An arena by its id or its code (as `Q4T7WZ`)."""
        if len(ref) > 12:  # an id (a uuid); codes are short
            found: Arena = await self._patiently(lambda: self.api.arenas.get(ref))
        else:
            found = await self._patiently(lambda: self.api.arenas.by_code(ref))
        return found

    async def play_arena(
        self,
        ref: str,
        *,
        races: int = 0,
        poll: float = 0.5,
        on_result: Callable[[Result], None] | None = None,
    ) -> list[Result]:
        """Joins the arena (`ref`: its id or code) and plays each race the server puts this bot
        in, until the arena ends, `races` were played (0: no limit) or a stop is asked; then
        leaves it, unless it has ended."""
        arena = await self.find_arena(ref)
        try:
            arena = await self._patiently(lambda: self.api.arenas.join(arena["id"]))
        except Conflict as closed:
            log.warning("arena %s: %s", arena.get("code"), closed)
            return []
        self.current_arena = arena["id"]
        me = (await self.api.accounts.me())["username"]
        played: set[str] = set()
        results: list[Result] = []
        while arena.get("state") != "finished" and not self.stopping.is_set():
            race_id = (arena.get("me") or {}).get("race")
            if race_id and race_id not in played:
                played.add(race_id)
                game = await self._race_game(race_id, me)
                if game is not None:
                    results.append(await self.play_game(game))
                    if on_result:
                        on_result(results[-1])
                if races and len(results) >= races:
                    break
            elif await self._pause(poll):
                break
            arena = await self._patiently(partial(self.api.arenas.get, arena["id"]))
        if arena.get("state") == "finished":
            self.current_arena = None
        await self._leave()
        return results

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
    f"Set {TOKEN_ENV} (or the variable the config file names in server.token_env) in the "
    "environment or pass --token-file PATH (- for standard input)."
)


class TokenError(ValueError):
    """No usable token: the message says where to put one (it never repeats a token)."""


def read_token(
    token_file: str | None, environ: Mapping[str, str], variable: str = TOKEN_ENV
) -> str:
    """The API token: from `token_file` when given (its first line; `-` reads standard
    input), else from the environment variable `variable` (DEMINEUR_TOKEN unless the config
    file names another)."""
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
    token = environ.get(variable, "").strip()
    if not token:
        raise TokenError(
            f"no API token: set {variable} in the environment or pass --token-file PATH."
        )
    return token


def _report(line: str) -> None:
    print(line, flush=True)


def _result_line(head: str, result: Result, level: str = "") -> str:
    line = f"{head} {result.game_id} {result.state} {result.elapsed_ms} ms {result.moves} moves"
    return f"{line} {level}" if level else line


async def play(
    config: BotConfig,
    runner: BotRunner,
    *,
    games: int | None = None,
    puzzles: int = 0,
    theme: str | None = None,
    report: Callable[[str], None] = _report,
) -> None:
    """What `config` asks for, one reported line per game: `games` of its mode (None: the
    config's count; 0: until stopped; negative: none), then `puzzles` puzzles. Stops before the next game
    once `runner.stop()` was called."""
    count = config.how_many() if games is None else games
    if config.mode == "arena":
        assert config.arena is not None
        await runner.play_arena(
            config.arena,
            races=count,
            on_result=lambda r: report(_result_line(f"arena {config.arena}", r)),
        )
    else:
        number = 0
        while (count == 0 or number < count) and count >= 0 and not runner.stopping.is_set():
            level = config.level(number)
            if config.mode == "quick":
                result = await runner.play_race(level, no_guess=config.no_guess)
            else:
                result = await runner.play_solo(level, no_guess=config.no_guess)
            number += 1
            report(_result_line(f"{number}/{count or '-'}", result, level))
    for number in range(puzzles):
        if runner.stopping.is_set():
            break
        try:
            solved = await runner.play_puzzle(theme=theme)
        except NotFound:
            report(f"puzzle {number + 1}/{puzzles}: none left to try")
            break
        report(
            f"puzzle {number + 1}/{puzzles} {solved.puzzle_id} {solved.state} "
            f"{solved.openings} openings rating {solved.rating_before} -> {solved.rating_after}"
        )


def stop_on_signals(runner: BotRunner, task: asyncio.Task[Any]) -> None:
    """SIGINT and SIGTERM: the first lets the game in play finish, then stops; the second
    cancels `task` (the caller resigns the game in play, `BotRunner.abandon`)."""
    loop = asyncio.get_running_loop()

    def on_signal(number: int) -> None:
        name = signal.Signals(number).name
        if not runner.stopping.is_set():
            log.warning("%s: stopping after the game in play (again to resign it now)", name)
            runner.stop()
        else:
            log.warning("%s: stopping now", name)
            task.cancel()

    for number in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(number, on_signal, number)


async def _main(
    config: BotConfig,
    token: str,
    solver: Solver,
    *,
    games: int | None,
    puzzles: int,
    theme: str | None,
) -> None:
    task = asyncio.current_task()
    assert task is not None
    async with AsyncClient(config.url, token=token) as api:
        runner = BotRunner(api, solver=solver)
        stop_on_signals(runner, task)
        try:
            await play(config, runner, games=games, puzzles=puzzles, theme=theme)
        except Stopped:
            pass
        except asyncio.CancelledError:
            task.uncancel()
            await runner.abandon()
        if runner.stopping.is_set():
            log.warning("stopped")


def _config(args: argparse.Namespace) -> BotConfig:
    """The config file's settings (or the defaults), with the options given on the command
    line in their place."""
    config = load_config(args.config) if args.config else BotConfig()
    if args.url:
        config.url = args.url
    if args.level:
        config.levels = [args.level]
    if args.race:
        config.mode = "quick"
    if args.arena:
        config.mode, config.arena = "arena", args.arena
    if args.no_guess:
        config.no_guess = True
    if args.solver:
        config.solver = args.solver
    check(config)
    return config


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description="Play Démineur (solo, quick match, arenas), or solve its puzzles, "
        "with a deduction solver or yours.",
        epilog=f"The API token of a bot account comes from {TOKEN_ENV} (or the variable the "
        "config file names) or --token-file.",
        allow_abbrev=False,
    )
    parser.add_argument(
        "--config",
        "-c",
        metavar="FILE",
        help="a TOML file: [server] url, token_env; [bot] mode, levels, no_guess, games, "
        "arena, solver (the options below take its place)",
    )
    parser.add_argument("--url", help="the server (default http://127.0.0.1:8000)")
    parser.add_argument(
        "--token-file",
        metavar="PATH",
        help=f"read the API token from this file's first line (- for standard input); "
        f"without it, from the environment variable {TOKEN_ENV}",
    )
    # Still parsed, only to refuse it with a message that says where the token goes now.
    parser.add_argument("--token", help=argparse.SUPPRESS)
    parser.add_argument("--level", help="the level of every game (default beginner)")
    parser.add_argument(
        "--games",
        type=int,
        default=None,
        help="games to play (default 1; 0: none, as with --puzzles alone), in place of the "
        "config file's games (where 0 is until stopped)",
    )
    parser.add_argument(
        "--race", action="store_true", help="quick-match races instead of solo games"
    )
    parser.add_argument("--arena", metavar="ID_OR_CODE", help="join this arena, play its races")
    parser.add_argument("--no-guess", action="store_true")
    parser.add_argument("--solver", metavar="MODULE:CLASS", help="the solver, by import path")
    parser.add_argument(
        "--puzzles",
        type=int,
        default=0,
        metavar="N",
        help="then solve N puzzles (the next near the bot's puzzle rating), opening only "
        "what the numbers and the mines left prove safe",
    )
    parser.add_argument("--theme", help="the puzzles' theme: single, subset, pattern, ...")
    parser.add_argument(
        "--verbose", "-v", action="store_true", help="log every HTTP request and socket event"
    )
    args = parser.parse_args(argv)
    if args.token is not None:
        parser.error(TOKEN_ON_THE_COMMAND_LINE)
    try:
        config = _config(args)
        solver = load_solver(config.solver)  # refused before any request, not after
        token = read_token(args.token_file, os.environ, config.token_env)
    except (ConfigError, TokenError) as refused:
        parser.error(str(refused))
    # On the command line --games 0 plays none (before puzzles), as it always has; so does
    # --puzzles alone without a config file. The file's `games = 0` is until stopped.
    games: int | None = None  # the config's count
    if args.games is not None:
        games = args.games if args.games > 0 else -1
    elif args.puzzles and not args.config:
        games = -1
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    if not args.verbose:
        # httpx logs each request at INFO: a line per move would drown the line per game.
        for noisy in ("httpx", "httpcore", "websockets"):
            logging.getLogger(noisy).setLevel(logging.WARNING)
    asyncio.run(_main(config, token, solver, games=games, puzzles=args.puzzles, theme=args.theme))


if __name__ == "__main__":
    main()
