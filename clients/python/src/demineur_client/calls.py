"""Every endpoint of API.md as a Call: the path, the body and how the answer is read, written
once for the sync and the async client. Moves carry a client_move_id (a fresh one unless the
caller gives theirs), so that sending a move again after a lost answer never plays it twice."""

from __future__ import annotations

import dataclasses
import uuid
from typing import Any, Literal, TypedDict, Unpack, cast
from urllib.parse import quote, urlencode

import httpx

from ._transport import Call
from .types import (
    Account,
    Arena,
    Game,
    Move,
    MoveResult,
    Page,
    Profile,
    Puzzle,
    PuzzleOpened,
    PuzzleRun,
    QueuePlace,
    Race,
    Token,
)


def _id(value: str) -> str:
    return quote(str(value), safe="")


def _page(response: httpx.Response) -> Page:
    return cast(Page, response.json())


def _results(response: httpx.Response) -> list[Any]:
    """The `results` of an answer that lists everything at once (tokens, a game's moves)."""
    return list(response.json()["results"])


def _object(response: httpx.Response) -> dict[str, Any]:
    return dict(response.json())


def _with(body: dict[str, Any], **optional: Any) -> dict[str, Any]:
    """`body` and those `optional` fields that are given: a None one is left out."""
    return body | {name: value for name, value in optional.items() if value is not None}


def _only_if(on: bool) -> Literal[True] | None:
    """A switch the API takes only when on (no_guess): True, or None to leave it out."""
    return True if on else None


class RoomFilters(TypedDict, total=False):
    """What the lists of races and of arenas are filtered and paged by."""

    state: str | None
    level: str | None
    code: str | None
    page: int
    page_size: int | None


def _listing(path: str, /, **params: Any) -> Call[Page]:
    """A page of a listing (API.md, Pagination); a None param is left out of the query."""
    return Call("GET", path, params=params, read=_page, idempotent=True)


def next_page(call: Call[Page], page: Page) -> Call[Page] | None:
    """The call for the page after `page` (which `call` answered), or None after the last.
    The server's `next` link says whether there is one; the page number is counted here
    rather than the link followed, so the client's base URL stays the one it talks to (a
    server behind a proxy may write links with its own host)."""
    if not page.get("next") or not page.get("results"):
        return None
    params = dict(call.params or {})
    params["page"] = int(params.get("page") or 1) + 1
    return dataclasses.replace(call, params=params)


# --- accounts and tokens ------------------------------------------------------------------


def register(
    username: str, password: str, *, kind: str = "human", email: str | None = None
) -> Call[Account]:
    body = _with({"username": username, "password": password, "kind": kind}, email=email)
    return Call("POST", "/api/auth/register", body)


class SignInOptions(TypedDict, total=False):
    """What `sign_in` takes besides the name and the password, as both clients' `accounts.sign_in`
    passes it on: the authenticator's code, and the token's scopes (without them, all four)."""

    otp: str | None
    scopes: list[str] | None


def sign_in(
    username: str, password: str, *, otp: str | None = None, scopes: list[str] | None = None
) -> Call[str]:
    body = _with({"username": username, "password": password}, otp=otp, scopes=scopes)
    return Call("POST", "/api/auth/token", body, read=lambda r: str(r.json()["token"]))


def sign_out() -> Call[None]:
    return Call.empty("DELETE", "/api/auth/token")


def me() -> Call[Profile]:
    return Call("GET", "/api/me", idempotent=True)


def become_bot() -> Call[Profile]:
    return Call("PATCH", "/api/me", {"kind": "bot"}, idempotent=True)


def tokens() -> Call[list[Token]]:
    return Call("GET", "/api/tokens", read=_results, idempotent=True)


def token_create(name: str, scopes: list[str] | None = None) -> Call[Token]:
    return Call("POST", "/api/tokens", _with({"name": name}, scopes=scopes))


def token_test(keys: list[str]) -> Call[dict[str, Any]]:
    """What each key may do: {key: {username, scopes, created_at} | None}."""
    return Call(
        "POST",
        "/api/tokens/test",
        {"tokens": keys},
        read=lambda r: dict(r.json()["results"]),
        idempotent=True,
    )


def token_revoke(token_id: int) -> Call[None]:
    return Call.empty("DELETE", f"/api/tokens/{int(token_id)}", idempotent=True)


def user(username: str) -> Call[Profile]:
    return Call("GET", f"/api/users/{_id(username)}", idempotent=True)


# --- games --------------------------------------------------------------------------------


def game_create(
    level: str | None = None,
    *,
    width: int | None = None,
    height: int | None = None,
    mines: int | None = None,
    no_guess: bool = False,
) -> Call[Game]:
    board: dict[str, Any] = (
        {"level": level}
        if level is not None
        else {"width": width, "height": height, "mines": mines}
    )
    return Call("POST", "/api/games", _with(board, no_guess=_only_if(no_guess)))


def game(game_id: str) -> Call[Game]:
    return Call("GET", f"/api/games/{_id(game_id)}", idempotent=True)


def games(
    *,
    state: str | None = None,
    level: str | None = None,
    user: str | None = None,
    page: int = 1,
    page_size: int | None = None,
) -> Call[Page]:
    return _listing(
        "/api/games", state=state, level=level, user=user, page=page, page_size=page_size
    )


class ExportFilters(TypedDict, total=False):
    """Which of a player's ended games the export gives: a level, a mode (classic, no_guess),
    those ended since a date."""

    level: str | None
    mode: str | None
    since: str | None


def games_export(username: str, **filters: Unpack[ExportFilters]) -> str:
    """The path of a player's ended games as NDJSON (one Game a line, with its layout and
    moves): read line by line as a stream, not a Call."""
    query = urlencode({name: value for name, value in filters.items() if value})
    path = f"/api/users/{_id(username)}/games/export"
    return f"{path}?{query}" if query else path


def move(
    game_id: str,
    action: str,
    x: int,
    y: int,
    *,
    flagged: bool | None = None,
    client_move_id: str | None = None,
) -> Call[MoveResult]:
    move_id = client_move_id or uuid.uuid4().hex
    body = _with({"x": x, "y": y, "client_move_id": move_id}, flagged=flagged)
    return Call("POST", f"/api/games/{_id(game_id)}/{action}", body, idempotent=True)


def game_action(game_id: str, action: str) -> Call[Game]:
    """pause, resume or resign: pausing a paused game (or resuming a running one) is a no-op,
    so sending one again is safe; resigning an ended game is refused, not repeated."""
    return Call("POST", f"/api/games/{_id(game_id)}/{action}", idempotent=action != "resign")


def moves(game_id: str, *, page: int = 1) -> Call[list[Move]]:
    return Call(
        "GET",
        f"/api/games/{_id(game_id)}/moves",
        params={"page": page, "page_size": 200},
        read=_results,
        idempotent=True,
    )


def moves_pages(game_id: str, *, page_size: int = 200) -> Call[Page]:
    """The moves as pages, for an iterator that reads past the first 200."""
    return _listing(f"/api/games/{_id(game_id)}/moves", page=1, page_size=page_size)


# --- the daily challenge ------------------------------------------------------------------


def daily_day(day: str | None = None) -> Call[dict[str, Any]]:
    """Today's six dailies (or a past day's, `YYYY-MM-DD`), the signed-in player's games in."""
    path = "/api/daily" if day is None else f"/api/daily/{_id(day)}"
    return Call("GET", path, read=_object, idempotent=True)


def daily_start(level: str) -> Call[Game]:
    """Today's daily of `level`: one attempt a day, so asking again answers the same game
    (safe to send again after a lost answer)."""
    return Call("POST", f"/api/daily/{_id(level)}", idempotent=True)


def daily_practice(day: str, level: str) -> Call[Game]:
    """A new practice game on a past day's daily (unranked); each call is a new game."""
    return Call("POST", f"/api/daily/{_id(day)}/{_id(level)}")


def daily_calendar(
    username: str, *, since: str | None = None, until: str | None = None
) -> Call[dict[str, Any]]:
    return Call(
        "GET",
        f"/api/users/{_id(username)}/daily",
        params={"from": since, "to": until},
        read=_object,
        idempotent=True,
    )


# --- leaderboards -------------------------------------------------------------------------


def leaderboard(level: str, board: str, **params: Any) -> Call[Page]:
    """times, speed, streaks, races or daily; params: period, sort, players, mode, page,
    page_size, around ("me"), date (the daily board's day)."""
    return _listing(f"/api/leaderboards/{_id(level)}/{_id(board)}", **params)


# --- races --------------------------------------------------------------------------------


def race_create(
    level: str, *, max_players: int | None = None, no_guess: bool = False
) -> Call[Race]:
    body = _with({"level": level}, max_players=max_players, no_guess=_only_if(no_guess))
    return Call("POST", "/api/races", body)


def race(race_id: str) -> Call[Race]:
    return Call("GET", f"/api/races/{_id(race_id)}", idempotent=True)


def races(**filters: Unpack[RoomFilters]) -> Call[Page]:
    return _listing("/api/races", **filters)


def race_action(race_id: str, action: str, body: dict[str, Any] | None = None) -> Call[Race]:
    """join, leave, ready or start; each answers the Race."""
    return Call("POST", f"/api/races/{_id(race_id)}/{action}", body)


def queue_join(level: str, *, no_guess: bool = False) -> Call[QueuePlace]:
    body = _with({"level": level}, no_guess=_only_if(no_guess))
    return Call("POST", "/api/races/queue", body, idempotent=True)


def queue_place() -> Call[QueuePlace]:
    return Call("GET", "/api/races/queue", idempotent=True)


def queue_leave() -> Call[None]:
    return Call.empty("DELETE", "/api/races/queue", idempotent=True)


# --- arenas -------------------------------------------------------------------------------


def arena_create(
    level: str,
    *,
    minutes: int,
    name: str | None = None,
    no_guess: bool = False,
    starts_at: str | None = None,
    players: str | None = None,
) -> Call[Arena]:
    """`minutes` 20 to 180; `starts_at` (ISO 8601) now or later; `players` humans or bots (a
    human account creates human arenas)."""
    body = _with(
        {"level": level, "minutes": minutes},
        name=name,
        no_guess=_only_if(no_guess),
        starts_at=starts_at,
        players=players,
    )
    return Call("POST", "/api/arenas", body)


def arena(arena_id: str) -> Call[Arena]:
    return Call("GET", f"/api/arenas/{_id(arena_id)}", idempotent=True)


def arenas(**filters: Unpack[RoomFilters]) -> Call[Page]:
    return _listing("/api/arenas", **filters)


def arena_action(arena_id: str, action: str) -> Call[Arena]:
    """join or leave: joining an arena one is in, or leaving one one is not in, is an accepted
    no-op, so either is safe to send again."""
    return Call("POST", f"/api/arenas/{_id(arena_id)}/{action}", idempotent=True)


def arena_standings(arena_id: str, **params: Any) -> Call[Page]:
    """rows {rank, player, score, races, wins, streak, fire}; params: page, page_size,
    around ("me")."""
    return _listing(f"/api/arenas/{_id(arena_id)}/standings", **params)


# --- puzzles ------------------------------------------------------------------------------


def puzzle_next(theme: str | None = None) -> Call[Puzzle]:
    """The same puzzle until it is played out (a skip cannot spare a rating), so asking again
    after a lost answer is safe."""
    return Call("GET", "/api/puzzles/next", params={"theme": theme}, idempotent=True)


def puzzle_daily() -> Call[Puzzle]:
    return Call("GET", "/api/puzzles/daily", idempotent=True)


def puzzle(puzzle_id: str) -> Call[Puzzle]:
    return Call("GET", f"/api/puzzles/{_id(puzzle_id)}", idempotent=True)


def puzzle_open(puzzle_id: str, x: int, y: int) -> Call[PuzzleOpened]:
    """Not sent again after a network error: had the first reached the server, the second
    would be refused (409 `cell_open`, or `attempt_over` after a failure)."""
    return Call("POST", f"/api/puzzles/{_id(puzzle_id)}/open", {"x": x, "y": y})


def puzzle_retry(puzzle_id: str) -> Call[Puzzle]:
    """A new practice attempt once the last has ended; asked again, the attempt it made is in
    play and is the answer, so sending it twice is safe."""
    return Call("POST", f"/api/puzzles/{_id(puzzle_id)}/retry", idempotent=True)


def puzzle_dashboard() -> Call[dict[str, Any]]:
    return Call("GET", "/api/puzzles/dashboard", read=_object, idempotent=True)


def puzzle_run(kind: str) -> Call[PuzzleRun]:
    """`streak` or `storm`: the running one, else the last."""
    return Call("GET", f"/api/puzzles/{_id(kind)}", idempotent=True)


def puzzle_run_start(kind: str) -> Call[PuzzleRun]:
    """A new streak or storm; not sent again, since a second one would end the first."""
    return Call("POST", f"/api/puzzles/{_id(kind)}")


def puzzle_board(board: str = "rating", **params: Any) -> Call[Page]:
    """rating, streak or storm; params: page, page_size, players, around ("me"), and the
    storm's period ("all" or "day") and date."""
    path = "/api/leaderboards/puzzles"
    return _listing(path if board == "rating" else f"{path}/{_id(board)}", **params)


# --- NDJSON streams (not Calls: the clients read them line by line, streams.py) -----------

EVENT_STREAM = "/api/stream/event"


def game_stream(game_id: str) -> str:
    return f"/api/stream/game/{_id(game_id)}"
