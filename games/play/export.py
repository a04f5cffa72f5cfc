"""GET /api/users/{username}/games/export (API.md, The account's lifecycle; docs/ACCOUNTS.md,
Your data): a player's ended games as NDJSON, streamed, one Game a line (as an anonymous
viewer sees it after the end: the whole layout in `board`) with its `moves`.

Filters: `level` (a level or `custom`), `mode` (`classic` or `no_guess`), `since` (an ISO
date-time: games ended at or after it). Only ended games, and no race game while its race
runs (`sealed`): nothing of a running game or race leaves. Read in batches by (ended_at, id),
so a long history is never one query or one answer in memory. Throttled per account, else
per client address (THROTTLE_GAMES_EXPORT).

Where it runs (docs/deploy/SERVING.md, Slow readers): a long history takes tens of seconds to
produce and as long as its reader likes to read, so the proxies send this path to the ASGI
processes, never to a gunicorn sync worker. There the lines are produced a batch at a time in
the sync thread and sent as the reader takes them: a slow reader holds a coroutine, and no
thread or database connection between two batches. The whole answer has
GAMES_EXPORT_TIME_LIMIT seconds from its first line; then it is cut: uvicorn closes the
connection with the body unfinished, even while a reader that does not read holds the send
(what the client then sees depends on the proxy: docs/deploy/SERVING.md). Under WSGI (the test
client, `make run`) the same lines come from a plain iterator."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Iterator
from datetime import datetime
from typing import Any

from channels.db import database_sync_to_async
from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from django.db.models import Q, QuerySet
from django.http import StreamingHttpResponse
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.views import APIView

from accounts.models import User
from accounts.standings.records import MODES
from accounts.throttles import GamesExportThrottle
from demineur_site.api_errors import ApiError
from games.api.helpers import file_responses
from games.engine import LEVELS
from games.play import selectors
from games.play.models import ENDED_STATES, Game, Move
from games.play.presenters import game_dict, move_dict

log = logging.getLogger(__name__)

BATCH = 200
# Under ASGI a batch runs in the process's one sync thread, which the sockets' database work
# shares: about 4 ms of rendering a game, so a batch of 50 keeps each turn short.
ASYNC_BATCH = 50

Cursor = tuple[datetime, Any]


def _since(raw: str | None) -> datetime | None:
    if raw is None:
        return None
    parsed = parse_datetime(raw) if len(raw) <= 64 else None
    if parsed is None:
        raise ApiError("invalid", "`since` is an ISO date-time.", {"since": raw[:64]})
    return parsed if timezone.is_aware(parsed) else timezone.make_aware(parsed)


def _exported(
    user: User, *, level: str | None, mode: str | None, since: datetime | None
) -> QuerySet[Game]:
    games = Game.objects.filter(player=user, state__in=ENDED_STATES, sealed=False).exclude(
        ended_at__isnull=True
    )
    if level is not None:
        games = games.filter(level=level)
    if mode is not None:
        games = games.filter(no_guess=mode == "no_guess")
    if since is not None:
        games = games.filter(ended_at__gte=since)
    return games


def _batch(
    games: QuerySet[Game], user: User, after: Cursor | None, size: int
) -> tuple[list[bytes], Cursor | None]:
    """The lines of the next `size` games after `after`, and the cursor past them (None once
    the history is exhausted)."""
    page = games
    if after is not None:
        page = page.filter(Q(ended_at__gt=after[0]) | Q(ended_at=after[0], id__gt=after[1]))
    batch = list(page.order_by("ended_at", "id")[:size])
    moves: dict[Any, list[dict[str, Any]]] = {g.id: [] for g in batch}
    for move in Move.objects.filter(game_id__in=list(moves)).order_by("game_id", "seq"):
        moves[move.game_id].append(move_dict(move))
    lines = [
        json.dumps(
            {**game_dict(game, player_name=user.username), "moves": moves[game.id]},
            separators=(",", ":"),
        ).encode()
        + b"\n"
        for game in batch
    ]
    if len(batch) < size:
        return lines, None
    last = batch[-1]
    assert last.ended_at is not None
    return lines, (last.ended_at, last.id)


def export_lines(
    user: User, *, level: str | None, mode: str | None, since: datetime | None
) -> Iterator[bytes]:
    games = _exported(user, level=level, mode=mode, since=since)
    after: Cursor | None = None
    while True:
        lines, after = _batch(games, user, after, BATCH)
        yield from lines
        if after is None:
            return


async def export_lines_async(
    user: User, *, level: str | None, mode: str | None, since: datetime | None, limit: float
) -> AsyncIterator[bytes]:
    """export_lines for the ASGI handler, cut `limit` seconds after its first line is asked
    for. The cut cancels the task that sends the answer, which may be waiting on a reader that
    does not read; uvicorn then closes the connection without the body's last chunk."""
    task = asyncio.current_task()
    assert task is not None

    def cut() -> None:
        log.warning(
            "games export cut: not read to its end within GAMES_EXPORT_TIME_LIMIT (%g s)", limit
        )
        task.cancel("games export over its time limit")

    timer = asyncio.get_running_loop().call_later(limit, cut)
    try:
        games = _exported(user, level=level, mode=mode, since=since)
        after: Cursor | None = None
        while True:
            lines, after = await database_sync_to_async(_batch)(games, user, after, ASYNC_BATCH)
            for line in lines:
                yield line
            if after is None:
                return
    finally:
        timer.cancel()


class GamesExportView(APIView):
    throttle_classes = [GamesExportThrottle]

    @extend_schema(
        parameters=[
            OpenApiParameter("level", str, enum=[*LEVELS, "custom"]),
            OpenApiParameter("mode", str, enum=list(MODES)),
            OpenApiParameter("since", OpenApiTypes.DATETIME),
        ],
        responses=file_responses(
            "application/x-ndjson",
            OpenApiTypes.STR,
            "One ended Game a line, each with its `moves`.",
            {400: None, 404: None, 429: None},
        ),
        tags=["games"],
    )
    def get(self, request: Request, username: str) -> StreamingHttpResponse:
        user = selectors.user_get(username=username)
        level = request.query_params.get("level")
        if level is not None and level not in LEVELS and level != "custom":
            raise ApiError("invalid", f"Unknown level {level[:32]!r}.")
        mode = request.query_params.get("mode")
        if mode is not None and mode not in MODES:
            raise ApiError("invalid", f"Unknown mode {mode[:32]!r}.", {"modes": list(MODES)})
        since = _since(request.query_params.get("since"))
        lines: Iterator[bytes] | AsyncIterator[bytes]
        if isinstance(request._request, ASGIRequest):
            lines = export_lines_async(
                user,
                level=level,
                mode=mode,
                since=since,
                limit=settings.GAMES_EXPORT_TIME_LIMIT,
            )
        else:
            lines = export_lines(user, level=level, mode=mode, since=since)
        response = StreamingHttpResponse(lines, content_type="application/x-ndjson")
        response["Content-Disposition"] = f'attachment; filename="{user.pk}-games.ndjson"'
        return response
