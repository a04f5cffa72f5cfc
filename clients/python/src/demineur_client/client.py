"""The synchronous client: `Client(base_url, token=...)`, one attribute per area of API.md
(accounts, tokens, users, games, leaderboards, races, arenas, daily, puzzles, streams). Every
method sends one Call (calls.py) through `Client.send`, which retries 429/503 with back-off honouring
Retry-After and gives every request a default timeout."""

from __future__ import annotations

import builtins
import time
from collections.abc import Iterator
from typing import Any, TypeVar, Unpack

import httpx

from . import calls
from . import types as t
from ._base import Area, Areas, BaseClient, StreamsArea, found_by_code
from ._transport import Call, Retry, refusal, settle
from .calls import ExportFilters, SignInOptions
from .streams import Followed

T = TypeVar("T")
USER_AGENT = "demineur-client/0.1 (sync)"


class Accounts(Area["Client"]):
    def register(
        self, username: str, password: str, *, kind: str = "human", email: str | None = None
    ) -> t.Account:
        return self._client.send(calls.register(username, password, kind=kind, email=email))

    def sign_in(self, username: str, password: str, **options: Unpack[SignInOptions]) -> str:
        """Obtains a token (with `scopes`, else all four) and keeps it for the next requests."""
        self._client.token = self._client.send(calls.sign_in(username, password, **options))
        return self._client.token

    def sign_out(self) -> None:
        """Revokes the client's token (its sockets close)."""
        self._client.send(calls.sign_out())
        self._client.token = None

    def me(self) -> t.Profile:
        return self._client.send(calls.me())

    def become_bot(self) -> t.Profile:
        return self._client.send(calls.become_bot())


class Tokens(Area["Client"]):
    def list(self) -> builtins.list[t.Token]:
        return self._client.send(calls.tokens())

    def create(self, name: str, *, scopes: builtins.list[str] | None = None) -> t.Token:
        """A named token; `scopes` (API.md, Token scopes): without it, all four."""
        return self._client.send(calls.token_create(name, scopes))

    def test(self, keys: builtins.list[str]) -> dict[str, Any]:
        return self._client.send(calls.token_test(keys))

    def revoke(self, token_id: int) -> None:
        self._client.send(calls.token_revoke(token_id))


class Users(Area["Client"]):
    def get(self, username: str) -> t.Profile:
        return self._client.send(calls.user(username))


class Games(Area["Client"]):
    def create(self, level: str | None = None, **board: Any) -> t.Game:
        """`create("expert")`, `create(width=.., height=.., mines=..)`, `no_guess=True`."""
        return self._client.send(calls.game_create(level, **board))

    def get(self, game_id: str) -> t.Game:
        return self._client.send(calls.game(game_id))

    def list(self, **filters: Any) -> t.Page:
        """filters: state, level, user, page, page_size."""
        return self._client.send(calls.games(**filters))

    def iter(self, **filters: Any) -> Iterator[t.Game]:
        """Every game the filters select, page after page (`page_size` up to 200)."""
        return self._client.pages(calls.games(**filters))  # type: ignore[return-value]

    def iter_mine(self, **filters: Any) -> Iterator[t.Game]:
        """The signed-in player's games (filters as `iter`: state, level, page_size)."""
        return self.iter(user=self._client.accounts.me()["username"], **filters)

    def iter_moves(self, game_id: str, *, page_size: int = 200) -> Iterator[t.Move]:
        """Every move of the game in order, past the first page's 200 too."""
        return self._client.pages(calls.moves_pages(game_id, page_size=page_size))  # type: ignore[return-value]

    def export(self, username: str, **filters: Unpack[ExportFilters]) -> Iterator[dict[str, Any]]:
        """The player's ended games as the export gives them, one Game at a time (filters:
        level, mode, since)."""
        return self._client.streams.games_export(username, **filters)

    def reveal(self, game_id: str, x: int, y: int, **options: Any) -> t.MoveResult:
        return self._client.send(calls.move(game_id, "reveal", x, y, **options))

    def flag(self, game_id: str, x: int, y: int, **options: Any) -> t.MoveResult:
        return self._client.send(calls.move(game_id, "flag", x, y, **options))

    def chord(self, game_id: str, x: int, y: int, **options: Any) -> t.MoveResult:
        return self._client.send(calls.move(game_id, "chord", x, y, **options))

    def pause(self, game_id: str) -> t.Game:
        return self._client.send(calls.game_action(game_id, "pause"))

    def resume(self, game_id: str) -> t.Game:
        return self._client.send(calls.game_action(game_id, "resume"))

    def resign(self, game_id: str) -> t.Game:
        return self._client.send(calls.game_action(game_id, "resign"))

    def moves(self, game_id: str, *, page: int = 1) -> builtins.list[t.Move]:
        return self._client.send(calls.moves(game_id, page=page))


class Leaderboards(Area["Client"]):
    def get(self, level: str, board: str = "times", **params: Any) -> t.Page:
        """board: times, speed, streaks or races; params as API.md (period, sort, players,
        mode, page, page_size, around="me")."""
        return self._client.send(calls.leaderboard(level, board, **params))

    def iter(self, level: str, board: str = "times", **params: Any) -> Iterator[dict[str, Any]]:
        """Every row of the board, page after page."""
        return self._client.pages(calls.leaderboard(level, board, **params))


class Daily(Area["Client"]):
    """The daily challenge (API.md, Daily challenge): one board a day per level for everyone."""

    def today(self) -> dict[str, Any]:
        return self._client.send(calls.daily_day())

    def day(self, day: str) -> dict[str, Any]:
        return self._client.send(calls.daily_day(day))

    def start(self, level: str) -> t.Game:
        return self._client.send(calls.daily_start(level))

    def practice(self, day: str, level: str) -> t.Game:
        return self._client.send(calls.daily_practice(day, level))

    def board(self, level: str, **params: Any) -> t.Page:
        """params: date, page, page_size, players, around="me"."""
        return self._client.send(calls.leaderboard(level, "daily", **params))

    def iter_board(self, level: str, **params: Any) -> Iterator[dict[str, Any]]:
        return self._client.pages(calls.leaderboard(level, "daily", **params))

    def calendar(
        self, username: str, *, since: str | None = None, until: str | None = None
    ) -> dict[str, Any]:
        return self._client.send(calls.daily_calendar(username, since=since, until=until))


class Puzzles(Area["Client"]):
    """Puzzles (API.md, Puzzles; docs/PUZZLES.md): positions from real games, opened one safe
    cell at a time. The answer (`solution`) and the source game stay None until the attempt
    has ended."""

    def next(self, theme: str | None = None) -> t.Puzzle:
        """A puzzle near the player's puzzle rating they have not tried (`theme`: single,
        subset, pattern, chain, mines_left); the same one until it is played out."""
        return self._client.send(calls.puzzle_next(theme))

    def daily(self) -> t.Puzzle:
        return self._client.send(calls.puzzle_daily())

    def get(self, puzzle_id: str) -> t.Puzzle:
        return self._client.send(calls.puzzle(puzzle_id))

    def open(self, puzzle_id: str, x: int, y: int) -> t.PuzzleOpened:
        """`correct` when the numbers open now (and the mines left) proved the cell safe; any
        other opening fails the attempt."""
        return self._client.send(calls.puzzle_open(puzzle_id, x, y))

    def retry(self, puzzle_id: str) -> t.Puzzle:
        """A new attempt, practice, once the last one has ended."""
        return self._client.send(calls.puzzle_retry(puzzle_id))

    def dashboard(self) -> dict[str, Any]:
        return self._client.send(calls.puzzle_dashboard())

    def board(self, board: str = "rating", **params: Any) -> t.Page:
        """board: rating, streak or storm; params: page, page_size, players ("bots"),
        around="me", and the storm's period ("all", "day") and date."""
        return self._client.send(calls.puzzle_board(board, **params))

    def iter_board(self, board: str = "rating", **params: Any) -> Iterator[dict[str, Any]]:
        return self._client.pages(calls.puzzle_board(board, **params))

    def streak(self) -> t.PuzzleRun:
        """The running streak, else the last one."""
        return self._client.send(calls.puzzle_run("streak"))

    def streak_start(self) -> t.PuzzleRun:
        return self._client.send(calls.puzzle_run_start("streak"))

    def storm(self) -> t.PuzzleRun:
        """The running storm, else the last one (reading it once its time is up ends it)."""
        return self._client.send(calls.puzzle_run("storm"))

    def storm_start(self) -> t.PuzzleRun:
        return self._client.send(calls.puzzle_run_start("storm"))


class Races(Area["Client"]):
    def create(self, level: str, **options: Any) -> t.Race:
        return self._client.send(calls.race_create(level, **options))

    def get(self, race_id: str) -> t.Race:
        return self._client.send(calls.race(race_id))

    def list(self, **filters: Any) -> t.Page:
        """filters: state, level, code, page, page_size."""
        return self._client.send(calls.races(**filters))

    def iter(self, **filters: Any) -> Iterator[t.Race]:
        return self._client.pages(calls.races(**filters))  # type: ignore[return-value]

    def join(self, race_id: str) -> t.Race:
        return self._client.send(calls.race_action(race_id, "join"))

    def leave(self, race_id: str) -> t.Race:
        return self._client.send(calls.race_action(race_id, "leave"))

    def ready(self, race_id: str, ready: bool = True) -> t.Race:
        return self._client.send(calls.race_action(race_id, "ready", {"ready": ready}))

    def start(self, race_id: str) -> t.Race:
        return self._client.send(calls.race_action(race_id, "start"))

    def queue(self, level: str, *, no_guess: bool = False) -> t.QueuePlace:
        return self._client.send(calls.queue_join(level, no_guess=no_guess))

    def queue_place(self) -> t.QueuePlace:
        return self._client.send(calls.queue_place())

    def queue_leave(self) -> None:
        self._client.send(calls.queue_leave())


class Arenas(Area["Client"]):
    """Arenas (API.md, Arenas): the server pairs the players of an arena's pool into races
    while it runs; `me.race` says which race a player is in."""

    def create(self, level: str, *, minutes: int, **options: Any) -> t.Arena:
        """options: name, no_guess, starts_at (ISO 8601), players ("humans" or "bots")."""
        return self._client.send(calls.arena_create(level, minutes=minutes, **options))

    def get(self, arena_id: str) -> t.Arena:
        return self._client.send(calls.arena(arena_id))

    def by_code(self, code: str) -> t.Arena:
        """The arena whose code is `code` (as `Q4T7WZ`); NotFound when none has it."""
        found = self._client.send(calls.arenas(code=code))
        return found_by_code(found, code)

    def list(self, **filters: Any) -> t.Page:
        """filters: state, level, code, page, page_size."""
        return self._client.send(calls.arenas(**filters))

    def iter(self, **filters: Any) -> Iterator[t.Arena]:
        return self._client.pages(calls.arenas(**filters))  # type: ignore[return-value]

    def join(self, arena_id: str) -> t.Arena:
        return self._client.send(calls.arena_action(arena_id, "join"))

    def leave(self, arena_id: str) -> t.Arena:
        return self._client.send(calls.arena_action(arena_id, "leave"))

    def standings(self, arena_id: str, **params: Any) -> t.Page:
        """params: page, page_size, around="me"."""
        return self._client.send(calls.arena_standings(arena_id, **params))

    def iter_standings(self, arena_id: str, **params: Any) -> Iterator[dict[str, Any]]:
        return self._client.pages(calls.arena_standings(arena_id, **params))


class Streams(StreamsArea["Client", Iterator[dict[str, Any]]]):
    """NDJSON streams as iterators (streams.py): `game(id)` to the game's end, `events()`."""

    def _items(self, stream: Followed) -> Iterator[dict[str, Any]]:
        """One opening of `stream`: what its lines yield, until it is over or the server ends it."""
        client = self._client
        with client._http.stream(**client._stream_args(stream.path)) as response:
            if not response.is_success:
                response.read()
                raise refusal(response)
            for line in response.iter_lines():
                item = stream.take(line)
                if item is not None:
                    yield item
                if stream.over:
                    return

    def _follow(self, stream: Followed, reconnects: int) -> Iterator[dict[str, Any]]:
        """What `stream` yields, line by line, across the reopenings it asks for."""
        for attempt in range(reconnects + 1):
            try:
                yield from self._items(stream)
                cause: httpx.HTTPError | None = None
            except httpx.HTTPError as exc:
                cause = exc
            if stream.over or not stream.reopen(attempt, reconnects, cause):
                return
            time.sleep(self._client.retry.delay(attempt, None))


class Client(
    BaseClient[httpx.BaseTransport],
    Areas[Accounts, Tokens, Users, Games, Leaderboards, Races, Arenas, Daily, Puzzles, Streams],
):
    """A Démineur API client. `token` is an API token (`Authorization: Token <key>`);
    `accounts.sign_in` obtains one and keeps it. Use as a context manager, or call close()."""

    _user_agent = USER_AGENT

    def _build(self, timeout: httpx.Timeout | float, transport: httpx.BaseTransport | None) -> None:
        self._http = httpx.Client(base_url=self.base_url, timeout=timeout, transport=transport)
        self._bind_areas(
            Accounts, Tokens, Users, Games, Leaderboards, Races, Arenas, Daily, Puzzles, Streams
        )

    def _answer(self, call: Call[Any]) -> httpx.Response | httpx.HTTPError:
        """One send of `call`: the server's answer, or the network error in its place."""
        try:
            return self._http.request(**self._request_args(call))
        except httpx.HTTPError as exc:
            return exc

    def send(self, call: Call[T]) -> T:
        attempt = 0
        while True:
            outcome = settle(call, self._answer(call), attempt, self.retry)
            if not isinstance(outcome, Retry):
                return outcome
            time.sleep(outcome.seconds)
            attempt += 1

    def pages(self, call: Call[t.Page]) -> Iterator[dict[str, Any]]:
        """The rows of every page of the listing `call` asks for, one page read at a time."""
        following: Call[t.Page] | None = call
        while following is not None:
            page = self.send(following)
            yield from page.get("results", [])
            following = calls.next_page(following, page)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
