"""The game's and the lobby's WebSocket doors (API.md, Live updates): the I/O only. Events are
built by games.play.events, ordered by games.live.sequencing, moves go to games.play.services,
what a viewer may see comes from games.play.presenters; the edge checks and the lean message
loop are games.live.base's, the frame reading every socket shares games.live.frames'.

``/ws/games/{id}`` (GameConsumer)
    Joins the game's group first, then reads the snapshot and sends ``state``; then forwards
    ``move``, ``paused``, ``resumed`` and ``ended`` in ``seq`` order, as its Sequencer says
    (held events, re-reads after a gap or a lost event of the player's own move).
    The player may send ``{"action": "reveal|flag|chord", "x", "y", "flagged"?,
    "client_move_id"?}`` or ``{"action": "pause|resume|resign"}``; the answer is the event
    every watcher gets. Errors go to the sender alone as ``{"type": "error", "client_move_id",
    "error": {code, message, details}}``; anything that is not a JSON object with a string
    ``action`` is a 400 (``malformed_json`` or ``invalid``), never a 500. An unknown or
    non-uuid game: the socket is accepted, gets one ``error`` (404 ``not_found``) and is
    closed with code 4404. Each move re-checks the socket's credential in its database
    thread before it is stored: a token in the statement that locks the game, a session
    before it.

``/ws/live`` (LobbyConsumer)
    A ``live`` snapshot of the newest running games, then ``game_started``, ``game_ended``
    and ``record`` events as they happen. Read-only.
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.conf import settings
from rest_framework import serializers

from accounts import scopes, socket_credentials
from demineur_site.api_errors import ApiError, flatten_detail
from demineur_site.errors import DomainError
from games.errors import GameError
from games.live import frames as socket_frames
from games.live import guard as socket_guard
from games.live import redis_watch, sequencing
from games.live.base import CLOSE_NOT_FOUND, CLOSE_UNAUTHENTICATED, LeanConsumer, error_frame
from games.live.dbcall import db_call
from games.live.frames import dumps
from games.live.sequenced import SequencedConsumer
from games.play import events, move_store, selectors, services
from games.play.models import ENDED_STATES, Game
from games.play.presenters import game_dict
from games.play.serializers import FlagIn, MoveIn, plain_move_body

log = logging.getLogger(__name__)

LOBBY_SNAPSHOT_SIZE = 50
# A move's frame is validated as REST validates its body (games/play/serializers.py:
# coordinates are JSON integers, `client_move_id` at most 64 characters).
MOVE_ACTIONS: dict[str, type[serializers.Serializer[Any]]] = {
    "reveal": MoveIn,
    "flag": FlagIn,
    "chord": MoveIn,
}
STATE_ACTIONS = {
    "pause": services.game_pause,
    "resume": services.game_resume,
    "resign": services.game_resign,
}
ACTIONS = (*MOVE_ACTIONS, *STATE_ACTIONS)


def move_body(action: str, content: dict[str, Any]) -> dict[str, Any]:
    """The validated fields of a reveal, flag or chord (400 `invalid` with the field errors)."""
    data = {k: v for k, v in content.items() if k != "action"}
    # The REST doors' reading of a plainly well-formed body, without building a serializer
    # (a deep copy of its fields per frame: a twentieth of a socket move's CPU).
    plain = plain_move_body(data, flag=action == "flag")
    if plain is not None:
        return plain
    serializer = MOVE_ACTIONS[action](data=data)
    if not serializer.is_valid():
        raise ApiError(
            "invalid",
            "The request is malformed.",
            {"fields": flatten_detail(serializer.errors)},
        )
    return dict(serializer.validated_data)


def not_allowed_to_move(user: Any) -> ApiError | GameError:
    if user is None or not user.is_authenticated:
        return ApiError("not_authenticated", "Sign in or send `Authorization: Token <key>`.")
    return GameError("not_your_game", "This game belongs to another player.")


class _CredentialEnded(ApiError):
    def __init__(self) -> None:
        super().__init__("authentication_failed", "This socket's sign-in has ended.")


def _check_credential(credential: socket_credentials.SocketCredential | None) -> None:
    """In the move's database thread, before the move: the token or session still stands."""
    if credential is not None and not socket_credentials.credential_is_valid(credential):
        raise _CredentialEnded()


@contextmanager
def _signed_in(credential: socket_credentials.SocketCredential | None) -> Iterator[None]:
    """Run a move or a pause only while the socket's credential stands. A token is re-checked
    by the statement that locks the game (move_store.lock_only_if: no round trip of its own);
    when that finds no game, the token is asked alone, so that a revoked one is told from an
    unknown game. A session is checked first, by itself."""
    condition = socket_credentials.still_signed_in_condition(credential)
    if condition is None:
        _check_credential(credential)
    try:
        with move_store.lock_only_if(condition):
            yield
    except GameError as exc:
        if condition is not None and exc.code == "not_found":
            _check_credential(credential)
        raise


class _Snapshot:
    __slots__ = ("ended", "game", "player_id", "seq")

    def __init__(self, game: Game, *, viewer_id: int | None) -> None:
        self.game = game_dict(game, player_name=game.player.username, viewer_id=viewer_id)
        self.seq: int = game.seq
        self.player_id: int = game.player_id
        self.ended = game.state in ENDED_STATES


def _read_snapshot(game_id: Any, viewer_id: int | None) -> _Snapshot:
    """The game as this socket's user may see it; a race game still sealed for them is refused
    (403 `race_running`, API.md Races)."""
    game = selectors.game_get(game_id=game_id)
    selectors.check_watchable(game=game, viewer_id=viewer_id)
    return _Snapshot(game, viewer_id=viewer_id)


def _viewer_id(scope: dict[str, Any]) -> int | None:
    user = scope.get("user")
    return user.pk if user is not None and user.is_authenticated else None


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
    with _signed_in(credential):
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
    # The original move's seq, changes and clock; the game's state as it is now.
    replay = events.move_event(
        result.game,
        seq=result.seq,
        action=action,
        changes=result.changes,
        at_ms=result.at_ms,
        client_move_id=body.get("client_move_id"),
        replayed=True,
    )
    return result.seq, dict(replay)


def _act(
    *,
    game_id: Any,
    player: Any,
    action: str,
    credential: socket_credentials.SocketCredential | None = None,
) -> tuple[int, dict[str, Any]]:
    with _signed_in(credential):
        game = STATE_ACTIONS[action](game_id=game_id, player=player)
    return game.seq, game_dict(game, player_name=player.username, viewer_id=player.pk)


class GameConsumer(SequencedConsumer):
    """One socket watching (and, for its player, playing) one game."""

    game_id: str
    player_id: int | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.bucket = socket_guard.TokenBucket(
            rate=settings.WS_MESSAGES_PER_SECOND, burst=settings.WS_MESSAGES_BURST
        )

    # --- connection ---------------------------------------------------------------------

    async def connect(self) -> None:
        game_id = await self.route_id("game_id", selectors.parse_game_id)
        if game_id is None:
            return
        self.game_id = game_id
        read = functools.partial(_read_snapshot, self.game_id, _viewer_id(self.scope))
        snapshot = await self.join_then_read(events.game_group(self.game_id), read)
        if snapshot is None:
            return
        self.player_id = snapshot.player_id
        await self.accept()
        await self._send_state(snapshot)
        redis_watch.watch.add(self)

    # --- server -> client ---------------------------------------------------------------

    def encode(self, event: sequencing.Event) -> str:
        return events.encode_event(self.game_id, event)

    async def _send_state(self, snapshot: _Snapshot) -> None:
        state = events.state_event(seq=snapshot.seq, game=snapshot.game)
        await self.send_state(seq=snapshot.seq, ended=snapshot.ended, frame=dict(state))

    async def _resync(self, why: str) -> None:
        log.warning("game %s: sending a fresh state (%s)", self.game_id, why)
        try:
            snapshot = await db_call(_read_snapshot)(self.game_id, _viewer_id(self.scope))
        except GameError:  # the game vanished (a discarded untapped game): nothing to show
            await self.close(code=CLOSE_NOT_FOUND)
            return
        await self._send_state(snapshot)

    async def game_event(self, message: dict[str, Any]) -> None:
        """An event of games.play.events, in the order games.live.sequencing decides."""
        step = self.order.receive(message["event"], now=time.monotonic())
        if step.gone:
            # An untapped game replaced or left a day no longer exists: answer as for an
            # unknown game (one 404 error, close 4404) rather than leave the socket silent.
            await self._send_error(GameError("not_found", "No such game: it was discarded."))
            await self.close(code=CLOSE_NOT_FOUND)
            return
        await self._send_events(step.send)

    # --- client -> server ---------------------------------------------------------------

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated or user.pk != self.player_id:
            # A watcher: answered without parsing anything (only a plain client_move_id is
            # echoed, found by one bounded regex over a frame already known to be small).
            refusal = not_allowed_to_move(user)
            await self._refuse_frame(refusal, socket_frames.echoed_move_id(text_data))
            return
        wait = self.bucket.take()
        if wait:
            await self._send_error(
                ApiError("throttled", "Too many messages.", {"retry_after": round(wait, 3)})
            )
            return
        client_move_id = None
        try:
            content = socket_frames.parse(text_data)
            client_move_id = socket_frames.client_move_id(content)
            await self._handle(user, content)
        except _CredentialEnded as exc:
            await self._send_error(exc, client_move_id)
            await self.close(code=CLOSE_UNAUTHENTICATED)
        except (ApiError, DomainError) as exc:
            await self._send_error(exc, client_move_id)
        except Exception as exc:
            from demineur_site.api_errors import SERVICE_UNAVAILABLE_RETRY_AFTER as retry
            from demineur_site.api_errors import is_database_unavailable

            if is_database_unavailable(exc):  # PostgreSQL unreachable: 503, as over REST
                log.warning("database unavailable for a WebSocket action on game %s", self.game_id)
                from demineur_site.metrics import DATABASE_UNAVAILABLE

                DATABASE_UNAVAILABLE.labels("socket").inc()
                unavailable = "The service is temporarily unavailable; retry shortly."
                await self._send_error(
                    ApiError("service_unavailable", unavailable, {"retry_after": retry}),
                    client_move_id,
                )
                return
            log.exception("a WebSocket action failed on game %s", self.game_id)
            await self._send_error(
                ApiError("server_error", "Internal server error."), client_move_id
            )

    async def _send_error(self, exc: ApiError | DomainError, client_move_id: Any = None) -> None:
        seq = self.order.last_seq if self.order.last_seq >= 0 else None
        await self.send(text_data=dumps(error_frame(exc, client_move_id, seq)))

    async def _handle(self, user: Any, content: dict[str, Any]) -> None:
        action = socket_frames.action_of(content, ACTIONS)
        scopes.check(self.scope.get("token_scopes"), (scopes.GAME_PLAY,))
        credential = self.scope.get("credential")
        if action in MOVE_ACTIONS:
            body = move_body(action, content)
            self._require_player(user)
            seq, replay = await db_call(_play)(
                game_id=self.game_id, player=user, action=action, body=body, credential=credential
            )
            if replay is not None:
                await self.send(text_data=dumps(replay))
            else:
                self.order.expect(seq, now=time.monotonic())
                self._arm()
        else:
            self._require_player(user)
            seq, game = await db_call(_act)(
                game_id=self.game_id, player=user, action=action, credential=credential
            )
            if seq <= self.order.last_seq:
                # Pausing a paused game (or resuming a running one) takes no seq and publishes
                # nothing: answer the sender alone with the game as it is.
                state = events.state_event(seq=seq, game=game)
                await self.send(text_data=dumps(state))

    def _require_player(self, user: Any) -> None:
        # The service checks this again under the row lock; refusing here spares the database
        # a watcher's flood of moves.
        if user.pk != self.player_id:
            raise GameError("not_your_game", "This game belongs to another player.")


# --- lobby ----------------------------------------------------------------------------------


def _live_games(limit: int = LOBBY_SNAPSHOT_SIZE) -> list[events.LobbyGame]:
    """The newest running games, in the shape of the lobby's game_started events."""
    return [events.lobby_game(g, player=g.player) for g in selectors.live_games(limit=limit)]


class LobbyConsumer(LeanConsumer):
    """``/ws/live``: what a "live now" page needs. Read-only; anyone may connect."""

    async def connect(self) -> None:
        await self.channel_layer.group_add(events.LOBBY_GROUP, self.channel_name)
        games = await db_call(_live_games)()
        await self.accept()
        await self.send(text_data=dumps(events.live_event(games)))
        redis_watch.watch.add(self)

    async def redis_back(self) -> None:
        """Redis was away: send a fresh snapshot of the live games (games.live.redis_watch)."""
        games = await db_call(_live_games)()
        await self.send(text_data=dumps(events.live_event(games)))

    async def live_resync(self, message: dict[str, Any]) -> None:
        """Lobby events were lost on their way (demineur_site.publish): a fresh snapshot."""
        await self.redis_back()

    async def disconnect(self, code: int) -> None:
        redis_watch.watch.discard(self)
        await self.channel_layer.group_discard(events.LOBBY_GROUP, self.channel_name)

    async def lobby_event(self, message: dict[str, Any]) -> None:
        await self.send(text_data=dumps(message["event"]))

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        # Read-only: nothing a client sends is parsed; a few frames, then the socket closes.
        await self._refuse_frame(GameError("invalid", "The live feed is read-only."))
