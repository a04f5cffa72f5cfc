"""GET /api/users/{username}/games/export (API.md, The account's lifecycle; docs/ACCOUNTS.md,
Your data): a player's ended games as NDJSON, streamed, one Game a line (as an anonymous
viewer sees it after the end: the whole layout in `board`) with its `moves`.

Filters: `level` (a level or `custom`), `mode` (`classic` or `no_guess`), `since` (an ISO
date-time: games ended at or after it). Only ended games, and no race game while its race
runs (`sealed`): nothing of a running game or race leaves. Read in batches by (ended_at, id),
so a long history is never one query or one answer in memory. Throttled per account, else
per client address (THROTTLE_GAMES_EXPORT)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime
from typing import Any

from django.db.models import Q
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
from games.api.views import file_responses
from games.engine import LEVELS
from games.models import ENDED_STATES, Game, Move
from games.play import selectors
from games.play.presenters import game_dict, move_dict

BATCH = 200


def _since(raw: str | None) -> datetime | None:
    if raw is None:
        return None
    parsed = parse_datetime(raw) if len(raw) <= 64 else None
    if parsed is None:
        raise ApiError("invalid", "`since` is an ISO date-time.", {"since": raw[:64]})
    return parsed if timezone.is_aware(parsed) else timezone.make_aware(parsed)


def export_lines(
    user: User, *, level: str | None, mode: str | None, since: datetime | None
) -> Iterator[bytes]:
    games = Game.objects.filter(player=user, state__in=ENDED_STATES, sealed=False).exclude(
        ended_at__isnull=True
    )
    if level is not None:
        games = games.filter(level=level)
    if mode is not None:
        games = games.filter(no_guess=mode == "no_guess")
    if since is not None:
        games = games.filter(ended_at__gte=since)
    after: tuple[datetime, Any] | None = None
    while True:
        page = games
        if after is not None:
            page = page.filter(Q(ended_at__gt=after[0]) | Q(ended_at=after[0], id__gt=after[1]))
        batch = list(page.order_by("ended_at", "id")[:BATCH])
        if not batch:
            return
        moves: dict[Any, list[dict[str, Any]]] = {g.id: [] for g in batch}
        for move in Move.objects.filter(game_id__in=list(moves)).order_by("game_id", "seq"):
            moves[move.game_id].append(move_dict(move))
        for game in batch:
            line = {**game_dict(game, player_name=user.username), "moves": moves[game.id]}
            yield json.dumps(line, separators=(",", ":")).encode() + b"\n"
        last = batch[-1]
        assert last.ended_at is not None
        after = (last.ended_at, last.id)


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
        response = StreamingHttpResponse(
            export_lines(user, level=level, mode=mode, since=since),
            content_type="application/x-ndjson",
        )
        response["Content-Disposition"] = f'attachment; filename="{user.pk}-games.ndjson"'
        return response
