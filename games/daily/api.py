"""The daily challenge's REST doors (API.md, Daily challenge). Thin: validate the address,
call games.daily (services, presenters) or accounts.standings.daily, shape the answer."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import RANKED_LEVELS
from accounts.standings import daily as daily_standings
from accounts.standings.api import board_paging, board_response, board_schema
from accounts.standings.leaderboards import no_guess_mode
from games.api.helpers import signed_in
from games.api.serializers import ERRORS, ErrorOut
from games.daily import presenters, rules, services
from games.errors import GameError
from games.play import selectors
from games.play.presenters import game_dict
from games.play.serializers import GameOut

CALENDAR_MAX_DAYS = 366

_Level = inline_serializer(
    "DailyLevelOut",
    {
        "level": serializers.CharField(),
        "no_guess": serializers.BooleanField(),
        "players": serializers.IntegerField(),
        "winners": serializers.IntegerField(),
        "game": GameOut(allow_null=True),
        "share": serializers.CharField(allow_null=True),
        "share_facts": inline_serializer(
            "DailyShareFactsOut",
            {
                "day": serializers.DateField(),
                "level_name": serializers.CharField(),
                "won": serializers.BooleanField(),
                "time_ms": serializers.IntegerField(allow_null=True),
                "opened": serializers.IntegerField(),
                "safe_cells": serializers.IntegerField(),
                "rank": serializers.IntegerField(allow_null=True),
                "players": serializers.IntegerField(),
                "bbbv_per_s": serializers.FloatField(allow_null=True),
            },
            allow_null=True,
            help_text="What `share` says, field by field, for a page to say it in its language.",
        ),
        "start_cell": inline_serializer(
            "DailyCellOut",
            {"x": serializers.IntegerField(), "y": serializers.IntegerField()},
            required=False,
            help_text="Once the day is over.",
        ),
    },
    many=True,
)
DayOut = inline_serializer(
    "DailyDayOut",
    {
        "date": serializers.DateField(),
        "ends_at": serializers.DateTimeField(),
        "over": serializers.BooleanField(),
        "levels": _Level,
    },
)
_BoardRow = inline_serializer(
    "DailyBoardRowOut",
    {
        "rank": serializers.IntegerField(),
        "player": serializers.CharField(),
        "state": serializers.ChoiceField(choices=["playing", "paused", "won", "lost"]),
        "time_ms": serializers.IntegerField(allow_null=True),
        "opened": serializers.IntegerField(),
        "game_id": serializers.UUIDField(),
        "achieved_at": serializers.DateTimeField(),
    },
)
BoardPageOut = inline_serializer(
    "DailyBoardPageOut",
    {
        "count": serializers.IntegerField(),
        "next": serializers.URLField(allow_null=True),
        "previous": serializers.URLField(allow_null=True),
        "results": _BoardRow.__class__(many=True),
        "me": _BoardRow.__class__(allow_null=True),
    },
)
CalendarOut = inline_serializer(
    "DailyCalendarOut",
    {
        "username": serializers.CharField(),
        "from": serializers.DateField(),
        "to": serializers.DateField(),
        "results": inline_serializer(
            "DailyCalendarRowOut",
            {
                "date": serializers.DateField(),
                "level": serializers.CharField(),
                "state": serializers.CharField(),
                "time_ms": serializers.IntegerField(allow_null=True),
                "opened": serializers.IntegerField(),
                "place": serializers.IntegerField(allow_null=True),
                "ranked": serializers.BooleanField(),
                "game_id": serializers.UUIDField(),
            },
            many=True,
        ),
    },
)


def _viewer(request: Request) -> Any:
    return request.user if request.user.is_authenticated else None


def day_segment(raw: str) -> date:
    day = rules.parse_day(raw)
    if day is None:
        raise GameError("not_found", "No daily on this day: a day is written YYYY-MM-DD.")
    return day


def _query_day(request: Request, name: str, default: date) -> date:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    day = rules.parse_day(raw)
    if day is None:
        raise GameError("invalid", f"`{name}` is a day written YYYY-MM-DD.", {name: raw})
    return day


class DailyTodayView(APIView):
    @extend_schema(responses={200: DayOut}, operation_id="daily_today", tags=["daily"])
    def get(self, request: Request) -> Response:
        now = timezone.now()
        return Response(presenters.day_dict(rules.day_of(now), viewer=_viewer(request), now=now))


class DailyDayView(APIView):
    """`/api/daily/{segment}`: GET a day (`YYYY-MM-DD`), POST today's daily of a level."""

    @extend_schema(
        parameters=[OpenApiParameter("segment", str, OpenApiParameter.PATH)],
        responses={200: DayOut, 404: ErrorOut},
        operation_id="daily_day",
        tags=["daily"],
    )
    def get(self, request: Request, segment: str) -> Response:
        return Response(presenters.day_dict(day_segment(segment), viewer=_viewer(request)))

    @extend_schema(
        parameters=[
            OpenApiParameter("segment", str, OpenApiParameter.PATH, enum=list(RANKED_LEVELS))
        ],
        request=None,
        responses={200: GameOut, 201: GameOut, **ERRORS, 503: ErrorOut},
        operation_id="daily_start",
        tags=["daily"],
    )
    def post(self, request: Request, segment: str) -> Response:
        player = signed_in(request)
        game, created = services.daily_start(player=player, level=segment)
        return Response(
            game_dict(game, player_name=player.username, viewer_id=player.pk),
            status=status.HTTP_201_CREATED if created else status.HTTP_200_OK,
        )


class DailyPracticeView(APIView):
    @extend_schema(
        parameters=[
            OpenApiParameter("day", str, OpenApiParameter.PATH),
            OpenApiParameter("level", str, OpenApiParameter.PATH, enum=list(RANKED_LEVELS)),
        ],
        request=None,
        responses={201: GameOut, **ERRORS},
        operation_id="daily_practice",
        tags=["daily"],
    )
    def post(self, request: Request, day: str, level: str) -> Response:
        player = signed_in(request)
        game = services.daily_practice(player=player, day=day_segment(day), level=level)
        return Response(
            game_dict(game, player_name=player.username, viewer_id=player.pk),
            status=status.HTTP_201_CREATED,
        )


class DailyBoardView(APIView):
    @board_schema(
        BoardPageOut,
        OpenApiParameter("level", str, OpenApiParameter.PATH, enum=list(RANKED_LEVELS)),
        OpenApiParameter("date", OpenApiTypes.DATE, description="Today by default."),
        operation_id="leaderboards_daily",
    )
    def get(self, request: Request, level: str) -> Response:
        services.check_level(level)
        params = request.query_params
        today = rules.day_of(timezone.now())
        day = _query_day(request, "date", today)
        if day > today:
            raise GameError("not_found", "No daily on this day yet.", {"today": today.isoformat()})
        # Every daily is no-guess: `mode=classic` is a board with no rows (docs/DAILY.md).
        classic = params.get("mode") is not None and not no_guess_mode(params.get("mode"))
        board = daily_standings.daily_board(day=day, level=level, players=params.get("players"))
        if classic:
            board = daily_standings.DailyBoard(day=day, level=level, pool="classic")
        page = daily_standings.daily_board_page(board=board, ask=board_paging(request))
        return board_response(request, presenters.board_page_live(page))


class PlayerDailyView(APIView):
    @extend_schema(
        parameters=[
            OpenApiParameter(
                "from", OpenApiTypes.DATE, description="30 days before `to` by default."
            ),
            OpenApiParameter("to", OpenApiTypes.DATE, description="Today by default."),
        ],
        responses={200: CalendarOut, 400: ErrorOut, 404: ErrorOut},
        operation_id="users_daily",
        tags=["daily"],
    )
    def get(self, request: Request, username: str) -> Response:
        user = selectors.user_get(username=username)
        if user.closed_at is not None:
            raise GameError("not_found", "No such player.")
        until = _query_day(request, "to", rules.day_of(timezone.now()))
        since = _query_day(request, "from", until - timedelta(days=30))
        if since > until or (until - since).days >= CALENDAR_MAX_DAYS:
            raise GameError(
                "invalid",
                f"`from` is at most {CALENDAR_MAX_DAYS - 1} days before `to`.",
                {"from": since.isoformat(), "to": until.isoformat()},
            )
        entries = daily_standings.calendar(user_id=user.pk, since=since, until=until)
        return Response(
            {
                "username": user.username,
                "from": since.isoformat(),
                "to": until.isoformat(),
                "results": presenters.calendar_rows(entries),
            }
        )
