"""`GET /api/stream/event` (API.md, Token scopes and event streams), served through
games.live.streams: a signed-in player's own events, one JSON object a line. First one
`game_start` per game of theirs not yet ended, then `game_start`, `game_end` (`game`),
`game_discarded` (`game`: an untapped game discarded, docs/LIVE.md), `race_start` and
`race_end` (`race`) as they happen (games.play.events.player_on_commit).

One stream per account: a new one ends the one before (it announces itself to the account's
group before joining it; an older stream that hears of another channel ends). The group is
joined before the games are read, so a game started meanwhile is in both: a `game_start` is
sent once per game. Only streams reach it: the same path as a socket is refused as an unknown
one (404, close 4404).

Once open it sends an empty frame before anything else: the stream's answer starts with it (its
status, its headers, a first keep-alive line; games.live.streams), at once, even for an account
with nothing in play whose first event may be hours away."""

from __future__ import annotations

from typing import Any

from accounts import scopes
from demineur_site import publish
from demineur_site.api_errors import ApiError
from games.errors import GameError
from games.live.base import CLOSE_UNAUTHENTICATED, LeanConsumer
from games.live.dbcall import db_call
from games.live.frames import dumps
from games.play import events, selectors

REPLACE_TYPE = "stream.replace"
CLOSE_REPLACED = 4409


def _starts(player_id: int) -> list[dict[str, Any]]:
    return [
        events.game_stream_event("game_start", g)
        for g in selectors.games_in_progress(player_id=player_id)
    ]


class EventStreamConsumer(LeanConsumer):
    started: set[str]

    async def connect(self) -> None:
        self.started = set()
        if not self.scope.get("stream"):
            await self._refuse(GameError("not_found", "No such socket path."))
            return
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.accept()
            await self._send_error(ApiError("not_authenticated", "Sign in to read your events."))
            await self.close(code=CLOSE_UNAUTHENTICATED)
            return
        try:
            scopes.check(self.scope.get("token_scopes"), scopes.EVENT_STREAM)
        except ApiError as exc:
            await self._refuse(exc)
            return
        self.group = events.player_stream_group(user.pk)
        await publish.send_from_loop(
            self.group, {"type": REPLACE_TYPE, "channel": self.channel_name}
        )
        await self.channel_layer.group_add(self.group, self.channel_name)
        starts = await db_call(_starts)(user.pk)
        await self.accept()
        await self.send(text_data="")  # open: the answer and its keep-alives start now
        for event in starts:
            await self._forward(event)

    async def _forward(self, event: dict[str, Any]) -> None:
        if event["type"] == "game_start":
            game_id = event["game"]["id"]
            if game_id in self.started:
                return
            self.started.add(game_id)
        await self.send(text_data=dumps(event))

    async def stream_event(self, message: dict[str, Any]) -> None:
        if not self.closing:
            await self._forward(message["event"])

    async def live_resync(self, message: dict[str, Any]) -> None:
        """Events of this account were lost on their way (demineur_site.publish): the games it
        has started since are announced now (a lost `game_end` or race event is not)."""
        if self.closing or self.group is None:
            return
        user = self.scope["user"]
        for event in await db_call(_starts)(user.pk):
            await self._forward(event)

    async def stream_replace(self, message: dict[str, Any]) -> None:
        if message.get("channel") != self.channel_name and not self.closing:
            await self.close(code=CLOSE_REPLACED)

    async def disconnect(self, code: int) -> None:
        if self.group is not None:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        await self._refuse_frame(GameError("invalid", "The event stream is read-only."))
