"""Every endpoint of API.md as a Call: the path, the body and how the answer is read, written
once for the sync and the async client. Moves carry a client_move_id (a fresh one unless the
caller gives theirs), so that sending a move again after a lost answer never plays it twice."""

from __future__ import annotations

import uuid
from typing import Any, cast
from urllib.parse import quote

from ._transport import Call
from .types import Account, Game, Move, MoveResult, Page, Profile, QueuePlace, Race, Token


def _id(value: str) -> str:
    return quote(str(value), safe="")


def _page(response: Any) -> Page:
    return cast(Page, response.json())


# --- accounts and tokens ------------------------------------------------------------------


def register(
    username: str, password: str, *, kind: str = "human", email: str | None = None
) -> Call[Account]:
    body: dict[str, Any] = {"username": username, "password": password, "kind": kind}
    if email is not None:
        body["email"] = email
    return Call("POST", "/api/auth/register", body)


def sign_in(
    username: str, password: str, *, otp: str | None = None, scopes: list[str] | None = None
) -> Call[str]:
    body: dict[str, Any] = {"username": username, "password": password}
    if otp is not None:
        body["otp"] = otp
    if scopes is not None:
        body["scopes"] = scopes
    return Call("POST", "/api/auth/token", body, read=lambda r: str(r.json()["token"]))


def sign_out() -> Call[None]:
    return Call.empty("DELETE", "/api/auth/token")


def me() -> Call[Profile]:
    return Call("GET", "/api/me", idempotent=True)


def become_bot() -> Call[Profile]:
    return Call("PATCH", "/api/me", {"kind": "bot"}, idempotent=True)


def tokens() -> Call[list[Token]]:
    return Call("GET", "/api/tokens", read=lambda r: list(r.json()["results"]), idempotent=True)


def token_create(name: str, scopes: list[str] | None = None) -> Call[Token]:
    body: dict[str, Any] = {"name": name}
    if scopes is not None:
        body["scopes"] = scopes
    return Call("POST", "/api/tokens", body)


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
    body: dict[str, Any] = (
        {"level": level}
        if level is not None
        else {"width": width, "height": height, "mines": mines}
    )
    if no_guess:
        body["no_guess"] = True
    return Call("POST", "/api/games", body)


def game(game_id: str) -> Call[Game]:
    return Call("GET", f"/api/games/{_id(game_id)}", idempotent=True)


def games(
    *, state: str | None = None, level: str | None = None, user: str | None = None, page: int = 1
) -> Call[Page]:
    params = {"state": state, "level": level, "user": user, "page": page}
    return Call("GET", "/api/games", params=params, read=_page, idempotent=True)


def move(
    game_id: str,
    action: str,
    x: int,
    y: int,
    *,
    flagged: bool | None = None,
    client_move_id: str | None = None,
) -> Call[MoveResult]:
    body: dict[str, Any] = {"x": x, "y": y, "client_move_id": client_move_id or uuid.uuid4().hex}
    if flagged is not None:
        body["flagged"] = flagged
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
        read=lambda r: list(r.json()["results"]),
        idempotent=True,
    )


# --- the daily challenge ------------------------------------------------------------------


def daily_day(day: str | None = None) -> Call[dict[str, Any]]:
    """Today's six dailies (or a past day's, `YYYY-MM-DD`), the signed-in player's games in."""
    path = "/api/daily" if day is None else f"/api/daily/{_id(day)}"
    return Call("GET", path, read=lambda r: dict(r.json()), idempotent=True)


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
        read=lambda r: dict(r.json()),
        idempotent=True,
    )


# --- leaderboards -------------------------------------------------------------------------


def leaderboard(level: str, board: str, **params: Any) -> Call[Page]:
    """times, speed, streaks, races or daily; params: period, sort, players, mode, page,
    page_size, around ("me"), date (the daily board's day)."""
    return Call(
        "GET",
        f"/api/leaderboards/{_id(level)}/{_id(board)}",
        params=params,
        read=_page,
        idempotent=True,
    )


# --- races --------------------------------------------------------------------------------


def race_create(
    level: str, *, max_players: int | None = None, no_guess: bool = False
) -> Call[Race]:
    body: dict[str, Any] = {"level": level}
    if max_players is not None:
        body["max_players"] = max_players
    if no_guess:
        body["no_guess"] = True
    return Call("POST", "/api/races", body)


def race(race_id: str) -> Call[Race]:
    return Call("GET", f"/api/races/{_id(race_id)}", idempotent=True)


def races(
    *, state: str | None = None, level: str | None = None, code: str | None = None
) -> Call[Page]:
    params = {"state": state, "level": level, "code": code}
    return Call("GET", "/api/races", params=params, read=_page, idempotent=True)


def race_action(race_id: str, action: str, body: dict[str, Any] | None = None) -> Call[Race]:
    """join, leave, ready or start; each answers the Race."""
    return Call("POST", f"/api/races/{_id(race_id)}/{action}", body)


def queue_join(level: str, *, no_guess: bool = False) -> Call[QueuePlace]:
    body: dict[str, Any] = {"level": level}
    if no_guess:
        body["no_guess"] = True
    return Call("POST", "/api/races/queue", body, idempotent=True)


def queue_place() -> Call[QueuePlace]:
    return Call("GET", "/api/races/queue", idempotent=True)


def queue_leave() -> Call[None]:
    return Call.empty("DELETE", "/api/races/queue", idempotent=True)
