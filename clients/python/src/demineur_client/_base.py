"""The part of `Client` (client.py) and `AsyncClient` (aio.py) that does no I/O: the
constructor and the state it keeps (base URL, token, retry policy), and the composition of
every request (URL, query, body, headers with the token as it is at that moment). A flavour
only opens its own httpx client, binds its areas, and sends and waits in its own way."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, Generic, Self, TypedDict, TypeVar, Unpack, cast

import httpx

from . import calls
from . import types as t
from ._transport import DEFAULT_TIMEOUT, Call, RetryPolicy, headers
from .errors import NotFound
from .streams import EventLines, ExportLines, Followed, GameLines

ClientT = TypeVar("ClientT")
TransportT = TypeVar("TransportT")
AccountsT = TypeVar("AccountsT")
TokensT = TypeVar("TokensT")
UsersT = TypeVar("UsersT")
GamesT = TypeVar("GamesT")
LeaderboardsT = TypeVar("LeaderboardsT")
RacesT = TypeVar("RacesT")
ArenasT = TypeVar("ArenasT")
DailyT = TypeVar("DailyT")
PuzzlesT = TypeVar("PuzzlesT")
StreamsT = TypeVar("StreamsT")

# A stream answers its first line at once but may then stay quiet between keep-alives.
STREAM_TIMEOUT = httpx.Timeout(30.0, read=60.0)


class RequestArgs(TypedDict):
    """The arguments of `httpx.Client.request` (and of AsyncClient's) for one send of a Call."""

    method: str
    url: str
    json: Any
    params: dict[str, Any] | None
    headers: dict[str, str]


class StreamArgs(TypedDict):
    """The arguments of `httpx.Client.stream` (and of AsyncClient's) to open an NDJSON stream."""

    method: str
    url: str
    headers: dict[str, str]
    timeout: httpx.Timeout


class BaseClient(Generic[TransportT]):
    """What both clients keep and compose. `TransportT` is the httpx transport type a flavour
    accepts (`httpx.BaseTransport` or `httpx.AsyncBaseTransport`); `_build` is the flavour's
    hook that opens its httpx client and binds its areas."""

    _user_agent: ClassVar[str]

    def __init__(
        self,
        base_url: str,
        *,
        token: str | None = None,
        timeout: httpx.Timeout | float = DEFAULT_TIMEOUT,
        retry: RetryPolicy | None = None,
        transport: TransportT | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.retry = retry or RetryPolicy()
        self._build(timeout, transport)

    def _build(self, timeout: httpx.Timeout | float, transport: TransportT | None) -> None:
        """Opens the flavour's httpx client (`self._http`) and binds its areas to `self`."""
        raise NotImplementedError

    def _headers(self) -> dict[str, str]:
        return headers(self.token, self._user_agent)

    def _request_args(self, call: Call[Any]) -> RequestArgs:
        """One send of `call`; built again for every attempt, so that a token obtained or
        revoked meanwhile is the one sent."""
        return RequestArgs(
            method=call.method,
            url=call.path,
            json=call.body,
            params=call.query(),
            headers=self._headers(),
        )

    def _stream_args(self, path: str) -> StreamArgs:
        return StreamArgs(method="GET", url=path, headers=self._headers(), timeout=STREAM_TIMEOUT)


class Area(Generic[ClientT]):
    """One area of the API (accounts, games, races, ...), bound to the client that sends its
    calls; the calls themselves are written once, in calls.py."""

    def __init__(self, client: ClientT) -> None:
        self._client = client


class Areas(
    Generic[
        AccountsT,
        TokensT,
        UsersT,
        GamesT,
        LeaderboardsT,
        RacesT,
        ArenasT,
        DailyT,
        PuzzlesT,
        StreamsT,
    ]
):
    """The areas of API.md, named once for both clients. A client gives its own area classes
    (methods in client.py, coroutines in aio.py) as its type arguments, and binds the same
    classes, in the same order, with `_bind_areas`."""

    accounts: AccountsT
    tokens: TokensT
    users: UsersT
    games: GamesT
    leaderboards: LeaderboardsT
    races: RacesT
    arenas: ArenasT
    daily: DailyT
    puzzles: PuzzlesT
    streams: StreamsT

    def _bind_areas(
        self,
        *areas: *tuple[
            Callable[[Self], AccountsT],
            Callable[[Self], TokensT],
            Callable[[Self], UsersT],
            Callable[[Self], GamesT],
            Callable[[Self], LeaderboardsT],
            Callable[[Self], RacesT],
            Callable[[Self], ArenasT],
            Callable[[Self], DailyT],
            Callable[[Self], PuzzlesT],
            Callable[[Self], StreamsT],
        ],
    ) -> None:
        for name, area in zip(Areas.__annotations__, areas, strict=True):
            setattr(self, name, area(self))


LinesT = TypeVar("LinesT")  # what a flavour's streams give: an iterator, or an async one


class StreamsArea(Area[ClientT], Generic[ClientT, LinesT]):
    """The NDJSON streams of both flavours: which stream each method follows is said once here;
    a flavour's `_follow` reads it (an iterator, or an async one), reopening it as it asks."""

    def _follow(self, stream: Followed, reconnects: int) -> LinesT:
        raise NotImplementedError

    def game(self, game_id: str, *, reconnects: int = 5) -> LinesT:
        """The game's stream, line by line, to the game's end."""
        return self._follow(GameLines(calls.game_stream(game_id)), reconnects)

    def events(self, *, reconnects: int = 5) -> LinesT:
        """The signed-in player's event stream."""
        return self._follow(EventLines(calls.EVENT_STREAM), reconnects)

    def games_export(self, username: str, **filters: Unpack[calls.ExportFilters]) -> LinesT:
        """A player's ended games, one Game a line with its layout and moves (API.md, the
        export), as the Game's visibility rules let the caller see them."""
        return self._follow(ExportLines(calls.games_export(username, **filters)), 0)


def found_by_code(page: t.Page, code: str) -> t.Arena:
    """The arena of a `?code=` listing (codes are unique), or NotFound."""
    for arena in page.get("results", []):
        if str(arena.get("code", "")).upper() == code.strip().upper():
            return cast(t.Arena, arena)
    raise NotFound(404, "not_found", f"No arena has the code {code}.")
