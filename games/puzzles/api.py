"""The puzzles' REST doors (API.md, Puzzles; docs/PUZZLES.md, Endpoints). Thin: validate the
address and the body, call games.puzzles.services or boards, shape the answer with
games.puzzles.presenters (the one place a puzzle becomes JSON)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Any, TypeVar

from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import User
from accounts.standings import leaderboards
from accounts.standings.api import AROUND, board_paging, board_response
from demineur_site.parsers import valid_body
from games.api import examples
from games.api.helpers import signed_in
from games.api.serializers import ERRORS, ErrorOut, PageQuery
from games.errors import GameError
from games.puzzles import boards, presenters, services
from games.puzzles.models import RunKind
from games.puzzles.positions import THEMES
from games.puzzles.serializers import (
    PuzzleBoardPageOut,
    PuzzleDashboardOut,
    PuzzleOpenIn,
    PuzzleOpenOut,
    PuzzleOut,
    PuzzleRunOut,
    PuzzleStormPageOut,
    PuzzleStreakPageOut,
)

F = TypeVar("F", bound=Callable[..., Any])
PUZZLE_ID = OpenApiParameter("puzzle_id", OpenApiTypes.UUID, OpenApiParameter.PATH)
PLAYERS = OpenApiParameter("players", str, enum=list(leaderboards.PLAYERS))


def _viewer(request: Request) -> User | None:
    return request.user if isinstance(request.user, User) else None


def _puzzle_response(
    puzzle_id: Any, viewer: User | None, code: int = status.HTTP_200_OK
) -> Response:
    puzzle = services.puzzle_get(puzzle_id)
    attempt = services.latest_attempt(viewer, puzzle)
    return Response(presenters.puzzle_dict(puzzle, attempt), status=code)


class PuzzleNextView(APIView):
    @extend_schema(
        parameters=[OpenApiParameter("theme", str, enum=list(THEMES))],
        responses={200: PuzzleOut, 400: ErrorOut, 401: ErrorOut, 403: ErrorOut, 404: ErrorOut},
        operation_id="puzzles_next",
        tags=["puzzles"],
    )
    def get(self, request: Request) -> Response:
        """A puzzle near the player's rating they have not tried (the same one until it is
        played); 404 when none is left."""
        player = signed_in(request)
        puzzle, attempt = services.puzzle_next(
            player=player, theme=request.query_params.get("theme")
        )
        return Response(presenters.puzzle_dict(puzzle, attempt))


class PuzzleDailyView(APIView):
    @extend_schema(
        responses={200: PuzzleOut, 404: ErrorOut}, operation_id="puzzles_daily", tags=["puzzles"]
    )
    def get(self, request: Request) -> Response:
        """The puzzle of the UTC day, the same for everyone (404 while there is no puzzle)."""
        chosen = services.puzzle_of_the_day()
        attempt = services.puzzle_show(puzzle=chosen.puzzle, player=_viewer(request))
        return Response(presenters.puzzle_dict(chosen.puzzle, attempt))


class PuzzleDashboardView(APIView):
    @extend_schema(
        responses={200: PuzzleDashboardOut, 401: ErrorOut, 403: ErrorOut},
        operation_id="puzzles_dashboard",
        tags=["puzzles"],
    )
    def get(self, request: Request) -> Response:
        return Response(presenters.dashboard_dict(signed_in(request)))


class PuzzleDetailView(APIView):
    @extend_schema(
        parameters=[PUZZLE_ID],
        responses={200: PuzzleOut, 404: ErrorOut},
        examples=[examples.puzzle],
        operation_id="puzzles_get",
        tags=["puzzles"],
    )
    def get(self, request: Request, puzzle_id: str) -> Response:
        """A puzzle with the caller's attempt (a signed-in caller who has none gets one, not
        started)."""
        puzzle = services.puzzle_get(puzzle_id)
        attempt = services.puzzle_show(puzzle=puzzle, player=_viewer(request))
        return Response(presenters.puzzle_dict(puzzle, attempt))


class PuzzleOpenView(APIView):
    @extend_schema(
        parameters=[PUZZLE_ID],
        request=PuzzleOpenIn,
        responses={200: PuzzleOpenOut, **ERRORS},
        operation_id="puzzles_open",
        tags=["puzzles"],
    )
    def post(self, request: Request, puzzle_id: str) -> Response:
        """Open a cell: `correct` when the numbers open now proved it safe, else the attempt
        fails. 400 `out_of_bounds`, 409 `cell_open`, 409 `attempt_over`."""
        player = signed_in(request)
        body = valid_body(PuzzleOpenIn, request)
        opened = services.puzzle_open(puzzle_id=puzzle_id, player=player, x=body["x"], y=body["y"])
        puzzle = services.puzzle_get(puzzle_id)  # its plays and rating as the opening left them
        return Response(
            {
                "correct": opened.correct,
                "puzzle": presenters.puzzle_dict(puzzle, opened.attempt),
                "run": presenters.run_dict(opened.run) if opened.run is not None else None,
            }
        )


class PuzzleRetryView(APIView):
    @extend_schema(
        parameters=[PUZZLE_ID],
        request=None,
        responses={200: PuzzleOut, 201: PuzzleOut, 401: ErrorOut, 403: ErrorOut, 404: ErrorOut},
        operation_id="puzzles_retry",
        tags=["puzzles"],
    )
    def post(self, request: Request, puzzle_id: str) -> Response:
        """A new attempt, practice (201), once the last one has ended; the attempt still in
        play otherwise (200)."""
        player = signed_in(request)
        _attempt, created = services.puzzle_retry(puzzle_id=puzzle_id, player=player)
        code = status.HTTP_201_CREATED if created else status.HTTP_200_OK
        return _puzzle_response(puzzle_id, player, code)


class _RunView(APIView):
    kind = ""

    def get(self, request: Request) -> Response:
        run = services.run_current(player=signed_in(request), kind=self.kind)
        return Response(presenters.run_dict(run))

    def post(self, request: Request) -> Response:
        run = services.run_start(player=signed_in(request), kind=self.kind)
        return Response(presenters.run_dict(run), status=status.HTTP_201_CREATED)


def _run_schema(kind: str) -> Callable[[F], F]:
    """The schema of a run's door: GET the running or last one, POST a new one."""
    return extend_schema_view(
        get=extend_schema(
            responses={200: PuzzleRunOut, 401: ErrorOut, 403: ErrorOut, 404: ErrorOut},
            operation_id=f"puzzles_{kind}_get",
            tags=["puzzles"],
            description=f"The player's running {kind}, else their last one.",
        ),
        post=extend_schema(
            request=None,
            responses={201: PuzzleRunOut, 401: ErrorOut, 403: ErrorOut, 404: ErrorOut},
            operation_id=f"puzzles_{kind}_start",
            tags=["puzzles"],
            description=f"A new {kind} with its first puzzle (a running one ends first).",
        ),
    )


@_run_schema("streak")
class StreakView(_RunView):
    kind = RunKind.STREAK


@_run_schema("storm")
class StormView(_RunView):
    kind = RunKind.STORM


# --- boards ------------------------------------------------------------------------------------


def _board_schema(page: Any, *parameters: Any, operation_id: str) -> Callable[[F], F]:
    return extend_schema(
        parameters=[*parameters, PageQuery, AROUND, PLAYERS],
        responses={200: page, 400: ErrorOut, 401: ErrorOut, 404: ErrorOut},
        operation_id=operation_id,
        tags=["leaderboards"],
    )


class PuzzleBoardView(APIView):
    @_board_schema(PuzzleBoardPageOut, operation_id="leaderboards_puzzles")
    def get(self, request: Request) -> Response:
        players = request.query_params.get("players")
        leaderboards.pool_of(players)  # 400 before 401
        page = boards.rating_board_page(players=players, ask=board_paging(request))
        return board_response(request, page)


class PuzzleStreakBoardView(APIView):
    @_board_schema(PuzzleStreakPageOut, operation_id="leaderboards_puzzles_streak")
    def get(self, request: Request) -> Response:
        players = request.query_params.get("players")
        leaderboards.pool_of(players)
        page = boards.streak_board_page(players=players, ask=board_paging(request))
        return board_response(request, page)


class PuzzleStormBoardView(APIView):
    @_board_schema(
        PuzzleStormPageOut,
        OpenApiParameter("period", str, enum=list(boards.PERIODS), description="`all` by default."),
        OpenApiParameter(
            "date", OpenApiTypes.DATE, description="The day of `period=day`: today by default."
        ),
        operation_id="leaderboards_puzzles_storm",
    )
    def get(self, request: Request) -> Response:
        params = request.query_params
        players = params.get("players")
        leaderboards.pool_of(players)
        period = boards.check_period(params.get("period"))
        day = _query_day(params.get("date"), services.day_of(timezone.now()))
        page = boards.storm_board_page(
            players=players, ask=board_paging(request), period=period, day=day
        )
        return board_response(request, page)


def _query_day(raw: str | None, default: date) -> date:
    if raw is None:
        return default
    try:
        if len(raw) == 10:
            return date.fromisoformat(raw)
    except ValueError:
        pass
    raise GameError("invalid", "`date` is a day written YYYY-MM-DD.", {"date": raw})
