"""The boards' REST doors (API.md, Leaderboards and statistics): the solo boards and the race
boards. Thin: validate the address and the paging, call accounts.standings.leaderboards or
accounts.standings.race_board, shape `{count, next, previous, results, me}`. The paging and
the page's shape are every board's: the daily board (games.daily.api) and an arena's standings
(games.arenas.api) use them too.

Below the game rooms and above the doors' kit (games.api): built only on the standings, the
engine, the site and that kit, and used by the rooms' doors above."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from django.utils import timezone
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import RANKED_LEVELS, User
from accounts.standings import leaderboards, race_board
from accounts.standings.leaderboards import BoardPage, PageAsk
from accounts.standings.records import MODES
from accounts.standings.serializers import LeaderboardPageOut, RaceBoardPageOut
from demineur_site.api_errors import ApiError
from demineur_site.pagination import Pagination, page_link, page_number
from games.api.serializers import ErrorOut, PageQuery
from games.engine import LEVELS

F = TypeVar("F", bound=Callable[..., Any])
AROUND = OpenApiParameter("around", str, enum=["me"])


def around_me(request: Request) -> tuple[bool, User | None]:
    """`?around=me` (only `me`; 401 when not signed in) and the signed-in viewer, if any."""
    around = request.query_params.get("around")
    if around not in (None, "me"):
        raise ApiError("invalid_around", "around accepts only `me`.")
    viewer = request.user if isinstance(request.user, User) else None
    if around == "me" and viewer is None:
        raise ApiError("not_authenticated", "around=me needs you signed in.")
    return around == "me", viewer


def board_paging(request: Request) -> PageAsk:
    """What is asked of a board, for its `*_page` function: `?around=me` and the viewer
    (around_me), then `?page=` and `?page_size=`."""
    centred, viewer = around_me(request)
    return PageAsk(
        page=page_number(request),
        page_size=Pagination().get_page_size(request),
        viewer=viewer,
        around_me=centred,
    )


def board_schema(page: Any, *parameters: Any, operation_id: str | None = None) -> Callable[[F], F]:
    """The schema of a board's GET: its own `parameters`, then the paging, `around`, `players`
    and `mode`; a page of `page`, or 400, 401 (`around=me` signed out) or 404."""
    return extend_schema(
        parameters=[
            *parameters,
            PageQuery,
            AROUND,
            OpenApiParameter("players", str, enum=list(leaderboards.PLAYERS)),
            OpenApiParameter("mode", str, enum=list(MODES)),
        ],
        responses={200: page, 400: ErrorOut, 401: ErrorOut, 404: ErrorOut},
        operation_id=operation_id,
        tags=["leaderboards"],
    )


class LeaderboardView(APIView):
    @board_schema(
        LeaderboardPageOut,
        OpenApiParameter("level", str, OpenApiParameter.PATH, enum=list(RANKED_LEVELS)),
        OpenApiParameter("board", str, OpenApiParameter.PATH, enum=list(leaderboards.BOARDS)),
        OpenApiParameter(
            "period",
            str,
            enum=list(leaderboards.PERIODS),
            description="Times and speed boards; a streak board takes only `all`.",
        ),
        OpenApiParameter("sort", str, enum=list(leaderboards.SORTS)),
        OpenApiParameter(
            "style",
            str,
            enum=list(leaderboards.STYLES),
            description="Times and speed boards: `nf` ranks only the wins without a flag ever"
            " placed (no-flag records); `all` (the default) every win. A streak board takes"
            " only `all`.",
        ),
    )
    def get(self, request: Request, level: str, board: str) -> Response:
        params = request.query_params
        spec = leaderboards.board_spec(
            level=level,
            board=board,
            period=params.get("period"),
            sort=params.get("sort"),
            players=params.get("players"),
            mode=params.get("mode"),
            style=params.get("style"),
        )
        # `?page_size=` read before `?page=` here (the other boards: board_paging's order).
        centred, viewer = around_me(request)
        page_size = Pagination().get_page_size(request)
        ask = PageAsk(
            page=page_number(request), page_size=page_size, viewer=viewer, around_me=centred
        )
        page = leaderboards.leaderboard_page(spec=spec, ask=ask)
        return board_response(request, page)


class RaceBoardView(APIView):
    @board_schema(
        RaceBoardPageOut,
        OpenApiParameter("level", str, OpenApiParameter.PATH, enum=list(LEVELS)),
        OpenApiParameter(
            "season",
            str,
            pattern=r"^(current|[0-9]{4}Q[1-4])$",
            description="A season's board (docs/RACES.md, Seasons: calendar quarters, UTC):"
            " `current` or a season that has begun, as `2026Q4`; without it, the lasting"
            " ratings. Anything else is 400 `invalid_season`.",
        ),
        operation_id="leaderboards_races",
    )
    def get(self, request: Request, level: str) -> Response:
        """Ratings by level, with `me`; `around=me` is the page holding the viewer's row (the
        solo boards' paging rules: accounts.standings.race_board). The seasons are by the
        server's clock."""
        players = request.query_params.get("players")
        mode = request.query_params.get("mode")
        now = timezone.now()
        season = race_board.board_season(request.query_params.get("season"), now=now)
        # 404/400 before 401
        race_board.race_board(level=level, players=players, mode=mode, season=season)
        page = race_board.race_board_page(
            level=level, players=players, mode=mode, season=season, ask=board_paging(request)
        )
        response = board_response(request, page)
        response.data["season"] = season
        response.data["seasons"] = race_board.race_board_seasons(
            level=level, players=players, mode=mode, now=now
        )
        return response


def board_response(request: Request, page: BoardPage) -> Response:
    """A board's page as `{count, next, previous, results, me}`, solo or race."""
    return Response(
        {
            "count": page.count,
            "next": page_link(request, page.page + 1) if page.page < page.last_page else None,
            "previous": page_link(request, page.page - 1) if page.page > 1 else None,
            "results": page.results,
            "me": page.me,
        }
    )
