"""What a viewer may see of a game: the one place that turns a Game into API.md's JSON.

Before the end a Game shows only what the player sees (closed cells are `#`); the layout,
3BV and result stats appear only once the game has ended. A paused game shows no board.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.utils import timezone

from demineur_site.formats import iso
from games import clock
from games.engine import Board
from games.play.counters import counters_dict
from games.play.models import ENDED_STATES, Game, GameAnalysis, GameState


def game_elapsed_ms(game: Game, *, now: datetime | None = None) -> int:
    if game.elapsed_ms is not None and game.state in ENDED_STATES:
        return int(game.elapsed_ms)
    return clock.elapsed_ms(
        started_at=game.started_at,
        now=now or timezone.now(),
        paused_ms=game.paused_ms,
        paused_at=game.paused_at,
        ended_at=game.ended_at,
    )


def result_stats(game: Game) -> dict[str, Any] | None:
    """API.md: after the end only (and, for a race game, once its race has ended: the 3BV is
    the layout's, shared by every racer). The community's counters follow API.md's five
    (games.play.counters; docs/STATS.md)."""
    if game.state not in ENDED_STATES or game.bbbv is None or game.sealed:
        return None
    solved = game.bbbv_solved or 0
    return {
        "bbbv": game.bbbv,
        "bbbv_solved": solved,
        "clicks": game.clicks,
        "bbbv_per_s": round(game.bbbv_per_s, 3) if game.bbbv_per_s is not None else None,
        "efficiency": round(solved / game.clicks, 3) if game.clicks else None,
        **counters_dict(game),
    }


def analysis_dict(game: Game) -> dict[str, Any] | None:
    """API.md's `analysis`: null until the game has ended and been analysed, and for a race
    game until its race has ended (sealed), like the layout it comes from."""
    if game.state not in ENDED_STATES or game.sealed:
        return None
    try:
        row = game.analysis  # one read by key, unless the caller select_related it
    except GameAnalysis.DoesNotExist:
        return None
    return row.as_dict()


def game_dict(
    game: Game,
    *,
    player_name: str,
    viewer_id: int | None = None,
    board: Board | None = None,
    now: datetime | None = None,
    at_ms: int | None = None,
) -> dict[str, Any]:
    """The Game object of API.md as `viewer_id` (None: anonymous) may see it. `board` may be
    passed when the caller already decoded it.

    `at_ms` is the game clock to show instead of the clock at `now`: a move's answer carries
    that move's clock (Move.at_ms, as its socket frame does), not the clock at the moment the
    answer happens to be built, which under load is tens of milliseconds later.

    A race game while its race runs, or a daily game while its day runs (`sealed`, RULES.md):
    no board for anyone but its player, and for its player no layout even once their own game
    has ended (a racer who opens a mine on purpose must not learn where the others' mines are,
    nor a daily player what a second account would then play knowing)."""
    rows: list[str] | None
    if game.state == GameState.PAUSED or game.sealed_for(viewer_id):
        rows = None  # RULES.md, Time: a paused game's board is hidden from every response
    else:
        rows = (board or Board.decode(bytes(game.board))).render(layout=not game.sealed)
        if game.sealed:
            # API.md: no mine, no `X`, no `!` until the race or the day ends. The engine's
            # board without its layout still marks the mines the player opened (a chord can
            # open several): they show closed, like every cell the layout alone knows.
            rows = [row.replace("X", "#") for row in rows]
    return {
        "id": str(game.id),
        "player": player_name,
        "level": game.level,
        "no_guess": game.no_guess,
        "width": game.width,
        "height": game.height,
        "mines": game.mines,
        "state": game.state,
        "mines_left": game.mines_left,
        "elapsed_ms": game_elapsed_ms(game, now=now) if at_ms is None else at_ms,
        "created_at": iso(game.created_at),
        "started_at": iso(game.started_at),
        "ended_at": iso(game.ended_at),
        "ranked": game.ranked,
        "unranked_reason": game.unranked_reason,
        # A race game names its race (API.md, Races); solo games have none.
        "race": str(game.race_id) if game.race_id is not None else None,
        # A daily game (practice included) names its day (API.md, Daily challenge).
        "daily": game.daily.isoformat() if game.daily is not None else None,
        "end_reason": game.end_reason,
        "result_stats": result_stats(game),
        "seq": game.seq,
        "board": rows,
        # The caller that passes the board it just played is the move path: a game that
        # ends in this request cannot have its analysis yet (it is made after the commit).
        "analysis": None if board is not None else analysis_dict(game),
    }


def lobby_game_dict(game: Game, *, player: Any) -> dict[str, Any]:
    """A game as the lobby (/ws/live) lists it: who plays what, and how it stands. No board.
    `player_kind` marks bots (RULES.md, Fair play)."""
    return {
        "id": str(game.id),
        "player": player.username,
        "player_kind": player.kind,
        "level": game.level,
        "no_guess": game.no_guess,
        "width": game.width,
        "height": game.height,
        "state": game.state,
        "end_reason": game.end_reason,
        "ranked": game.ranked,
        "elapsed_ms": game_elapsed_ms(game),
    }


def move_dict(move: Any) -> dict[str, Any]:
    return {
        "seq": move.seq,
        "action": move.action,
        "x": move.x,
        "y": move.y,
        "at_ms": move.at_ms,
        # An extension of API.md: the explicit `flagged` of a flag move (null for a toggle),
        # so that a replay can re-apply it exactly.
        "flagged": move.flagged,
    }
