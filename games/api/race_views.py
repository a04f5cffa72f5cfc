"""REST endpoints of races (API.md, Races). Thin: validate, call games.races or
games.race_selectors, shape the answer with games.race_presenters."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from demineur_site.api_errors import ApiError
from demineur_site.pagination import Pagination

from .. import race_selectors, races, selectors
from ..engine import LEVELS
from ..models import Race
from ..race_presenters import race_dict
from .leaderboard_views import _link, _page_number, around_me
from .race_serializers import (
    PlayerRacesOut,
    QueueIn,
    QueueOut,
    RaceBoardPageOut,
    RaceCreateIn,
    RaceOut,
    RacePageOut,
    ReadyIn,
)
from .serializers import ErrorOut, PageQuery
from .views import _signed_in, _valid, list_schema, paginated_response

ERRORS = {400: ErrorOut, 401: ErrorOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut}


def _race_response(race: Race, code: int = status.HTTP_200_OK) -> Response:
    return Response(races.race_json(race), status=code)


class RaceListView(APIView):
    @list_schema(
        tag="races",
        page=RacePageOut,
        states=sorted(race_selectors.RACE_STATES),
        levels=list(LEVELS),
        by="code",
    )
    def get(self, request: Request) -> Response:
        params = request.query_params
        qs = race_selectors.race_list(
            state=params.get("state"), level=params.get("level"), code=params.get("code")
        )

        def shape(page: list[Race]) -> list[dict[str, Any]]:
            racers = race_selectors.racers_by_race(page)
            return [race_dict(r, racers[r.pk]) for r in page]

        return paginated_response(request, self, qs, shape)

    @extend_schema(request=RaceCreateIn, responses={201: RaceOut, **ERRORS}, tags=["races"])
    def post(self, request: Request) -> Response:
        player = _signed_in(request)
        body = _valid(RaceCreateIn, request)
        race = races.race_create(player=player, **body)
        return _race_response(race, status.HTTP_201_CREATED)


class RaceDetailView(APIView):
    @extend_schema(responses={200: RaceOut, 404: ErrorOut}, tags=["races"])
    def get(self, request: Request, race_id: str) -> Response:
        return _race_response(race_selectors.race_get(race_id=race_id))


def _action_view(name: str, act: Callable[..., Race], body_class: type | None = None) -> Any:
    """The view of `POST /api/races/{id}/<name>`: the signed-in racer, the body (if the action
    takes one), the service, the Race as it now is."""

    @extend_schema(request=body_class, responses={200: RaceOut, **ERRORS}, tags=["races"])
    def post(self: APIView, request: Request, race_id: str) -> Response:
        player = _signed_in(request)
        race_selectors.parse_race_id(race_id)
        body = _valid(body_class, request) if body_class is not None else {}
        return _race_response(act(race_id=race_id, player=player, **body))

    return type(f"Race{name.title()}View", (APIView,), {"post": post})


ACTION_VIEWS = {
    "join": _action_view("join", races.race_join),
    "leave": _action_view("leave", races.race_leave),
    "ready": _action_view("ready", races.race_ready, ReadyIn),
    "start": _action_view("start", races.race_start),
}


class QueueView(APIView):
    @extend_schema(request=QueueIn, responses={200: QueueOut, **ERRORS}, tags=["races"])
    def post(self, request: Request) -> Response:
        player = _signed_in(request)
        body = _valid(QueueIn, request)
        return Response(races.queue_join(player=player, level=body["level"]))

    @extend_schema(responses={200: QueueOut, 401: ErrorOut, 404: ErrorOut}, tags=["races"])
    def get(self, request: Request) -> Response:
        return Response(races.queue_status(player=_signed_in(request)))

    @extend_schema(responses={204: None, 401: ErrorOut, 404: ErrorOut}, tags=["races"])
    def delete(self, request: Request) -> Response:
        races.queue_leave(player=_signed_in(request))
        return Response(status=status.HTTP_204_NO_CONTENT)


class PlayerRacesView(APIView):
    """An extension of API.md: a player's race statistics per level (rating, races, wins,
    podiums), their totals, and their 20 newest finished races (docs/RACES.md)."""

    @extend_schema(responses={200: PlayerRacesOut, 404: ErrorOut}, tags=["races"])
    def get(self, request: Request, username: str) -> Response:
        user = selectors.user_get(username=username)
        return Response(race_selectors.race_profile(user=user))


class RaceBoardView(APIView):
    @extend_schema(
        parameters=[
            OpenApiParameter("level", str, OpenApiParameter.PATH, enum=list(LEVELS)),
            PageQuery,
            OpenApiParameter("around", str, enum=["me"]),
            OpenApiParameter("players", str, enum=list(race_selectors.PLAYERS)),
        ],
        responses={200: RaceBoardPageOut, 400: ErrorOut, 401: ErrorOut, 404: ErrorOut},
        operation_id="leaderboards_races",
        tags=["leaderboards"],
    )
    def get(self, request: Request, level: str) -> Response:
        """Ratings by level, with `me`; `around=me` is the page holding the viewer's row. A page
        past the last is 404; page 1 of an empty board is an empty page (as the solo boards)."""
        board = race_selectors.race_board(level=level, players=request.query_params.get("players"))
        centred, viewer = around_me(request)
        size = Pagination().get_page_size(request)
        mine = board.filter(player=viewer).first() if viewer is not None else None
        me = None
        if mine is not None:
            me = race_selectors.race_board_row(mine, rank=race_selectors.race_board_rank(row=mine))
        count = board.count()
        last = max(1, -(-count // size))
        page = (me["rank"] - 1) // size + 1 if centred and me else _page_number(request)
        if page > last:
            raise ApiError(404, "not_found", "No such page.", {"last_page": last})
        start = (page - 1) * size
        rows = [
            race_selectors.race_board_row(row, rank=start + i + 1)
            for i, row in enumerate(board[start : start + size])
        ]
        return Response(
            {
                "count": count,
                "next": _link(request, page + 1) if page < last else None,
                "previous": _link(request, page - 1) if page > 1 else None,
                "results": rows,
                "me": me,
            }
        )
