"""WebSocket doors (API.md, Live updates). Thin: events come from games.events, moves go to
games.services, what a viewer may see comes from games.presenters.

``/ws/games/{id}`` (GameConsumer)
    Joins the game's group first, then reads the snapshot and sends ``state``; then forwards
    ``move``, ``paused``, ``resumed`` and ``ended`` in ``seq`` order. An event already in the
    snapshot (seq <= the last seq sent) is dropped. An event that skips a seq is held up to
    REORDER_WAIT_SECONDS for the missing one (two server processes may publish out of order);
    if the gap remains, the consumer re-reads the game and sends a fresh ``state``, so a
    watcher never has to guess. If the player's own move's event never comes back, the
    consumer re-reads the game after LOST_EVENT_SECONDS.
    The player may send ``{"action": "reveal|flag|chord", "x", "y", "flagged"?,
    "client_move_id"?}`` or ``{"action": "pause|resume|resign"}``; the answer is the event
    every watcher gets. Errors go to the sender alone as ``{"type": "error", "client_move_id",
    "error": {code, message, details}}``. An unknown or non-uuid game: the socket is accepted,
    gets one ``error`` (404 ``not_found``) and is closed with code 4404.

``/ws/live`` (LobbyConsumer)
    A ``live`` snapshot of the newest running games, then ``game_started``, ``game_ended``
    and ``record`` events as they happen.

Frames from clients (docs/SECURITY.md, "The WebSocket edge"), checked in this order before any
parsing:

* a text or binary frame over WS_MAX_FRAME_BYTES (4096; uvicorn's ``--ws-max-size`` enforces
  the same at the server) gets one ``error`` (400 ``frame_too_large``) and the socket is
  closed with 1009 (message too big), as uvicorn itself closes an over-long frame;
* a frame from anyone who may not move (anonymous: 401 ``not_authenticated``; signed in but
  not the game's player: 403 ``not_your_game``; anyone on the read-only lobby: 400
  ``invalid``) is never parsed: it gets an ``error`` and, at the WATCHER_FRAMES_MAX-th such
  frame, the socket is closed with 4000 + that status (4401, 4403, 4400);
* the player's frames are parsed; anything that is not a JSON object with a string
  ``action`` is a 400 (``malformed_json`` or ``invalid``), never a 500.

A socket signed in with a token or a session joins that credential's group
(accounts.socket_credentials): revoking the token or signing out closes it with one
``error`` (401 ``authentication_failed``) and code 4401, and each move re-checks the
credential in its database thread before it is stored.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import re
import time
from collections import OrderedDict
from typing import Any

from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.exceptions import StopConsumer
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.layers import get_channel_layer
from django.conf import settings
from rest_framework import serializers

from accounts import socket_credentials
from demineur_site.api_errors import ApiError, error_body

from . import events, selectors, services, socket_guard
from .api.serializers import FlagIn, MoveIn
from .errors import GameError
from .models import ENDED_STATES, Game
from .presenters import game_dict, game_elapsed_ms, lobby_game_dict

log = logging.getLogger(__name__)

CLOSE_NOT_FOUND = 4404
CLOSE_UNAUTHENTICATED = 4401  # a revoked token, a signed-out session (as games.ws_auth)
CLOSE_TOO_BIG = 1009  # RFC 6455 "message too big", what uvicorn's --ws-max-size sends
# Frames a socket that may not move gets answered (without being parsed) before it is closed.
WATCHER_FRAMES_MAX = 5
# A watcher's frame is never parsed; a plain `"client_move_id": "..."` is echoed if present.
_CLIENT_MOVE_ID = re.compile(r'"client_move_id"\s*:\s*"([^"\\]{0,64})"')
LOBBY_SNAPSHOT_SIZE = 50
# Redis Pub/Sub is fire-and-forget. When the player's own move was stored but its event has
# not come back after this long, re-read the game rather than leave the player waiting.
LOST_EVENT_SECONDS = 2.0
# How long an event that skips a seq is held for the missing one before the game is re-read.
REORDER_WAIT_SECONDS = 0.2
MOVE_ACTIONS = {"reveal": MoveIn, "flag": FlagIn, "chord": MoveIn}
STATE_ACTIONS = {
    "pause": services.game_pause,
    "resume": services.game_resume,
    "resign": services.game_resign,
}

# One event goes to every watcher of a game in this process: encode it once, not once per
# watcher (bench/live: JSON encoding per socket dominated fan-out to 1,000 watchers).
# An event's text never changes: its (game, type, seq) is unique and it is sent after commit.
_ENCODED_MAX = 1024
_encoded: OrderedDict[tuple[str, str, int], str] = OrderedDict()


def _dumps(payload: Any) -> str:
    return json.dumps(payload, separators=(",", ":"))


def encode_event(game_id: str, event: dict[str, Any]) -> str:
    key = (game_id, event["type"], event["seq"])
    text = _encoded.get(key)
    if text is None:
        text = _dumps(event)
        _encoded[key] = text
        if len(_encoded) > _ENCODED_MAX:
            _encoded.popitem(last=False)
    return text


def _error_frame(
    exc: ApiError, client_move_id: Any = None, seq: int | None = None
) -> dict[str, Any]:
    """An error to the sender alone. `seq` is the last one this socket was sent (null before
    any game state), so that every game message carries one as API.md says."""
    return {
        "type": "error",
        "seq": seq,
        "client_move_id": client_move_id,
        **error_body(exc.code, exc.message, exc.details),
    }


class _LeanConsumer(AsyncWebsocketConsumer):  # type: ignore[misc]  # channels ships no types
    """A consumer whose per-message path is short, because one event goes to every watcher.

    Two changes to channels' AsyncConsumer, both measured with bench/live:

    * its dispatch() runs close_old_connections through sync_to_async before *every* message:
      a hop to the one sync thread per message and per watcher, which made fan-out to 1,000
      watchers take over a second. Our handlers touch the database only through
      database_sync_to_async, which manages connections itself, so that hop is skipped;
    * its loop builds an asyncio.wait() and a new task per message. Here two long-lived tasks
      read the socket and the channel, and a lock keeps handlers one at a time, in order
      (a game event waits while the player's move is being stored).
    """

    closing = False  # close() was sent: read no more frames
    refused_frames = 0
    credential_group: str | None = None

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        self.scope = scope
        self.channel_layer = get_channel_layer(self.channel_layer_alias)
        self.channel_name = await self.channel_layer.new_channel()
        self.base_send = send
        self.turn = asyncio.Lock()
        credential = scope.get("credential")
        if credential is not None:
            # Revoking the token or signing out kicks this group (auth_kick below).
            self.credential_group = credential.group
            await self.channel_layer.group_add(self.credential_group, self.channel_name)

        async def pump(source: Any) -> None:
            while True:
                message = await source()
                async with self.turn:
                    await self.dispatch(message)

        from_channel = functools.partial(self.channel_layer.receive, self.channel_name)
        tasks = [asyncio.ensure_future(pump(receive)), asyncio.ensure_future(pump(from_channel))]
        try:
            done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
            for task in done:
                exc = task.exception()
                if exc is not None and not isinstance(exc, StopConsumer):
                    raise exc
        finally:
            for task in tasks:
                task.cancel()
            for task in tasks:
                # Already raised above, or cancelled just now: only wait for the task to finish.
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
            if self.credential_group is not None:
                with contextlib.suppress(Exception):
                    await self.channel_layer.group_discard(self.credential_group, self.channel_name)

    async def dispatch(self, message: dict[str, Any]) -> None:
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def close(self, code: int | None = None, reason: str | None = None) -> None:
        self.closing = True
        await super().close(code=code, reason=reason)

    async def send(
        self, text_data: str | None = None, bytes_data: bytes | None = None, close: bool = False
    ) -> None:
        # After our close (a kick, a 4404, a 1009), events may still be queued for this socket
        # until the server reports the disconnect: a send then would be an ASGI error.
        if not self.closing:
            await super().send(text_data=text_data, bytes_data=bytes_data, close=close)

    async def websocket_receive(self, message: dict[str, Any]) -> None:
        """Every client frame passes here first: its size is checked before anything reads it."""
        if self.closing:
            return
        text, data = message.get("text"), message.get("bytes")
        limit = socket_guard.max_frame_bytes()
        if text is not None:
            too_big = len(text) > limit or len(text.encode("utf-8", "surrogatepass")) > limit
        else:
            too_big = len(data or b"") > limit
        if too_big:
            await self._send_error(
                ApiError(
                    400,
                    "frame_too_large",
                    f"Frames are at most {limit} bytes.",
                    {"max_bytes": limit},
                )
            )
            await self.close(code=CLOSE_TOO_BIG)
            return
        if text is not None:
            await self.receive(text_data=text)
        else:
            await self.receive(bytes_data=data or b"")

    async def _send_error(self, exc: ApiError, client_move_id: Any = None) -> None:
        await self.send(text_data=_dumps(_error_frame(exc, client_move_id)))

    async def _refuse_frame(self, exc: ApiError, client_move_id: Any = None) -> None:
        """A frame from a socket that may not send any: answered, never parsed; the
        WATCHER_FRAMES_MAX-th one closes the socket with 4000 + the error's status."""
        self.refused_frames += 1
        await self._send_error(exc, client_move_id)
        if self.refused_frames >= WATCHER_FRAMES_MAX:
            await self.close(code=4000 + exc.status_code)

    async def auth_kick(self, message: dict[str, Any]) -> None:
        """The socket's token was revoked or its session signed out (accounts.socket_credentials)."""
        if self.closing:
            return
        why = (
            "The token of this socket was revoked."
            if message.get("reason") == socket_credentials.REASON_TOKEN_REVOKED
            else "The session of this socket was signed out."
        )
        await self._send_error(ApiError(401, "authentication_failed", why))
        await self.close(code=CLOSE_UNAUTHENTICATED)


class _CredentialEnded(ApiError):
    def __init__(self) -> None:
        super().__init__(401, "authentication_failed", "This socket's sign-in has ended.")


def _check_credential(credential: socket_credentials.SocketCredential | None) -> None:
    """In the move's database thread, before the move: the token or session still stands."""
    if credential is not None and not socket_credentials.credential_is_valid(credential):
        raise _CredentialEnded()


class _Snapshot:
    __slots__ = ("ended", "game", "player_id", "seq")

    def __init__(self, game: Game) -> None:
        self.game = game_dict(game, player_name=game.player.username)
        self.seq: int = game.seq
        self.player_id: int = game.player_id
        self.ended = game.state in ENDED_STATES


def _read_snapshot(game_id: Any) -> _Snapshot:
    return _Snapshot(selectors.game_get(game_id=game_id))


def _play(
    *,
    game_id: Any,
    player: Any,
    action: str,
    body: dict[str, Any],
    credential: socket_credentials.SocketCredential | None = None,
) -> tuple[int, dict[str, Any] | None]:
    """Run a move through the same service as REST. Returns its seq, and the frame for the
    sender alone when the move was a replay of a `client_move_id` (a replay publishes nothing);
    otherwise the answer is the `move` event every watcher gets."""
    _check_credential(credential)
    result = services.game_move(
        game_id=game_id,
        player=player,
        action=action,
        x=body["x"],
        y=body["y"],
        flagged=body.get("flagged"),
        client_move_id=body.get("client_move_id"),
    )
    if not result.replayed:
        return result.seq, None
    game = result.game
    return result.seq, {
        "type": "move",
        "seq": result.seq,
        "action": action,
        "changes": result.changes,
        "state": game.state,
        "mines_left": game.mines_left,
        "elapsed_ms": game_elapsed_ms(game),
        "client_move_id": body.get("client_move_id"),
        "replayed": True,
    }


def _act(
    *,
    game_id: Any,
    player: Any,
    action: str,
    credential: socket_credentials.SocketCredential | None = None,
) -> tuple[int, dict[str, Any]]:
    _check_credential(credential)
    game = STATE_ACTIONS[action](game_id=game_id, player=player)
    return game.seq, game_dict(game, player_name=player.username)


class TokenBucket:
    """Moves over one socket are throttled like REST moves (429 `throttled`): `rate` a second
    on average, bursts of up to `burst`. Time comes from the server's monotonic clock."""

    def __init__(self, *, rate: float, burst: int) -> None:
        self.rate, self.burst = rate, float(burst)
        self.tokens, self.stamp = float(burst), time.monotonic()

    def take(self, now: float | None = None) -> float:
        """Spend one token; returns 0 when allowed, else the seconds to wait."""
        now = time.monotonic() if now is None else now
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return 0.0
        return (1 - self.tokens) / self.rate


class GameConsumer(_LeanConsumer):
    """One socket watching (and, for its player, playing) one game."""

    game_id: str
    group: str | None = None
    last_seq = -1
    ended = False
    player_id: int | None = None
    watchdog: asyncio.Task[None] | None = None
    gap_timer: asyncio.Task[None] | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.held: dict[int, list[dict[str, Any]]] = {}  # events waiting for an earlier seq
        self.bucket = TokenBucket(
            rate=settings.WS_MESSAGES_PER_SECOND, burst=settings.WS_MESSAGES_BURST
        )

    # --- connection ---------------------------------------------------------------------

    async def connect(self) -> None:
        raw = self.scope["url_route"]["kwargs"].get("game_id")
        try:
            self.game_id = str(selectors.parse_game_id(raw))
        except GameError as exc:
            await self._refuse(exc)
            return
        # Join first, read second: an event committed after the read is already queued for us,
        # one committed before it is in the snapshot (and dropped by its seq).
        self.group = events.game_group(self.game_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        try:
            snapshot = await database_sync_to_async(_read_snapshot)(self.game_id)
        except GameError as exc:
            await self.channel_layer.group_discard(self.group, self.channel_name)
            self.group = None
            await self._refuse(exc)
            return
        self.player_id = snapshot.player_id
        await self.accept()
        await self._send_state(snapshot)

    async def _refuse(self, exc: ApiError) -> None:
        await self.accept()
        await self.send(text_data=_dumps(_error_frame(exc)))
        await self.close(code=4000 + exc.status_code)  # 4404 for an unknown game

    async def disconnect(self, code: int) -> None:
        for task in (self.watchdog, self.gap_timer):
            if task is not None:
                task.cancel()
        if self.group is not None:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    # --- server -> client ---------------------------------------------------------------

    async def _send_state(self, snapshot: _Snapshot) -> None:
        self.last_seq = snapshot.seq
        self.ended = snapshot.ended
        await self.send(
            text_data=_dumps({"type": "state", "seq": snapshot.seq, "game": snapshot.game})
        )

    async def _resync(self, why: str) -> None:
        log.warning("game %s: sending a fresh state (%s)", self.game_id, why)
        try:
            snapshot = await database_sync_to_async(_read_snapshot)(self.game_id)
        except GameError:  # the game vanished (a discarded untapped game): nothing to show
            await self.close(code=CLOSE_NOT_FOUND)
            return
        await self._send_state(snapshot)

    async def game_event(self, message: dict[str, Any]) -> None:
        """An event of games.events. See the module docstring for the seq rules."""
        event = message["event"]
        if self.ended:
            return
        if event["type"] == "discarded":
            # An untapped game replaced or left a day no longer exists: answer as for an
            # unknown game (one 404 error, close 4404) rather than leave the socket silent.
            self.ended = True
            await self._send_error(GameError("not_found", "No such game: it was discarded."))
            await self.close(code=CLOSE_NOT_FOUND)
            return
        seq = event["seq"]
        if seq < self.last_seq or (seq == self.last_seq and event["type"] != "ended"):
            return  # already in the snapshot or already sent
        if self._next_in_line(event):
            await self._forward(event)
            await self._forward_held()
            return
        # An event from the future: an earlier one is late (two server processes published
        # them) or lost. Hold it briefly; if the gap is still there, re-read the game.
        self.held.setdefault(seq, []).append(event)
        if self.gap_timer is None:
            self.gap_timer = asyncio.ensure_future(self._close_gap_later())

    def _next_in_line(self, event: dict[str, Any]) -> bool:
        # `ended` shares the seq of the move that ended the game and comes right after it.
        if event["type"] == "ended":
            return bool(event["seq"] == self.last_seq)
        return bool(event["seq"] == self.last_seq + 1)

    async def _forward(self, event: dict[str, Any]) -> None:
        if event["type"] == "ended":
            self.ended = True
        else:
            self.last_seq = event["seq"]
        await self.send(text_data=encode_event(self.game_id, event))

    async def _forward_held(self) -> None:
        while self.held and not self.ended:
            self._drop_stale_held()
            waiting = [*self.held.get(self.last_seq, []), *self.held.get(self.last_seq + 1, [])]
            ready = [e for e in waiting if self._next_in_line(e)]
            if not ready:
                break
            event = ready[0]
            self.held[event["seq"]].remove(event)
            if not self.held[event["seq"]]:
                del self.held[event["seq"]]
            await self._forward(event)
        if self.ended:
            self.held.clear()

    def _drop_stale_held(self) -> None:
        """Forget held events that a fresh state already covers."""
        for seq in list(self.held):
            kept = [e for e in self.held[seq] if self._next_in_line(e) or seq > self.last_seq]
            if kept:
                self.held[seq] = kept
            else:
                del self.held[seq]

    async def _close_gap_later(self) -> None:
        await asyncio.sleep(REORDER_WAIT_SECONDS)
        async with self.turn:
            self.gap_timer = None
            if self.held and not self.ended:
                first = min(self.held)
                with contextlib.suppress(Exception):  # the socket may be gone by now
                    await self._resync(f"seq {first} after {self.last_seq}")
                    await self._forward_held()

    # --- client -> server ---------------------------------------------------------------

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated or user.pk != self.player_id:
            # A watcher: answered without parsing anything (only a plain client_move_id is
            # echoed, found by one bounded regex over a frame already known to be small).
            echoed = _CLIENT_MOVE_ID.search(text_data) if text_data is not None else None
            await self._refuse_frame(
                _not_allowed_to_move(user), echoed.group(1) if echoed else None
            )
            return
        wait = self.bucket.take()
        if wait:
            await self._send_error(
                ApiError(429, "throttled", "Too many messages.", {"retry_after": round(wait, 3)})
            )
            return
        if text_data is None:
            await self._send_error(GameError("invalid", "Send JSON text frames."))
            return
        try:
            content = json.loads(text_data)
        except RecursionError:  # as REST (demineur_site.parsers): too deep to parse is malformed
            await self._send_error(
                ApiError(400, "malformed_json", "The message is nested too deeply to parse.")
            )
            return
        except ValueError:
            await self._send_error(
                ApiError(400, "malformed_json", "The message is not valid JSON.")
            )
            return
        if not isinstance(content, dict):
            await self._send_error(GameError("invalid", "Send a JSON object with an `action`."))
            return
        client_move_id = content.get("client_move_id")
        if not isinstance(client_move_id, str) or len(client_move_id) > 64:
            client_move_id = None  # echo only what could be an id (validation says why)
        try:
            await self._handle(content)
        except _CredentialEnded as exc:
            await self._send_error(exc, client_move_id)
            await self.close(code=CLOSE_UNAUTHENTICATED)
        except ApiError as exc:
            await self._send_error(exc, client_move_id)
        except Exception:
            log.exception("a WebSocket action failed on game %s", self.game_id)
            await self._send_error(
                ApiError(500, "server_error", "Internal server error."), client_move_id
            )

    async def _send_error(self, exc: ApiError, client_move_id: Any = None) -> None:
        seq = self.last_seq if self.last_seq >= 0 else None
        await self.send(text_data=_dumps(_error_frame(exc, client_move_id, seq)))

    async def _handle(self, content: dict[str, Any]) -> None:
        action = content.get("action")
        user = self.scope.get("user")
        credential = self.scope.get("credential")
        if user is None or not user.is_authenticated:
            raise _not_allowed_to_move(user)
        if not isinstance(action, str):
            raise GameError(
                "invalid",
                "`action` must be a string.",
                {"actions": [*MOVE_ACTIONS, *STATE_ACTIONS]},
            )
        if action in MOVE_ACTIONS:
            body = _validated(MOVE_ACTIONS[action], content)
            self._require_player(user)
            seq, replay = await database_sync_to_async(_play)(
                game_id=self.game_id,
                player=user,
                action=action,
                body=body,
                credential=credential,
            )
            if replay is not None:
                await self.send(text_data=_dumps(replay))
            elif seq > self.last_seq:
                self._expect(seq)
        elif action in STATE_ACTIONS:
            self._require_player(user)
            seq, game = await database_sync_to_async(_act)(
                game_id=self.game_id, player=user, action=action, credential=credential
            )
            if seq <= self.last_seq:
                # Pausing a paused game (or resuming a running one) takes no seq and publishes
                # nothing: answer the sender alone with the game as it is.
                await self.send(text_data=_dumps({"type": "state", "seq": seq, "game": game}))
        else:
            raise GameError(
                "invalid",
                f"Unknown action {action[:40]!r}.",
                {"actions": [*MOVE_ACTIONS, *STATE_ACTIONS]},
            )

    def _expect(self, seq: int) -> None:
        """Make sure the player hears about their own move, event lost or not."""

        async def check() -> None:
            await asyncio.sleep(LOST_EVENT_SECONDS)
            async with self.turn:
                if self.last_seq < seq and not self.ended:
                    with contextlib.suppress(Exception):  # the socket may be gone by now
                        await self._resync(f"the event of seq {seq} never came")

        if self.watchdog is not None:
            self.watchdog.cancel()  # the newer move's check covers the older one
        self.watchdog = asyncio.ensure_future(check())

    def _require_player(self, user: Any) -> None:
        # The service checks this again under the row lock; refusing here spares the database
        # a watcher's flood of moves.
        if user.pk != self.player_id:
            raise GameError("not_your_game", "This game belongs to another player.")


def _not_allowed_to_move(user: Any) -> ApiError:
    if user is None or not user.is_authenticated:
        return ApiError(401, "not_authenticated", "Sign in or send `Authorization: Token <key>`.")
    return GameError("not_your_game", "This game belongs to another player.")


def _validated(
    serializer_class: type[serializers.Serializer[Any]], content: dict[str, Any]
) -> dict[str, Any]:
    data = {k: v for k, v in content.items() if k != "action"}
    serializer = serializer_class(data=data)
    if not serializer.is_valid():
        raise ApiError(
            400, "invalid", "The request is malformed.", {"fields": _plain(serializer.errors)}
        )
    return dict(serializer.validated_data)


def _plain(detail: Any) -> Any:
    if isinstance(detail, dict):
        return {str(k): _plain(v) for k, v in detail.items()}
    if isinstance(detail, list):
        return [_plain(v) for v in detail]
    return str(detail)


# --- lobby ----------------------------------------------------------------------------------


def _live_games(limit: int = LOBBY_SNAPSHOT_SIZE) -> list[dict[str, Any]]:
    """The newest running games, in the shape of the lobby's game_started events."""
    return [lobby_game_dict(g, player=g.player) for g in selectors.live_games(limit=limit)]


class LobbyConsumer(_LeanConsumer):
    """``/ws/live``: what a "live now" page needs. Read-only; anyone may connect."""

    async def connect(self) -> None:
        await self.channel_layer.group_add(events.LOBBY_GROUP, self.channel_name)
        games = await database_sync_to_async(_live_games)()
        await self.accept()
        await self.send(text_data=_dumps({"type": "live", "games": games}))

    async def disconnect(self, code: int) -> None:
        await self.channel_layer.group_discard(events.LOBBY_GROUP, self.channel_name)

    async def lobby_event(self, message: dict[str, Any]) -> None:
        await self.send(text_data=_dumps(message["event"]))

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        # Read-only: nothing a client sends is parsed; a few frames, then the socket closes.
        await self._refuse_frame(GameError("invalid", "The live feed is read-only."))
