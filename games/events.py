"""Live events: one typed constructor per event, and the only caller of group_send.

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

Publishing from sync code: `async_to_sync(group_send)` per call starts an event loop and a
Redis connection each time (shared/perf: -57 % move throughput). With a Redis layer we keep
one event-loop thread per process and hand it each send; with the in-memory layer (dev, no
Redis) we must send on the loop that owns the layer's queues, so we use async_to_sync.

The caller waits for the PUBLISH to be acknowledged (about 0.1 ms on loopback) before going on,
so the HTTP answer to a move leaves only after its event is in Redis. Without that wait, two
moves answered one after the other by two server processes could reach Redis in the opposite
order (bench/live saw it: watchers got seq 499 before 498 and had to re-read the game). With
it, a client that waits for each answer before its next move gets its events in order,
whichever processes serve it. If Redis is slow or down the move still stands: the wait gives
up after PUBLISH_WAIT_SECONDS and the watchers recover through the `seq` gap.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Mapping
from concurrent.futures import Future
from datetime import datetime
from typing import Any, Literal, TypedDict, cast
from uuid import UUID

from asgiref.sync import async_to_sync
from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.conf import settings
from django.db import transaction

from .engine import Board
from .models import Game
from .presenters import game_dict, lobby_game_dict

log = logging.getLogger(__name__)

LOBBY_GROUP = "lobby"
PUBLISH_WAIT_SECONDS = 0.5
# Consumers dispatch on the event "type": game.event -> game_event(), lobby.event -> lobby_event().
GAME_EVENT_TYPE = "game.event"
LOBBY_EVENT_TYPE = "lobby.event"


def game_group(game_id: UUID | str) -> str:
    return f"game.{game_id}"


class _LoopThread:
    """One daemon thread per process running an asyncio loop for outgoing publishes."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Lock()
        self._pid = 0

    def loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None or self._pid != os.getpid():  # a fork gets its own thread
                loop = asyncio.new_event_loop()
                thread = threading.Thread(
                    target=loop.run_forever, name="events-publisher", daemon=True
                )
                thread.start()
                self._loop, self._pid = loop, os.getpid()
            return self._loop

    def submit(self, coro: Any) -> Future[Any]:
        return asyncio.run_coroutine_threadsafe(coro, self.loop())


_publisher = _LoopThread()


_pending: set[Future[Any]] = set()
_pending_lock = threading.Lock()


def _done(future: Future[Any]) -> None:
    with _pending_lock:
        _pending.discard(future)
    exc = future.exception()
    if exc is not None:
        log.warning("publishing a live event failed: %r", exc)


class _Breaker:
    """While Redis is away, publishing is skipped instead of tried: a move must not wait
    PUBLISH_WAIT_SECONDS for each of its events. After a failure, events are dropped for
    RETRY_SECONDS, then one publish tries again. Watchers resync when Redis is back
    (games.redis_watch), so what was dropped is never shown wrong, only late."""

    RETRY_SECONDS = 1.0

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._retry_at = 0.0
        self.down = False
        self.dropped = 0

    def allows(self) -> bool:
        with self._lock:
            if not self.down or time.monotonic() >= self._retry_at:
                return True
            self.dropped += 1
            return False

    def failed(self, exc: BaseException) -> None:
        with self._lock:
            if not self.down:
                log.warning("live events dropped: Redis does not answer (%r)", exc)
            self.down = True
            self.dropped += 1
            self._retry_at = time.monotonic() + self.RETRY_SECONDS

    def succeeded(self) -> None:
        with self._lock:
            if self.down:
                log.warning("live events flow again; %d were dropped", self.dropped)
            self.down, self.dropped = False, 0


_breaker = _Breaker()


# The ASGI server's event loop, once it has started (bind_server_loop). With the in-memory
# layer (`make run`), the watchers' queues belong to that loop: a publish from any other thread
# must run there. From asgiref's threads async_to_sync finds it alone; from a plain thread
# (the race clock) it would run the publish on a private loop, and the watcher would hear of it
# only when something else woke the server's loop.
_server_loop: asyncio.AbstractEventLoop | None = None


def bind_server_loop(loop: asyncio.AbstractEventLoop) -> None:
    """Called in the server's loop at start-up (demineur_site.asgi)."""
    global _server_loop
    _server_loop = loop


def _send_in_memory(layer: InMemoryChannelLayer, group: str, message: dict[str, Any]) -> None:
    loop = _server_loop
    if loop is not None and loop.is_running():
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is not loop:
            future = asyncio.run_coroutine_threadsafe(layer.group_send(group, message), loop)
            future.result(PUBLISH_WAIT_SECONDS)
            return
    async_to_sync(layer.group_send)(group, message)


def send_now(group: str, message: dict[str, Any]) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    if isinstance(layer, InMemoryChannelLayer):
        _send_in_memory(layer, group, message)
        return
    if not _breaker.allows():
        return  # Redis is away: the event is dropped (counted and logged by the breaker)
    future = _publisher.submit(layer.group_send(group, message))
    with _pending_lock:
        _pending.add(future)
    future.add_done_callback(_done)
    try:
        future.result(PUBLISH_WAIT_SECONDS)
    except Exception as exc:  # logged by _done too; the committed move must not fail here
        _breaker.failed(exc)
    else:
        _breaker.succeeded()


def flush(timeout: float = 5.0) -> None:
    """Wait until every publish handed to the loop thread so far has been sent (tests, shutdown)."""
    with _pending_lock:
        waiting = list(_pending)
    for future in waiting:
        future.result(timeout)


def game_on_commit(game_id: UUID | str, event: GameEvent) -> None:
    """Publish `event` (it carries the game's `seq`) to the game's watchers after the commit."""
    if not settings.LIVE_EVENTS:
        return
    message = {"type": GAME_EVENT_TYPE, "game_id": str(game_id), "event": event}
    group = game_group(game_id)
    transaction.on_commit(lambda: send_now(group, message))


def lobby_on_commit(event: LobbyEvent) -> None:
    """Publish a lobby event (game_started, game_ended, record) to /ws/live after the commit."""
    if not settings.LIVE_EVENTS:
        return
    if event.get("player_kind") == "guest":
        return  # guests' games stay out of the lobby's lists (docs/GUESTS.md)
    message = {"type": LOBBY_EVENT_TYPE, "event": event}
    transaction.on_commit(lambda: send_now(LOBBY_GROUP, message))


# --- /ws/games/{id} ---------------------------------------------------------------------------

Change = dict[str, Any]  # {"x", "y", "v"}: engine.Outcome.change_dicts
GameJson = dict[str, Any]  # the API.md Game: presenters.game_dict


class StateEvent(TypedDict):
    type: Literal["state"]
    seq: int
    game: GameJson


# Optional keys live in a `total=False` subclass rather than behind NotRequired[...]: with
# postponed annotations, only the class-level totality shows in __optional_keys__ at runtime
# (tests/games/test_events.py checks every published event against these key sets).


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
        # A sealed race game's group holds its player's sockets only (games.consumers).
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


def dumps(payload: Any) -> str:
    return json.dumps(payload, separators=(",", ":"))


def encode_event(game_id: str, event: Mapping[str, Any]) -> str:
    """The JSON text of a published game event, encoded once per process."""
    key = (game_id, event["type"], event["seq"])
    text = _encoded.get(key)
    if text is None:
        text = dumps(event)
        _encoded[key] = text
        if len(_encoded) > _ENCODED_MAX:
            _encoded.popitem(last=False)
    return text
