"""Reads. `game_get` is the one access function for a game: every door (REST, WebSocket,
pages) goes through it. Anyone may read any game; only its player may act on it
(services check that under the row lock)."""

from __future__ import annotations

import uuid
from typing import Any, TypeVar

from django.db.models import Model, QuerySet

from accounts.models import User
from demineur_site.db_router import read_alias
from games.engine import LEVELS
from games.errors import GameError
from games.play.models import SOLO, Game, GameState, Move, UnrankedReason

LIST_STATES = {s.value for s in GameState}
M = TypeVar("M", bound=Model)


def parse_id(raw: Any, *, what: str) -> uuid.UUID:
    """The uuid of a game, a race or an arena (`what`): a non-uuid id is simply an unknown
    one, 404 `not_found` ("No such race.")."""
    try:
        return uuid.UUID(str(raw))
    except (ValueError, TypeError, AttributeError):
        raise GameError("not_found", f"No such {what}.") from None


def row_by_id(rows: QuerySet[M], raw_id: Any, *, what: str) -> M:
    """The row of `rows` with this id (parse_id), else 404 `not_found` as parse_id's."""
    found = rows.filter(pk=parse_id(raw_id, what=what)).first()
    if found is None:
        raise GameError("not_found", f"No such {what}.")
    return found


def parse_game_id(raw: Any) -> uuid.UUID:
    return parse_id(raw, what="game")


def parse_states(raw: str, allowed: set[str]) -> list[str]:
    """`state=a,b` (an extension of API.md: several states, comma-separated) checked against
    `allowed`: an unknown one is 400 `invalid`, with the states there are."""
    states = raw.split(",")
    unknown = [s for s in states if s not in allowed]
    if unknown:
        raise GameError("invalid", f"Unknown state {unknown[0]!r}.", {"states": sorted(allowed)})
    return states


def filter_state_and_level(
    rows: QuerySet[M], *, state: str | None, states: set[str], level: str | None
) -> QuerySet[M]:
    """A race or arena list's `state=` (parse_states against `states`) and `level=` (one of
    the six levels, else 400 `invalid` listing them) filters."""
    if state is not None:
        rows = rows.filter(state__in=parse_states(state, states))
    if level is not None:
        if level not in LEVELS:
            raise GameError("invalid", f"Unknown level {level!r}.", {"levels": list(LEVELS)})
        rows = rows.filter(level=level)
    return rows


def game_get(*, game_id: Any) -> Game:
    try:
        return Game.objects.select_related("player", "analysis").get(pk=parse_game_id(game_id))
    except Game.DoesNotExist:
        raise GameError("not_found", "No such game.") from None


def game_list(*, state: str | None, level: str | None, user: str | None) -> QuerySet[Game]:
    # A list may lag: the replica when there is one (demineur_site.db_router). The alias is
    # chosen now, as the queryset is evaluated later by the view.
    qs = (
        Game.objects.using(read_alias())
        .select_related("player", "analysis")
        .order_by("-created_at", "-id")
    )
    if state is not None:
        qs = qs.filter(state__in=parse_states(state, LIST_STATES))
    if level is not None:
        if level not in LEVELS and level != "custom":
            raise GameError("invalid", f"Unknown level {level!r}.")
        qs = qs.filter(level=level)
    if user is not None:
        # A closed account is off every list (docs/ACCOUNTS.md, Closing).
        qs = qs.filter(player__username=user, player__closed_at__isnull=True)
    return qs


def claim_game(game_id: Any, **still: Any) -> Game | None:
    """The unsealed game `game_id`, locked until the end of the caller's transaction, if it
    still matches `still`; else None. SKIP LOCKED: a game another worker holds is None at once,
    so two workers never wait on each other nor do one game twice."""
    return (
        Game.objects.select_for_update(skip_locked=True, of=("self",))
        .filter(pk=game_id, sealed=False, **still)
        .first()
    )


def sealed_error(game: Game) -> GameError:
    """The refusal of a sealed game to anyone but its player: a race game until its race ends
    (403 `race_running`, API.md Races), a daily game until its day ends (403 `daily_running`,
    API.md Daily challenge)."""
    if game.daily is not None:
        return GameError("daily_running", "This daily game is hidden until the day ends.")
    return GameError("race_running", "This race game is hidden until the race ends.")


def check_moves_visible(*, game: Game, viewer_id: int | None) -> None:
    """A sealed game's moves are its player's alone until its race or day ends."""
    if game.sealed_for(viewer_id):
        raise sealed_error(game)


def check_watchable(*, game: Game, viewer_id: int | None) -> None:
    """Who may open a socket on a game: anyone, except on a sealed race or daily game."""
    if game.sealed_for(viewer_id):
        raise sealed_error(game)


def game_moves(*, game: Game) -> QuerySet[Move]:
    return (
        Move.objects.filter(game=game)
        .order_by("seq")
        .only("seq", "action", "x", "y", "at_ms", "flagged")
    )


def has_played(user: User) -> bool:
    """Whether the account has played: a game counts from its first tap, so an untapped one
    does not (RULES.md, Fair play: the kind can change only before the first game)."""
    return Game.objects.filter(player=user).exclude(state=GameState.NEW).exists()


def user_get(*, username: str) -> User:
    user = User.objects.filter(username=username, is_active=True).first()
    if user is None:
        raise GameError("not_found", "No such player.")
    return user


def recent_games(*, user: User, limit: int = 20) -> list[Game]:
    """The newest ended solo games of a player (API.md, Fine points: 20; race games are in the
    race history, games.races.selectors, and daily games in the daily calendar). Finished games may lag:
    the replica when there is one (demineur_site.db_router)."""
    return list(
        Game.objects.using(read_alias())
        .filter(SOLO, player=user, state__in=(GameState.WON, GameState.LOST))
        .order_by("-ended_at")
        .defer("board")[:limit]
    )


def live_games(*, limit: int) -> list[Game]:
    """The newest running (playing or paused) solo games, for the lobby's snapshot (race games
    are watched through their race). Guests' games are left out (docs/GUESTS.md): a game
    made by a guest is unranked `guest` for good, so that reason is the filter."""
    return list(
        Game.objects.filter(SOLO, state__in=(GameState.PLAYING, GameState.PAUSED))
        .exclude(unranked_reason=UnrankedReason.GUEST)
        .exclude(player__closed_at__isnull=False)  # closed accounts (docs/ACCOUNTS.md)
        .select_related("player")
        .defer("board")
        .order_by("-created_at", "-id")[:limit]
    )


def games_in_progress(*, player_id: int, limit: int = 50) -> list[Game]:
    """The player's games not yet ended (new, playing, paused), oldest first: the start of
    their event stream (/api/stream/event)."""
    return list(
        Game.objects.filter(player_id=player_id, state__in=("new", "playing", "paused"))
        .select_related("player")
        .order_by("created_at")[:limit]
    )
