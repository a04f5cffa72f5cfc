"""NDJSON streams (API.md, Token scopes and event streams): for clients that cannot hold a
socket, `GET /api/stream/game/{id}` gives the very frames `/ws/games/{id}` sends, one JSON
object a line, and ends after `ended`.

The stream is not a second implementation of the socket: `NdjsonStream` presents the HTTP
request to the socket stack as a read-only WebSocket (the same sign-in by token, session or
none, the same caps per account and address, the same consumer with its `seq` order, re-reads
after a gap and kicks on revocation) and writes what that stack sends as lines:

* the socket's accept and first frame start a 200 `application/x-ndjson` answer; a refusal
  before any state (an unknown game 404, a sealed race game 403, a revoked token 401, too many
  sockets 429) is answered as REST answers it: that status and the API.md error body;
* an empty frame is a keep-alive: the answer starts (if it has not) and an empty line goes
  out. The event stream's consumer sends one as soon as it is open, because its first event
  may come hours later: without it an idle account's client got no status line at all, and
  a proxy that has nothing to write never learns that its client left (Caddy then held the
  stream, and its socket slot, for good);
* every frame is one line; after `ended` (or a close) the answer ends; a game stream opened on
  a game already over gets its state, then `ended` (its last event went out before), and ends;
* an `error` frame after the start is the stream's last line and the answer ends with it: a
  stream sends nothing, so the only errors it can get are the ends of it (its token revoked or
  its session signed out, 401; its game discarded, 404; the database gone, 503). The answer
  does not wait for the close that follows, so a client always sees the end right after;
* an empty line goes out whenever nothing was written for STREAM_KEEPALIVE_SECONDS (7 s), from
  the start, so proxies and clients keep the connection, and a client that vanished is found
  out by the write that fails;
* the client going away (`http.disconnect`, which the server reports when the connection
  closes or a write to it fails) is the socket's disconnect: its slot is freed.

A browser's GET carries no Origin on the site's own pages, and a page of another site cannot
read the answer (no CORS): with the session cookie and no Origin, the stream is signed in with
the session as the site's own page (its own origin is given to the socket stack). An Origin
that is not the site's is refused as for a socket (403). A page of another site can still
make a browser send a GET with neither (an `<img>`, a `<script>`, a no-cors fetch): browsers
that say so (`Sec-Fetch-Site` cross-site or same-site, other than a top-level navigation) are
refused 403 before the socket stack, and any stream that is not signed in counts in its own
per-address budget (games.live.guard), never against the sockets of that address
(docs/SECURITY.md).

Served by the ASGI processes (`live` in production, docs/Caddyfile routes /api/stream/ there),
and under `make run` by the same process (demineur_site.dev_server). While idle it holds no
database connection: the consumer reads through database_sync_to_async, as sockets do.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from collections.abc import Collection
from typing import Any

from django.conf import settings

from demineur_site.api_errors import error_body, status_for
from games.live import auth
from games.live.frames import dumps

ROUTES = [
    (re.compile(r"^/api/stream/game/(?P<id>[^/]{1,64})/?$"), "/ws/games/{id}"),
    (re.compile(r"^/api/stream/event/?$"), "/ws/stream/event"),
]
NDJSON = b"application/x-ndjson"
# The last line of a stream. Game frames are compact JSON (games.live.frames.dumps); the socket
# stack's own refusals (games.live.auth) are json.dumps with its spaces.
END_PREFIXES = (
    '{"type":"ended"',
    '{"type":"discarded"',
    '{"type":"error"',
    '{"type": "error"',
)


def socket_path(path: str) -> str | None:
    """The socket path a stream path is served by, or None for another path."""
    for pattern, target in ROUTES:
        match = pattern.match(path)
        if match:
            return target.format(**match.groupdict())
    return None


def _has_session_cookie(scope: dict[str, Any]) -> bool:
    cookie = dict(scope.get("headers") or []).get(b"cookie", b"")
    return settings.SESSION_COOKIE_NAME.encode() + b"=" in cookie


def _from_another_site(scope: dict[str, Any]) -> bool:
    """A browser's request made by a page of another site, other than a top-level navigation:
    an `<img>`, `<script>`, `<iframe>` or no-cors fetch, which sends no Origin (Fetch Metadata,
    sent by every current browser; API clients send none of these headers)."""
    headers = dict(scope.get("headers") or [])
    site = headers.get(b"sec-fetch-site", b"").lower()
    if site not in (b"cross-site", b"same-site"):
        return False
    mode = headers.get(b"sec-fetch-mode", b"").lower()
    dest = headers.get(b"sec-fetch-dest", b"").lower()
    return not (mode == b"navigate" and dest == b"document")


def _as_socket_scope(scope: dict[str, Any], path: str) -> dict[str, Any]:
    headers = [(k, v) for k, v in scope.get("headers") or [] if k != b"origin"]
    origin = dict(scope.get("headers") or []).get(b"origin")
    if origin is None and _has_session_cookie(scope):
        own = auth.site_origin(scope)
        if own is not None:
            scheme, host, port = own
            origin = f"{scheme}://{host}:{port}".encode()
    if origin is not None:
        headers.append((b"origin", origin))
    return {
        **scope,
        "type": "websocket",
        "scheme": "wss" if scope.get("scheme") == "https" else "ws",
        "path": path,
        "raw_path": path.encode(),
        "headers": headers,
        "subprotocols": [],
        "stream": True,
    }


class _Answer:
    """What the socket stack sends, written as the HTTP answer."""

    def __init__(self, send: Any, over_states: frozenset[str]) -> None:
        self.send = send
        self.over_states = over_states
        self.started = False
        self.finished = False
        self.held_error: dict[str, Any] | None = None
        self.wrote = asyncio.Event()
        self.done = asyncio.Event()

    async def _start(self, status: int, content_type: bytes) -> None:
        headers = [
            (b"content-type", content_type),
            (b"cache-control", b"no-store"),
            (b"x-accel-buffering", b"no"),
        ]
        await self.send({"type": "http.response.start", "status": status, "headers": headers})
        self.started = True

    async def line(self, data: bytes) -> None:
        if self.finished:
            return
        await self.send({"type": "http.response.body", "body": data, "more_body": True})
        self.wrote.set()

    async def finish(self) -> None:
        if self.finished:
            return
        if not self.started:
            await self._refuse()
            return
        self.finished = True
        await self.send({"type": "http.response.body", "body": b"", "more_body": False})
        self.done.set()

    async def _refuse(self) -> None:
        frame = self.held_error or {
            "status": 403,
            **error_body("forbidden", "This Origin may not open a stream here."),
        }
        status = int(frame.get("status") or status_for(frame["error"]["code"]))
        body = json.dumps({"error": frame["error"]}).encode()
        await self._start(status, b"application/json")
        self.finished = True
        await self.send({"type": "http.response.body", "body": body, "more_body": False})
        self.done.set()

    async def __call__(self, message: dict[str, Any]) -> None:
        kind = message["type"]
        if kind == "websocket.accept" or self.finished:
            return
        if kind == "websocket.close":
            await self.finish()
            return
        if kind != "websocket.send":
            return
        text = message.get("text") or ""
        if not text:  # a keep-alive from the consumer (the event stream's "open")
            if not self.started:
                await self._start(200, NDJSON)
            await self.line(b"\n")
            return
        if not self.started:
            frame = json.loads(text)  # the first frame only: a state, or a refusal
            if frame.get("type") == "error":
                self.held_error = frame  # the refusal comes with the close that follows
                return
            await self._start(200, NDJSON)
            if _game_over(frame, self.over_states):
                await self._over(text, frame)
                return
        await self.line(text.encode() + b"\n")
        # A game event's text is encoded once per process for every watcher
        # (games.play.events.encode_event): read without decoding it again. Every frame is
        # compact JSON whose first key is "type" (games.live.frames.dumps and the builders of
        # the events).
        if text.startswith(END_PREFIXES):
            await self.finish()

    async def _over(self, text: str, state: dict[str, Any]) -> None:
        """A game stream opened on a game already over (a reconnection after the last move,
        or a stream opened late): its `ended` went out before this stream followed the game,
        so none would come and the answer would never end. It gets the state, then `ended`
        as the game's last event carries it (its seq, the game as this viewer may see it),
        and ends: "it ends after `ended`" (API.md) holds for every stream."""
        await self.line(text.encode() + b"\n")
        ended = {"type": "ended", "seq": state["seq"], "game": state["game"]}
        await self.line(dumps(ended).encode() + b"\n")
        await self.finish()


def _game_over(frame: dict[str, Any], over_states: frozenset[str]) -> bool:
    """Whether a game stream's first frame is the state of a game that has ended."""
    game = frame.get("game")
    return (
        frame.get("type") == "state" and isinstance(game, dict) and game.get("state") in over_states
    )


class NdjsonStream:
    """The ASGI app of /api/stream/: `sockets` is the socket stack (auth middleware and router),
    `game_over_states` a Game's `state` once it has ended (games.play.models.ENDED_STATES,
    given by the ASGI application: this module imports no room)."""

    def __init__(self, sockets: Any, *, game_over_states: Collection[str]) -> None:
        self.sockets = sockets
        self.over_states = frozenset(str(state) for state in game_over_states)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        path = socket_path(scope["path"])
        if path is None or scope.get("method") not in ("GET", "HEAD"):
            code = "not_found" if path is None else "method_not_allowed"
            status = 404 if path is None else 405
            await _json_answer(send, status, error_body(code, "Streams are read with GET."))
            return
        if _from_another_site(scope):
            # Refused before the socket stack: it takes no slot and reads nothing.
            why = "A page of another site may not open a stream here."
            await _json_answer(send, 403, error_body("forbidden", why))
            return
        answer = _Answer(send, self.over_states)
        connected = False
        gone = asyncio.Event()

        async def socket_receive() -> dict[str, Any]:
            nonlocal connected
            if not connected:
                connected = True
                return {"type": "websocket.connect"}
            # Nothing comes from a stream's client; it only goes away, or the answer ends.
            waits = [asyncio.ensure_future(gone.wait()), asyncio.ensure_future(answer.done.wait())]
            try:
                await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for wait in waits:
                    wait.cancel()
            return {"type": "websocket.disconnect", "code": 1001}

        async def client() -> None:
            while True:
                message = await receive()
                if message["type"] == "http.disconnect":
                    gone.set()
                    return

        async def keep_alive() -> None:
            every = float(settings.STREAM_KEEPALIVE_SECONDS)
            while not answer.finished:
                answer.wrote.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(answer.wrote.wait(), timeout=every)
                    continue
                if not answer.started:
                    continue
                try:
                    await answer.line(b"\n")
                except Exception:
                    # A server that reports a dead client by failing the write rather than by
                    # http.disconnect: the client is gone all the same, and its slot with it.
                    gone.set()
                    return

        helpers = [asyncio.ensure_future(client()), asyncio.ensure_future(keep_alive())]
        try:
            await self.sockets(_as_socket_scope(scope, path), socket_receive, answer)
            await answer.finish()
        finally:
            for task in helpers:
                task.cancel()
            for task in helpers:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task


async def _json_answer(send: Any, status: int, body: dict[str, Any]) -> None:
    headers = [(b"content-type", b"application/json")]
    if status == 405:
        headers.append((b"allow", b"GET, HEAD"))  # RFC 9110: a 405 says what the path takes
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send(
        {"type": "http.response.body", "body": json.dumps(body).encode(), "more_body": False}
    )


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _line(kind: str, what: str, example: dict[str, Any], **properties: Any) -> dict[str, Any]:
    """The schema of one type of line: `type` (always `kind`) and `properties`, all present."""
    return {
        "type": "object",
        "description": what,
        "properties": {"type": {"type": "string", "enum": [kind]}, **properties},
        "required": ["type", *properties],
        "example": {"type": kind, **example},
    }


_SEQ = {"type": "integer", "description": "The game's event number (API.md, Live updates)."}
_GAME_EXAMPLE = {"id": "0b6f5a1e-5b7e-4d0b-9d65-0a4b1c2d3e4f", "state": "playing", "seq": 1}
_RACE_EXAMPLE = {"id": "7c1d2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f", "state": "running"}
# One schema per type of line (API.md, Token scopes and event streams; Live updates). Every
# line is one JSON object; an empty line keeps the connection alive and is not JSON.
LINES: dict[str, dict[str, Any]] = {
    "StreamStateLine": _line(
        "state",
        "The first line of a game's stream: the Game as this viewer may see it.",
        {"seq": 1, "game": _GAME_EXAMPLE},
        seq=_SEQ,
        game=_ref("GameOut"),
    ),
    "StreamMoveLine": _line(
        "move",
        "A reveal, flag or chord (or the move of a resign or an abandon): the cells it "
        "changed, in order, and the game's state after it.",
        {
            "seq": 2,
            "action": "reveal",
            "changes": [{"x": 3, "y": 4, "v": "2"}],
            "state": "playing",
            "mines_left": 10,
            "elapsed_ms": 43100,
        },
        seq=_SEQ,
        action={"type": "string"},
        changes={"type": "array", "items": _ref("ChangeOut")},
        state={"type": "string"},
        mines_left={"type": "integer"},
        elapsed_ms={"type": "integer"},
    ),
    "StreamPausedLine": _line(
        "paused",
        "The game was paused: no board (a paused game's is hidden).",
        {"seq": 5, "elapsed_ms": 12000, "state": "paused"},
        seq=_SEQ,
        elapsed_ms={"type": "integer"},
        state={"type": "string"},
    ),
    "StreamResumedLine": _line(
        "resumed",
        "The game was resumed, with the Game and its board.",
        {"seq": 6, "elapsed_ms": 12000, "state": "playing", "game": _GAME_EXAMPLE},
        seq=_SEQ,
        elapsed_ms={"type": "integer"},
        state={"type": "string"},
        game=_ref("GameOut"),
    ),
    "StreamEndedLine": _line(
        "ended",
        "The game's last line: the ended Game with its whole layout (a sealed race or daily "
        "game: what its player may see). The answer ends after it.",
        {"seq": 30, "game": {**_GAME_EXAMPLE, "state": "won", "seq": 30}},
        seq=_SEQ,
        game=_ref("GameOut"),
    ),
    "StreamErrorLine": _line(
        "error",
        "The stream's end for a reason (its token revoked or its session signed out, 401; its "
        "game discarded, 404; the database gone, 503): the last line, the API.md error body.",
        {"error": {"code": "not_found", "message": "This game was discarded.", "details": {}}},
        error=_ref("ErrorDetailOut"),
    ),
    "EventGameStartLine": _line(
        "game_start",
        "A game of the player's started (first, one per game still playing).",
        {"game": _GAME_EXAMPLE},
        game=_ref("GameOut"),
    ),
    "EventGameEndLine": _line(
        "game_end",
        "A game of the player's ended.",
        {"game": {**_GAME_EXAMPLE, "state": "lost"}},
        game=_ref("GameOut"),
    ),
    "EventGameDiscardedLine": _line(
        "game_discarded",
        "An untapped game of the player's was discarded (a newer game of its level replaced "
        "it): it no longer exists (404).",
        {"game": {**_GAME_EXAMPLE, "state": "new", "seq": 0}},
        game=_ref("GameOut"),
    ),
    "EventRaceStartLine": _line(
        "race_start",
        "A race of the player's started.",
        {"race": _RACE_EXAMPLE},
        race=_ref("RaceOut"),
    ),
    "EventRaceEndLine": _line(
        "race_end",
        "A race of the player's ended, with places and ratings.",
        {"race": {**_RACE_EXAMPLE, "state": "finished"}},
        race=_ref("RaceOut"),
    ),
    "EventArenaRaceLine": _line(
        "arena_race",
        "The player was paired in an arena: its id and the Race.",
        {"arena": "5e4d3c2b-1a09-4f8e-9d7c-6b5a4f3e2d1c", "race": _RACE_EXAMPLE},
        arena={"type": "string", "format": "uuid"},
        race=_ref("RaceOut"),
    ),
    "EventArenaEndLine": _line(
        "arena_end",
        "An arena the player joined has ended.",
        {"arena": {"id": "5e4d3c2b-1a09-4f8e-9d7c-6b5a4f3e2d1c", "state": "finished"}},
        arena=_ref("ArenaOut"),
    ),
}
GAME_LINES = ["StreamStateLine", "StreamMoveLine", "StreamPausedLine", "StreamResumedLine"]
GAME_LINES += ["StreamEndedLine", "StreamErrorLine"]
EVENT_LINES = [name for name in LINES if name.startswith("Event")] + ["StreamErrorLine"]


def _stream_operation(
    summary: str, description: str, parameters: list[Any], lines: list[str], *, anonymous: bool
) -> dict[str, Any]:
    line = {
        "description": "One JSON object a line, of one of these types (by `type`); empty lines "
        "keep the connection alive.",
        "oneOf": [_ref(name) for name in lines],
        "discriminator": {
            "propertyName": "type",
            "mapping": {LINES[name]["example"]["type"]: _ref(name)["$ref"] for name in lines},
        },
    }
    examples = {name: {"value": LINES[name]["example"]} for name in lines}
    return {
        "operationId": summary.lower().replace(" ", "_"),
        "summary": summary,
        "description": description,
        "tags": ["streams"],
        "parameters": parameters,
        "security": [{"tokenAuth": []}, {"cookieAuth": []}, *([{}] if anonymous else [])],
        "responses": {
            "200": {
                "description": "NDJSON lines",
                "content": {NDJSON.decode(): {"schema": line, "examples": examples}},
            },
            # The socket's refusals, answered as REST answers them (error bodies added after).
            **{code: {"description": ""} for code in ("401", "403", "404", "429")},
        },
    }


def schema_paths(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """A drf-spectacular POSTPROCESSING_HOOK: the streams are served by the ASGI application
    before Django's URLs, so the schema learns of them here (their errors are added by
    demineur_site.schema_views.document_errors, which runs after)."""
    game_id = {
        "name": "game_id",
        "in": "path",
        "required": True,
        "schema": {"type": "string", "format": "uuid"},
    }
    paths = result.setdefault("paths", {})
    paths["/api/stream/game/{game_id}"] = {
        "get": _stream_operation(
            "Stream a game",
            "First {type: state, seq, game}, then the very frames /ws/games/{id} sends (move, "
            "paused, resumed, ended), each with its seq; the answer ends after `ended`. Anyone "
            "who may watch the game. Refusals are the REST statuses with the error body.",
            [game_id],
            GAME_LINES,
            anonymous=True,
        )
    }
    paths["/api/stream/event"] = {
        "get": _stream_operation(
            "Stream my events",
            "Signed in (a token with game:play, race:play or account:read): first one "
            "game_start per game of the player not yet ended, then game_start, game_end "
            "(game), race_start and race_end (race) as they happen. One stream per account: "
            "opening another ends this one.",
            [],
            EVENT_LINES,
            anonymous=False,
        )
    }
    result["paths"] = dict(sorted(paths.items()))
    result.setdefault("components", {}).setdefault("schemas", {}).update(LINES)
    return result
