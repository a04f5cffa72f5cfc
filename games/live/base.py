"""The base of every socket (games.play.sockets, games.play.event_stream, games.races.sockets,
games.arenas.sockets): a short per-message path, and the edge checks every client frame passes
before anything parses it. It imports no room.

Frames from clients (docs/SECURITY.md, "The WebSocket edge"), checked in this order:

* a text or binary frame over WS_MAX_FRAME_BYTES (4096; uvicorn's ``--ws-max-size`` enforces
  the same at the server) gets one ``error`` (400 ``frame_too_large``) and the socket is
  closed with 1009 (message too big), as uvicorn itself closes an over-long frame;
* a frame from anyone who may not move (anonymous: 401 ``not_authenticated``; signed in but
  not the game's player: 403 ``not_your_game``; anyone on the read-only lobby: 400
  ``invalid``) is never parsed: it gets an ``error`` and, at the WATCHER_FRAMES_MAX-th such
  frame, the socket is closed with 4000 + that status (4401, 4403, 4400) (``refuse_frame``);
* the player's frames are parsed by the game consumer (games.play.sockets).

A socket signed in with a token or a session joins that credential's group
(accounts.socket_credentials): revoking the token or signing out closes it with one
``error`` (401 ``authentication_failed``) and code 4401.

**Why __call__ and dispatch are our own** (docs/LIVE.md, "Fan-out to many watchers"): one
event goes to every watcher, so the per-message path is what fan-out to 1,000 watchers costs.
Two changes to channels' AsyncConsumer, both measured with bench/live:

* its dispatch() runs close_old_connections through sync_to_async before *every* message:
  a hop to the one sync thread per message and per watcher, which made fan-out to 1,000
  watchers take over a second. Our handlers touch the database only through
  database_sync_to_async, which manages connections itself, so that hop is skipped;
* its loop (await_many_dispatch) builds an asyncio.wait() and a new task per message. Here
  long-lived tasks read the socket and, when the socket has one, its own channel, and a lock
  keeps handlers one at a time, in order (a game event waits while the player's move is being
  stored).

A game's, race's or arena's socket (``follows_hub``) gets its group's events from the
process's hub (games.live.hub) through ``deliver``, under the same lock and in the same order;
it has a channel of its own only when it is signed in (its credential's kick).

tests/live/test_lean_consumer.py pins the channels code these two methods replace: when an
upgrade of channels changes it, that test fails and says what to re-check.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import sys
from collections.abc import Callable
from typing import Any, TypeVar

from channels.consumer import get_handler_name
from channels.exceptions import StopConsumer
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.layers import get_channel_layer

from accounts import socket_credentials
from demineur_site import logs, metrics
from demineur_site.api_errors import ApiError, socket_error, status_of
from demineur_site.errors import DomainError
from games.live import guard as socket_guard
from games.live.dbcall import db_call
from games.live.frames import dumps
from games.live.hub import hub

T = TypeVar("T")
CLOSE_NOT_FOUND = 4404
CLOSE_UNAUTHENTICATED = 4401  # a revoked token, a signed-out session (as games.live.auth)
CLOSE_TOO_BIG = 1009  # RFC 6455 "message too big", what uvicorn's --ws-max-size sends
# Frames a socket that may not move gets answered (without being parsed) before it is closed.
WATCHER_FRAMES_MAX = 5


def _start_now(coro: Any, context: contextvars.Context) -> asyncio.Task[None]:
    """A task that starts running at once, here, and is scheduled only if it must wait
    (Python 3.12's eager start; 3.11 schedules it as usual)."""
    loop = asyncio.get_running_loop()
    if sys.version_info >= (3, 12):
        return asyncio.Task(coro, loop=loop, context=context, eager_start=True)
    return loop.create_task(coro, context=context)


def error_frame(
    exc: ApiError | DomainError, client_move_id: Any = None, seq: int | None = None
) -> dict[str, Any]:
    """An error to the sender alone. `seq` is the last one this socket was sent (null before
    any game state), so that every game message carries one as API.md says."""
    return socket_error(exc.code, exc.message, exc.details, seq=seq, client_move_id=client_move_id)


class LeanConsumer(AsyncWebsocketConsumer):  # type: ignore[misc]  # channels ships no types
    """A consumer whose per-message path is short (see the module docstring)."""

    closing = False  # close() was sent: read no more frames
    group: str | None = None  # the group of events this socket follows
    follows_hub = False  # that group comes through the process's hub (games.live.hub)
    channel_name: str | None = None  # this socket's own channel in the layer, when it has one
    _backlog: list[dict[str, Any]] | None = None  # the hub's events behind a running one
    _delivery: asyncio.Task[None] | None = None  # the hub's event being handled, when it waits
    refused_frames = 0
    credential_group: str | None = None

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        # The socket's lines carry its handshake's request id (demineur_site.logs); the tasks
        # below copy the context. Counted as open until its consumer returns (metrics).
        logs.bind_asgi_request(scope)
        open_sockets = metrics.SOCKETS.labels(type(self).__name__)
        open_sockets.inc()
        try:
            await self._serve(scope, receive, send)
        finally:
            open_sockets.dec()

    async def _serve(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        self.scope = scope
        self.channel_layer = get_channel_layer(self.channel_layer_alias)
        self.base_send = send
        self.turn = asyncio.Lock()
        self._failed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._context = contextvars.copy_context()
        credential = scope.get("credential")
        # A channel of its own only where one is needed (games.live.hub): the group of events
        # comes through the process's hub, a credential's kick to this socket alone.
        if not self.follows_hub or credential is not None:
            self.channel_name = await self.channel_layer.new_channel()
        if credential is not None:
            # Revoking the token or signing out kicks this group (auth_kick below).
            self.credential_group = credential.group
            await self.channel_layer.group_add(self.credential_group, self.channel_name)

        async def pump(source: Any) -> None:
            while True:
                message = await source()
                async with self.turn:
                    await self.dispatch(message)

        tasks: list[asyncio.Future[None]] = [asyncio.ensure_future(pump(receive)), self._failed]
        if self.channel_name is not None:
            from_channel = functools.partial(self.channel_layer.receive, self.channel_name)
            tasks.append(asyncio.ensure_future(pump(from_channel)))
        try:
            done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
            for task in done:
                exc = task.exception()
                if exc is not None and not isinstance(exc, StopConsumer):
                    raise exc
        finally:
            if self._delivery is not None:
                tasks.append(self._delivery)
            for task in tasks:
                task.cancel()
            for task in tasks:
                # Already raised above, or cancelled just now: only wait for the task to finish.
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
            if self.follows_hub and self.group is not None:
                with contextlib.suppress(Exception):
                    await hub().leave(self.group, self)
            if self.credential_group is not None:
                with contextlib.suppress(Exception):
                    await self.channel_layer.group_discard(self.credential_group, self.channel_name)

    def deliver(self, message: dict[str, Any]) -> None:
        """An event of the group this socket follows, from the process's hub (games.live.hub):
        handled at once when nothing of this socket's runs, else kept, in order, behind what
        runs. Never waits: the hub has the next socket to serve."""
        if self._backlog is not None:
            self._backlog.append(message)
            return
        self._backlog = []
        task = _start_now(self._deliver(message), self._context)
        if not task.done():
            self._delivery = task

    def lost(self, exc: Exception) -> None:
        """The hub's reader of this socket's group failed (games.live.hub): the socket ends,
        as it does when its own channel's reader fails (_serve)."""
        if not self._failed.done():
            self._failed.set_exception(exc)

    async def _deliver(self, message: dict[str, Any]) -> None:
        backlog = self._backlog
        try:
            while True:
                async with self.turn:
                    await self.dispatch(message)
                if not backlog:
                    return
                message = backlog.pop(0)
        except asyncio.CancelledError:
            raise
        except BaseException as exc:  # as a failing pump would: the socket ends (_serve)
            if not self._failed.done():
                self._failed.set_exception(exc)
        finally:
            self._backlog = None
            self._delivery = None

    async def live_resync(self, message: dict[str, Any]) -> None:
        """Some events of this socket's group were lost on their way to Redis (the publisher
        tells the group when it can publish again: demineur_site.publish). A socket that can
        re-read what it follows overrides this; the others have nothing to catch up."""

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
        if socket_guard.frame_too_large(text, data, limit):
            await self._send_error(
                ApiError(
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

    async def _send_error(self, exc: ApiError | DomainError, client_move_id: Any = None) -> None:
        await self.send(text_data=dumps(error_frame(exc, client_move_id)))

    async def route_id(self, key: str, parse: Callable[[Any], Any]) -> str | None:
        """The id in the socket's path, checked by `parse`; a malformed one is refused as an
        unknown one (404, close 4404) and None is returned."""
        try:
            return str(parse(self.scope["url_route"]["kwargs"].get(key)))
        except DomainError as exc:
            await self._refuse(exc)
            return None

    async def join_then_read(self, group: str, read: Callable[[], T]) -> T | None:
        """Join `group` first, read second: an event committed after the read is already
        queued for this socket, one committed before it is in the snapshot (and dropped by its
        seq). A refusal of the read (unknown, not allowed) leaves the group and is answered by
        `_refuse`; None is returned then."""
        self.group = group
        await self._follow(group)
        try:
            snapshot: T = await db_call(read)()
        except DomainError as exc:
            await self.unfollow()
            await self._refuse(exc)
            return None
        return snapshot

    async def _follow(self, group: str) -> None:
        if self.follows_hub:
            await hub().join(group, self)
        else:
            await self.channel_layer.group_add(group, self.channel_name)

    async def unfollow(self) -> None:
        """Stop following the group of events (a refused read, the socket's disconnect)."""
        group, self.group = self.group, None
        if group is None:
            return
        if self.follows_hub:
            await hub().leave(group, self)
        else:
            await self.channel_layer.group_discard(group, self.channel_name)

    async def _refuse(self, exc: ApiError | DomainError) -> None:
        """Accept, send one error, close with 4000 + its status (4404 unknown, 4403 not yours)."""
        await self.accept()
        await self.send(text_data=dumps(error_frame(exc)))
        await self.close(code=4000 + status_of(exc))

    async def _refuse_frame(self, exc: ApiError | DomainError, client_move_id: Any = None) -> None:
        """A frame from a socket that may not send any: answered, never parsed; the
        WATCHER_FRAMES_MAX-th one closes the socket with 4000 + the error's status."""
        self.refused_frames += 1
        await self._send_error(exc, client_move_id)
        if self.refused_frames >= WATCHER_FRAMES_MAX:
            await self.close(code=4000 + status_of(exc))

    async def auth_kick(self, message: dict[str, Any]) -> None:
        """The socket's token was revoked or its session signed out (accounts.socket_credentials)."""
        if self.closing:
            return
        why = (
            "The token of this socket was revoked."
            if message.get("reason") == socket_credentials.REASON_TOKEN_REVOKED
            else "The session of this socket was signed out."
        )
        await self._send_error(ApiError("authentication_failed", why))
        await self.close(code=CLOSE_UNAUTHENTICATED)
