"""Token scopes (API.md, Token scopes and event streams): what a token may do.

A token carries some of four scopes; a session has all of them, and an old token (made before
scopes) has all four. Each endpoint that needs one says which scopes it accepts (any one of
them will do) in REQUIRED below, by URL name and method; everything not listed is a public
read or the token's own business (revoking itself) and needs none. `check_request` (run by the token
authentication, so no view's own permissions can skip it) refuses a token without an accepted
scope with 403 `missing_scope`; `ScopeHeadersMiddleware` writes
`X-OAuth-Scopes` (the token's) on every answer to a token, and `X-Accepted-OAuth-Scopes` on a
refusal, as lichess does. Sockets: moves over /ws/games/{id} need `game:play`
(games.play.sockets), the event stream one of game:play, race:play, account:read. A token
makes tokens only within its own scopes (`granted`).

tests/security/test_token_scopes.py walks every URL of the API: each one that changes or reads
a player's own things is in REQUIRED."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from django.http import HttpRequest, HttpResponse

from accounts.models import STORED_ALL_SCOPES
from demineur_site.api_errors import ApiError

GAME_PLAY = "game:play"
RACE_PLAY = "race:play"
ACCOUNT_READ = "account:read"
ACCOUNT_WRITE = "account:write"
ALL: tuple[str, ...] = (GAME_PLAY, RACE_PLAY, ACCOUNT_READ, ACCOUNT_WRITE)
# What ApiToken.scopes holds for a token with every scope (the model's default).
STORED_ALL = STORED_ALL_SCOPES
# The event stream (/api/stream/event): a token that plays or reads its account may follow it.
EVENT_STREAM = (GAME_PLAY, RACE_PLAY, ACCOUNT_READ)

_PLAY: dict[str, tuple[str, ...]] = {"POST": (GAME_PLAY,)}
_RACE: dict[str, tuple[str, ...]] = {"POST": (RACE_PLAY,)}
_READ: tuple[str, ...] = (ACCOUNT_READ, ACCOUNT_WRITE)
_WRITE: tuple[str, ...] = (ACCOUNT_WRITE,)

REQUIRED: dict[str, dict[str, tuple[str, ...]]] = {
    # games: creating one, moves, pause, resume, resign
    "api-games": _PLAY,
    **{f"api-{a}": _PLAY for a in ("reveal", "flag", "chord", "pause", "resume", "resign")},
    # races and the quick-match queue
    "api-races": _RACE,
    **{f"api-race-{a}": _RACE for a in ("join", "leave", "ready", "start")},
    "api-race-queue": {"POST": (RACE_PLAY,), "GET": (RACE_PLAY,), "DELETE": (RACE_PLAY,)},
    # arenas: creating one, joining and leaving it
    "api-arenas": _RACE,
    **{f"api-arena-{a}": _RACE for a in ("join", "leave")},
    # the daily challenge: today's attempt and a past day's practice are games
    "api-daily-day": _PLAY,
    "api-daily-practice": _PLAY,
    # puzzles: opening cells, a new attempt, streaks and storms are play; the next puzzle (it
    # is put aside for the player) and the player's own dashboard and runs are play or reading
    "api-puzzle-open": _PLAY,
    "api-puzzle-retry": _PLAY,
    "api-puzzle-next": {"GET": (GAME_PLAY, *_READ)},
    "api-puzzle-dashboard": {"GET": (GAME_PLAY, *_READ)},
    "api-puzzle-streak": {"GET": (GAME_PLAY, *_READ), "POST": (GAME_PLAY,)},
    "api-puzzle-storm": {"GET": (GAME_PLAY, *_READ), "POST": (GAME_PLAY,)},
    # the account: read it, change it, its tokens, sessions, exports
    "api-me": {"GET": _READ, "PATCH": _WRITE},
    "api-me-settings": {"GET": _READ, "PUT": _WRITE, "PATCH": _WRITE},
    "api-tokens": {"GET": _READ, "POST": _WRITE},
    "api-token-detail": {"DELETE": _WRITE},
    "api-me-email": {"POST": _WRITE},
    "api-me-password": {"POST": _WRITE},
    "api-me-sessions": {"GET": _READ},
    "api-me-session-detail": {"DELETE": _WRITE},
    "api-me-totp": {"POST": _WRITE, "DELETE": _WRITE},
    "api-me-totp-confirm": {"POST": _WRITE},
    "api-me-close": {"POST": _WRITE},
    "api-me-export": {"GET": _WRITE},
}


# What an app's token ("Sign in with Démineur", accounts.oauth) may never do, whatever its
# scopes: manage the account's credentials and personal data. The player's consent to "change
# the account" is for its settings; a token that could mint personal tokens, change the address
# (then reset the password) or close the account would outlive the app's revocation or take the
# account. 403 `forbidden`; the player does these on the site.
NOT_FOR_APPS: frozenset[str] = frozenset(
    {
        "api-tokens",
        "api-token-detail",
        "api-me-email",
        "api-me-password",
        "api-me-sessions",
        "api-me-session-detail",
        "api-me-totp",
        "api-me-totp-confirm",
        "api-me-close",
        "api-me-export",
    }
)


def parse(stored: str) -> frozenset[str]:
    """ApiToken.scopes (comma-separated) as a set."""
    return frozenset(s for s in stored.split(",") if s)


def stored(scopes: Iterable[str]) -> str:
    """The column's text for these scopes: in ALL's order, once each."""
    wanted = set(scopes)
    unknown = sorted(wanted - set(ALL))
    if unknown:
        raise ApiError(
            "unknown_scope",
            f"Unknown scope: {', '.join(unknown)}.",
            {"unknown": unknown, "scopes": list(ALL)},
        )
    return ",".join(s for s in ALL if s in wanted)


def granted(asked: Iterable[str] | None, holder: frozenset[str] | None) -> str:
    """The stored scopes of a token made by a signed-in caller whose own token has `holder`
    (None: a session, which has every scope). Without `asked`, the holder's own: all four
    from a session or a token that has them, as before scopes. A token gives only scopes it
    has itself, or a leaked `account:write` token would mint one that plays and races:
    asking for more is 403 `missing_scope` (unknown ones are 400 first), nothing made."""
    if asked is None:
        return STORED_ALL if holder is None else ",".join(s for s in ALL if s in holder)
    wanted = stored(asked)
    if holder is None:
        return wanted
    missing = [s for s in parse(wanted) if s not in holder]
    if missing:
        missing.sort(key=ALL.index)
        raise ApiError(
            "missing_scope",
            f"A token gives only scopes it has itself; this one lacks {', '.join(missing)}.",
            {"missing": missing, "scopes": [s for s in ALL if s in holder]},
        )
    return wanted


def token_scopes(auth: Any) -> frozenset[str] | None:
    """The scopes of a request's token, or None when it was not made with a token."""
    stored_scopes = getattr(auth, "scopes", None)
    if not isinstance(stored_scopes, str) or not hasattr(auth, "key_hash"):
        return None
    return parse(stored_scopes)


def check(scopes: frozenset[str] | None, accepted: tuple[str, ...]) -> None:
    """Raise 403 `missing_scope` when a token (scopes not None) has none of `accepted`."""
    if scopes is not None and accepted and not scopes.intersection(accepted):
        raise ApiError(
            "missing_scope",
            f"This token lacks the scope this needs: any of {', '.join(accepted)}.",
            {"accepted": list(accepted), "scopes": sorted(scopes)},
        )


def check_request(request: HttpRequest, token: Any) -> None:
    """REST: the scopes REQUIRED names for this URL and method, checked when the token signs
    the request in (accounts.authentication), whatever the view's own permissions."""
    request.scoped_token = token  # type: ignore[attr-defined]  # for ScopeHeadersMiddleware
    match = request.resolver_match
    url_name = match.url_name if match is not None else None
    accepted = REQUIRED.get(url_name or "", {}).get(request.method or "", ())
    if accepted:
        request.accepted_scopes = accepted  # type: ignore[attr-defined]
    if getattr(token, "oauth_token_id", None) is not None and url_name in NOT_FOR_APPS:
        raise ApiError(
            "forbidden",
            "An app's token may not manage the account's credentials or data: sign in on the "
            "site to do this.",
            {"app_token": True},
        )
    check(token_scopes(token), accepted)


class ScopeHeadersMiddleware:
    """`X-OAuth-Scopes` on every answer to a token; `X-Accepted-OAuth-Scopes` where an
    endpoint names its scopes."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        # The token that signed the request in, even when it was then refused (check_request).
        scopes = token_scopes(getattr(request, "scoped_token", None))
        if scopes is not None:
            response["X-OAuth-Scopes"] = ", ".join(s for s in ALL if s in scopes)
            accepted = getattr(request, "accepted_scopes", None)
            if accepted:
                response["X-Accepted-OAuth-Scopes"] = ", ".join(accepted)
        return response
