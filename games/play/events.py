"""Live events of a game and of the lobby: one typed constructor per event.

Every message a socket can receive about a game or the lobby is built here, by one function
each, whoever causes it (a REST view, a socket move, the idle sweep):

    /ws/games/{id}   state_event  move_event  paused_event  resumed_event  ended_event
                     discarded_event (internal: the consumer turns it into a 404 error)
    /ws/live         live_event  game_started_event  game_ended_event  record_event

Each returns a TypedDict, so the value is a plain dict (it crosses the channel layer as is)
and mypy checks every key. A move's ``elapsed_ms`` is the move's own clock (``Move.at_ms``),
never "now": the constructor asks for ``at_ms`` to make that explicit.

Over 400 lines on purpose: one owner for every live event (their constructors, types and the
one publisher), so that no other module builds a frame.

Services call `game_on_commit` / `lobby_on_commit` inside their transaction; the event leaves
only after the commit, so a watcher never sees a move that was rolled back.

Publishing itself (one loop thread per process, the wait for Redis, the breaker, the
`LIVE_EVENTS` switch) is demineur_site.publish, the only caller of group_send.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Mapping
from datetime import datetime
from typing import Any, Literal, TypedDict, cast
from uuid import UUID

from demineur_site import publish
from games.engine import Board
from games.live.frames import dumps  # every frame's one writing (the sockets' too)
from games.play.models import Game
from games.play.presenters import game_dict, lobby_game_dict

log = logging.getLogger(__name__)

LOBBY_GROUP = "lobby"
# Consumers dispatch on the event "type": game.event -> game_event(), lobby.event -> lobby_event().
GAME_EVENT_TYPE = "game.event"
LOBBY_EVENT_TYPE = "lobby.event"


def game_group(game_id: UUID | str) -> str:
    return f"game.{game_id}"


def game_on_commit(game_id: UUID | str, event: GameEvent) -> None:
    """Publish `event` (it carries the game's `seq`) to the game's watchers after the commit."""
    message = {"type": GAME_EVENT_TYPE, "game_id": str(game_id), "event": event}
    publish.on_commit(game_group(game_id), message)


# /api/stream/event (games.live.streams): one group per account, its game and race starts/ends.
STREAM_EVENT_TYPE = "stream.event"


def player_stream_group(player_id: int) -> str:
    return f"player.{int(player_id)}.stream"


def player_on_commit(player_id: int, event: dict[str, Any]) -> None:
    """Publish `event` (game_start, game_end, game_discarded, race_start, race_end) to the
    player's event stream after the commit."""
    message = {"type": STREAM_EVENT_TYPE, "event": event}
    publish.on_commit(player_stream_group(player_id), message)


def game_stream_event(kind: str, game: Game) -> dict[str, Any]:
    """`game_start`, `game_end` or `game_discarded`: the Game as its own player sees it."""
    return {
        "type": kind,
        "game": game_dict(game, player_name=game.player.username, viewer_id=game.player_id),
    }


def lobby_on_commit(event: LobbyEvent) -> None:
    """Publish a lobby event (game_started, game_ended, record) to /ws/live after the commit."""
    if event.get("player_kind") == "guest":
        return  # guests' games stay out of the lobby's lists (docs/GUESTS.md)
    publish.on_commit(LOBBY_GROUP, {"type": LOBBY_EVENT_TYPE, "event": event})


# --- /ws/games/{id} ---------------------------------------------------------------------------

Change = dict[str, Any]  # {"x", "y", "v"}: engine.Outcome.change_dicts
GameJson = dict[str, Any]  # the API.md Game: presenters.game_dict


class StateEvent(TypedDict):
    type: Literal["state"]
    seq: int
    game: GameJson


# Optional keys live in a `total=False` subclass rather than behind NotRequired[...]: with
# postponed annotations, only the class-level totality shows in __optional_keys__ at runtime
# (tests/play/test_events.py checks every published event against these key sets).


class _MoveKeys(TypedDict):
    type: Literal["move"]
    seq: int
    action: str
    changes: list[Change]
    state: str
    mines_left: int
    elapsed_ms: int


class MoveEvent(_MoveKeys, total=False):
    client_move_id: str  # a socket client matches its answer by it
    replayed: Literal[True]  # to the sender alone: the replay of a client_move_id


class PausedEvent(TypedDict):
    type: Literal["paused"]
    seq: int
    elapsed_ms: int
    state: str


class ResumedEvent(TypedDict):
    type: Literal["resumed"]
    seq: int
    elapsed_ms: int
    state: str
    game: GameJson


class EndedEvent(TypedDict):
    type: Literal["ended"]
    seq: int
    game: GameJson


class DiscardedEvent(TypedDict):
    type: Literal["discarded"]
    seq: int


GameEvent = StateEvent | MoveEvent | PausedEvent | ResumedEvent | EndedEvent | DiscardedEvent


def state_event(*, seq: int, game: GameJson) -> StateEvent:
    """The game as it is: on connect, after a gap, or a no-op pause/resume (sender alone)."""
    return {"type": "state", "seq": seq, "game": game}


def move_event(
    game: Game,
    *,
    action: str,
    changes: list[Change],
    at_ms: int,
    seq: int | None = None,
    client_move_id: str | None = None,
    replayed: bool = False,
) -> MoveEvent:
    """A reveal, flag, chord, or the move of a resign or an abandon. `at_ms` is the game clock
    when the server received the move (Move.at_ms); `seq` is the move's own (the game's by
    default: a replay passes the original move's). `state` and `mines_left` are the game's as
    it is now, as a replay's answer is (API.md, MoveResult)."""
    event: MoveEvent = {
        "type": "move",
        "seq": game.seq if seq is None else seq,
        "action": str(action),
        "changes": changes,
        "state": str(game.state),
        "mines_left": game.mines_left,
        "elapsed_ms": at_ms,
    }
    if client_move_id is not None:
        event["client_move_id"] = client_move_id
    if replayed:
        event["replayed"] = True
    return event


def paused_event(game: Game, *, at_ms: int) -> PausedEvent:
    """No board: a paused game's board is hidden (RULES.md, Time)."""
    return {"type": "paused", "seq": game.seq, "elapsed_ms": at_ms, "state": str(game.state)}


def resumed_event(
    game: Game, *, at_ms: int, player_name: str, board: Board, now: datetime
) -> ResumedEvent:
    return {
        "type": "resumed",
        "seq": game.seq,
        "elapsed_ms": at_ms,
        "state": str(game.state),
        "game": game_dict(
            game, player_name=player_name, viewer_id=game.player_id, board=board, now=now
        ),
    }


def ended_event(game: Game, *, player_name: str, board: Board) -> EndedEvent:
    """Right after the move that ended the game, with its seq; the whole layout."""
    return {
        "type": "ended",
        "seq": game.seq,
        # A sealed race game's group holds its player's sockets only (games.play.sockets).
        "game": game_dict(game, player_name=player_name, viewer_id=game.player_id, board=board),
    }


def discarded_event(game: Game) -> DiscardedEvent:
    """An untapped game was deleted: its watchers get a 404 error and close 4404."""
    return {"type": "discarded", "seq": game.seq}


# --- /ws/live -------------------------------------------------------------------------------


class LobbyGame(TypedDict):
    """A game as the lobby lists it (presenters.lobby_game_dict): no board."""

    id: str
    player: str
    player_kind: str
    level: str
    no_guess: bool  # a no-guess game (docs/NOGUESS.md)
    width: int
    height: int
    state: str
    end_reason: str | None
    ranked: bool
    elapsed_ms: int


class LiveEvent(TypedDict):
    type: Literal["live"]
    games: list[LobbyGame]


class _LobbyGameKeys(LobbyGame):
    type: Literal["game_started", "game_ended"]


class LobbyGameEvent(_LobbyGameKeys, total=False):
    discarded: Literal[True]  # game_ended of an untapped game that was deleted


class _RecordKeys(TypedDict):
    type: Literal["record"]
    player: str
    level: str
    game_id: str
    kind: Literal["time", "speed"]


class RecordEvent(_RecordKeys, total=False):
    time_ms: int  # kind "time"
    bbbv_per_s: float  # kind "speed"


LobbyEvent = LiveEvent | LobbyGameEvent | RecordEvent


def lobby_game(game: Game, *, player: Any) -> LobbyGame:
    return cast(LobbyGame, lobby_game_dict(game, player=player))


def live_event(games: list[LobbyGame]) -> LiveEvent:
    """The lobby's snapshot on connect: the newest running games."""
    return {"type": "live", "games": games}


def game_started_event(game: Game, *, player: Any) -> LobbyGameEvent:
    return cast(LobbyGameEvent, {"type": "game_started", **lobby_game(game, player=player)})


def game_ended_event(game: Game, *, player: Any, discarded: bool = False) -> LobbyGameEvent:
    event = cast(LobbyGameEvent, {"type": "game_ended", **lobby_game(game, player=player)})
    if discarded:
        event["discarded"] = True
    return event


def record_event(
    game: Game, *, player_name: str, kind: Literal["time", "speed"], value: float
) -> RecordEvent:
    """A new personal best on a ranked board: `time_ms` (kind "time") or `bbbv_per_s`."""
    event: RecordEvent = {
        "type": "record",
        "player": player_name,
        "level": game.level,
        "game_id": str(game.id),
        "kind": kind,
    }
    if kind == "time":
        event["time_ms"] = int(value)
    else:
        event["bbbv_per_s"] = round(value, 3)
    return event


# --- frames -----------------------------------------------------------------------------------

# One event goes to every watcher of a game in this process: encode it once, not once per
# watcher (bench/live: JSON encoding per socket dominated fan-out to 1,000 watchers).
# An event's text never changes: its (game, type, seq) is unique and it is sent after commit.
_ENCODED_MAX = 1024
_encoded: OrderedDict[tuple[str, str, int], str] = OrderedDict()


def encode_event(game_id: str, event: Mapping[str, Any]) -> str:
    """The JSON text of a published game event, encoded once per process; a race's events
    too (games.races.sockets: `game_id` is then the race's id, another uuid)."""
    key = (game_id, event["type"], event["seq"])
    text = _encoded.get(key)
    if text is None:
        text = dumps(event)
        _encoded[key] = text
        if len(_encoded) > _ENCODED_MAX:
            _encoded.popitem(last=False)
    return text
