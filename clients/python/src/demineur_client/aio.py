"""The asynchronous client: `AsyncClient(base_url, token=...)`, the same areas and methods as
the sync Client (client.py), each a coroutine. Sockets: sockets.GameSocket."""

from __future__ import annotations

import asyncio
import builtins
from collections.abc import AsyncIterator
from typing import Any, TypeVar, Unpack

import httpx

from . import calls
from . import types as t
from ._base import Area, Areas, BaseClient, StreamsArea, found_by_code
from ._transport import Call, Retry, refusal, settle
from .calls import ExportFilters, SignInOptions
from .streams import Followed

T = TypeVar("T")
USER_AGENT = "demineur-client/0.1 (async)"


class Accounts(Area["AsyncClient"]):
    async def register(
        self, username: str, password: str, *, kind: str = "human", email: str | None = None
    ) -> t.Account:
        return await self._client.send(calls.register(username, password, kind=kind, email=email))

    async def sign_in(self, username: str, password: str, **options: Unpack[SignInOptions]) -> str:
        """Obtains a token (with `scopes`, else all four) and keeps it for the next requests."""
        self._client.token = await self._client.send(calls.sign_in(username, password, **options))
        return self._client.token

    async def sign_out(self) -> None:
        """Revokes the client's token (its sockets close)."""
        await self._client.send(calls.sign_out())
        self._client.token = None

    async def me(self) -> t.Profile:
        return await self._client.send(calls.me())

    async def become_bot(self) -> t.Profile:
        return await self._client.send(calls.become_bot())


class Tokens(Area["AsyncClient"]):
    async def list(self) -> builtins.list[t.Token]:
        return await self._client.send(calls.tokens())

    async def create(self, name: str, *, scopes: builtins.list[str] | None = None) -> t.Token:
        """A named token; `scopes` (API.md, Token scopes): without it, all four."""
        return await self._client.send(calls.token_create(name, scopes))

    async def test(self, keys: builtins.list[str]) -> dict[str, Any]:
        return await self._client.send(calls.token_test(keys))

    async def revoke(self, token_id: int) -> None:
        await self._client.send(calls.token_revoke(token_id))


class Users(Area["AsyncClient"]):
    async def get(self, username: str) -> t.Profile:
        return await self._client.send(calls.user(username))


class Games(Area["AsyncClient"]):
    async def create(self, level: str | None = None, **board: Any) -> t.Game:
        """`create("expert")`, `create(width=.., height=.., mines=..)`, `no_guess=True`."""
        return await self._client.send(calls.game_create(level, **board))

    async def get(self, game_id: str) -> t.Game:
        return await self._client.send(calls.game(game_id))

    async def list(self, **filters: Any) -> t.Page:
        """filters: state, level, user, page, page_size."""
        return await self._client.send(calls.games(**filters))

    def iter(self, **filters: Any) -> AsyncIterator[t.Game]:
        """Every game the filters select, page after page (`page_size` up to 200)."""
        return self._client.pages(calls.games(**filters))  # type: ignore[return-value]

    async def iter_mine(self, **filters: Any) -> AsyncIterator[t.Game]:
        """The signed-in player's games (filters as `iter`: state, level, page_size)."""
        me = await self._client.accounts.me()
        async for game in self.iter(user=me["username"], **filters):
            yield game

    def iter_moves(self, game_id: str, *, page_size: int = 200) -> AsyncIterator[t.Move]:
        """Every move of the game in order, past the first page's 200 too."""
        return self._client.pages(calls.moves_pages(game_id, page_size=page_size))  # type: ignore[return-value]

    def export(
        self, username: str, **filters: Unpack[ExportFilters]
    ) -> AsyncIterator[dict[str, Any]]:
        """The player's ended games as the export gives them, one Game at a time (filters:
        level, mode, since)."""
        return self._client.streams.games_export(username, **filters)

    async def reveal(self, game_id: str, x: int, y: int, **options: Any) -> t.MoveResult:
        return await self._client.send(calls.move(game_id, "reveal", x, y, **options))

    async def flag(self, game_id: str, x: int, y: int, **options: Any) -> t.MoveResult:
        return await self._client.send(calls.move(game_id, "flag", x, y, **options))

    async def chord(self, game_id: str, x: int, y: int, **options: Any) -> t.MoveResult:
        return await self._client.send(calls.move(game_id, "chord", x, y, **options))

    async def pause(self, game_id: str) -> t.Game:
        return await self._client.send(calls.game_action(game_id, "pause"))

    async def resume(self, game_id: str) -> t.Game:
        return await self._client.send(calls.game_action(game_id, "resume"))

    async def resign(self, game_id: str) -> t.Game:
        return await self._client.send(calls.game_action(game_id, "resign"))

    async def moves(self, game_id: str, *, page: int = 1) -> builtins.list[t.Move]:
        return await self._client.send(calls.moves(game_id, page=page))


class Leaderboards(Area["AsyncClient"]):
    async def get(self, level: str, board: str = "times", **params: Any) -> t.Page:
        """board: times, speed, streaks or races; params as API.md (period, sort, players,
        mode, page, page_size, around="me")."""
        return await self._client.send(calls.leaderboard(level, board, **params))

    def iter(
        self, level: str, board: str = "times", **params: Any
    ) -> AsyncIterator[dict[str, Any]]:
        """Every row of the board, page after page."""
        return self._client.pages(calls.leaderboard(level, board, **params))


class Daily(Area["AsyncClient"]):
    """The daily challenge (API.md, Daily challenge): one board a day per level for everyone."""

    async def today(self) -> dict[str, Any]:
        return await self._client.send(calls.daily_day())

    async def day(self, day: str) -> dict[str, Any]:
        return await self._client.send(calls.daily_day(day))

    async def start(self, level: str) -> t.Game:
        return await self._client.send(calls.daily_start(level))

    async def practice(self, day: str, level: str) -> t.Game:
        return await self._client.send(calls.daily_practice(day, level))

    async def board(self, level: str, **params: Any) -> t.Page:
        """params: date, page, page_size, players, around="me"."""
        return await self._client.send(calls.leaderboard(level, "daily", **params))

    def iter_board(self, level: str, **params: Any) -> AsyncIterator[dict[str, Any]]:
        return self._client.pages(calls.leaderboard(level, "daily", **params))

    async def calendar(
        self, username: str, *, since: str | None = None, until: str | None = None
    ) -> dict[str, Any]:
        return await self._client.send(calls.daily_calendar(username, since=since, until=until))


class Puzzles(Area["AsyncClient"]):
    """Puzzles (API.md, Puzzles; docs/PUZZLES.md): positions from real games, opened one safe
    cell at a time. The answer (`solution`) and the source game stay None until the attempt
    has ended."""

    async def next(self, theme: str | None = None) -> t.Puzzle:
        """A puzzle near the player's puzzle rating they have not tried (`theme`: single,
        subset, pattern, chain, mines_left); the same one until it is played out."""
        return await self._client.send(calls.puzzle_next(theme))

    async def daily(self) -> t.Puzzle:
        return await self._client.send(calls.puzzle_daily())

    async def get(self, puzzle_id: str) -> t.Puzzle:
        return await self._client.send(calls.puzzle(puzzle_id))

    async def open(self, puzzle_id: str, x: int, y: int) -> t.PuzzleOpened:
        """`correct` when the numbers open now (and the mines left) proved the cell safe; any
        other opening fails the attempt."""
        return await self._client.send(calls.puzzle_open(puzzle_id, x, y))

    async def retry(self, puzzle_id: str) -> t.Puzzle:
        """A new attempt, practice, once the last one has ended."""
        return await self._client.send(calls.puzzle_retry(puzzle_id))

    async def dashboard(self) -> dict[str, Any]:
        return await self._client.send(calls.puzzle_dashboard())

    async def board(self, board: str = "rating", **params: Any) -> t.Page:
        """board: rating, streak or storm; params: page, page_size, players ("bots"),
        around="me", and the storm's period ("all", "day") and date."""
        return await self._client.send(calls.puzzle_board(board, **params))

    def iter_board(self, board: str = "rating", **params: Any) -> AsyncIterator[dict[str, Any]]:
        return self._client.pages(calls.puzzle_board(board, **params))

    async def streak(self) -> t.PuzzleRun:
        """The running streak, else the last one."""
        return await self._client.send(calls.puzzle_run("streak"))

    async def streak_start(self) -> t.PuzzleRun:
        return await self._client.send(calls.puzzle_run_start("streak"))

    async def storm(self) -> t.PuzzleRun:
        """The running storm, else the last one (reading it once its time is up ends it)."""
        return await self._client.send(calls.puzzle_run("storm"))

    async def storm_start(self) -> t.PuzzleRun:
        return await self._client.send(calls.puzzle_run_start("storm"))


class Races(Area["AsyncClient"]):
    async def create(self, level: str, **options: Any) -> t.Race:
        return await self._client.send(calls.race_create(level, **options))

    async def get(self, race_id: str) -> t.Race:
        return await self._client.send(calls.race(race_id))

    async def list(self, **filters: Any) -> t.Page:
        """filters: state, level, code, page, page_size."""
        return await self._client.send(calls.races(**filters))

    def iter(self, **filters: Any) -> AsyncIterator[t.Race]:
        return self._client.pages(calls.races(**filters))  # type: ignore[return-value]

    async def join(self, race_id: str) -> t.Race:
        return await self._client.send(calls.race_action(race_id, "join"))

    async def leave(self, race_id: str) -> t.Race:
        return await self._client.send(calls.race_action(race_id, "leave"))

    async def ready(self, race_id: str, ready: bool = True) -> t.Race:
        return await self._client.send(calls.race_action(race_id, "ready", {"ready": ready}))

    async def start(self, race_id: str) -> t.Race:
        return await self._client.send(calls.race_action(race_id, "start"))

    async def queue(self, level: str, *, no_guess: bool = False) -> t.QueuePlace:
        return await self._client.send(calls.queue_join(level, no_guess=no_guess))

    async def queue_place(self) -> t.QueuePlace:
        return await self._client.send(calls.queue_place())

    async def queue_leave(self) -> None:
        await self._client.send(calls.queue_leave())


class Arenas(Area["AsyncClient"]):
    """Arenas (API.md, Arenas): the server pairs the players of an arena's pool into races
    while it runs; `me.race` says which race a player is in."""

    async def create(self, level: str, *, minutes: int, **options: Any) -> t.Arena:
        """options: name, no_guess, starts_at (ISO 8601), players ("humans" or "bots")."""
        return await self._client.send(calls.arena_create(level, minutes=minutes, **options))

    async def get(self, arena_id: str) -> t.Arena:
        return await self._client.send(calls.arena(arena_id))

    async def by_code(self, code: str) -> t.Arena:
        """The arena whose code is `code` (as `Q4T7WZ`); NotFound when none has it."""
        found = await self._client.send(calls.arenas(code=code))
        return found_by_code(found, code)

    async def list(self, **filters: Any) -> t.Page:
        """filters: state, level, code, page, page_size."""
        return await self._client.send(calls.arenas(**filters))

    def iter(self, **filters: Any) -> AsyncIterator[t.Arena]:
        return self._client.pages(calls.arenas(**filters))  # type: ignore[return-value]

    async def join(self, arena_id: str) -> t.Arena:
        return await self._client.send(calls.arena_action(arena_id, "join"))

    async def leave(self, arena_id: str) -> t.Arena:
        return await self._client.send(calls.arena_action(arena_id, "leave"))

    async def standings(self, arena_id: str, **params: Any) -> t.Page:
        """params: page, page_size, around="me"."""
        return await self._client.send(calls.arena_standings(arena_id, **params))

    def iter_standings(self, arena_id: str, **params: Any) -> AsyncIterator[dict[str, Any]]:
        return self._client.pages(calls.arena_standings(arena_id, **params))


class Streams(StreamsArea["AsyncClient", AsyncIterator[dict[str, Any]]]):
    """NDJSON streams as async iterators (streams.py): `game(id)` to its end, `events()`."""

    async def _items(self, stream: Followed) -> AsyncIterator[dict[str, Any]]:
        """One opening of `stream`: what its lines yield, until it is over or the server ends it."""
        client = self._client
        async with client._http.stream(**client._stream_args(stream.path)) as response:
            if not response.is_success:
                await response.aread()
                raise refusal(response)
            async for line in response.aiter_lines():
                item = stream.take(line)
                if item is not None:
                    yield item
                if stream.over:
                    return

    async def _follow(self, stream: Followed, reconnects: int) -> AsyncIterator[dict[str, Any]]:
        """What `stream` yields, line by line, across the reopenings it asks for."""
        for attempt in range(reconnects + 1):
            try:
                async for item in self._items(stream):
                    yield item
                cause: httpx.HTTPError | None = None
            except httpx.HTTPError as exc:
                cause = exc
            if stream.over or not stream.reopen(attempt, reconnects, cause):
                return
            await asyncio.sleep(self._client.retry.delay(attempt, None))


class AsyncClient(
    BaseClient[httpx.AsyncBaseTransport],
    Areas[Accounts, Tokens, Users, Games, Leaderboards, Races, Arenas, Daily, Puzzles, Streams],
):
    """The async Démineur API client; `async with AsyncClient(...) as api:` or `await aclose()`."""

    _user_agent = USER_AGENT

    def _build(
        self, timeout: httpx.Timeout | float, transport: httpx.AsyncBaseTransport | None
    ) -> None:
        self._http = httpx.AsyncClient(base_url=self.base_url, timeout=timeout, transport=transport)
        self._bind_areas(
            Accounts, Tokens, Users, Games, Leaderboards, Races, Arenas, Daily, Puzzles, Streams
        )

    async def _answer(self, call: Call[Any]) -> httpx.Response | httpx.HTTPError:
        """One send of `call`: the server's answer, or the network error in its place."""
        try:
            return await self._http.request(**self._request_args(call))
        except httpx.HTTPError as exc:
            return exc

    async def send(self, call: Call[T]) -> T:
        attempt = 0
        while True:
            outcome = settle(call, await self._answer(call), attempt, self.retry)
            if not isinstance(outcome, Retry):
                return outcome
            await asyncio.sleep(outcome.seconds)
            attempt += 1

    async def pages(self, call: Call[t.Page]) -> AsyncIterator[dict[str, Any]]:
        """The rows of every page of the listing `call` asks for, one page read at a time."""
        following: Call[t.Page] | None = call
        while following is not None:
            page = await self.send(following)
            for row in page.get("results", []):
                yield row
            following = calls.next_page(following, page)

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
