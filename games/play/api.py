"""REST endpoints of games and profiles (API.md). Thin: validate, call a service or selector,
shape the answer. Every rule lives in games.engine and games.play.services; what every room's
doors share is games.api's (helpers, serializers)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any, TypeVar

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.services import account_set_kind, own_account
from accounts.standings.insights import insights_by_level
from accounts.standings.leaderboards import no_guess_mode
from accounts.standings.records import MODES
from accounts.standings.selectors import luck_by_level
from demineur_site.parsers import valid_body
from games.api import examples
from games.api.helpers import (
    file_responses,
    list_filters,
    list_schema,
    paginated_response,
    signed_in,
)
from games.api.serializers import ERRORS, ErrorOut, PageQuery
from games.engine import LEVELS, Board
from games.errors import GameError
from games.play import selectors, services
from games.play.evf import Replay, evf_bytes
from games.play.models import Game, GameState, Move
from games.play.presenters import game_dict, game_elapsed_ms, move_dict
from games.play.profiles import profile_dict
from games.play.serializers import (
    AccountPatchIn,
    FlagIn,
    GameCreateIn,
    GameOut,
    GamePageOut,
    MoveIn,
    MovePageOut,
    MoveResultOut,
    OwnProfileSerializer,
    PlayerInsightsOut,
    PlayerLuckOut,
    ProfileOut,
    plain_move_body,
)

F = TypeVar("F", bound=Callable[..., Any])

_valid = valid_body  # the doors' one body reader (demineur_site.parsers)


def _viewer_id(request: Request) -> int | None:
    return request.user.pk if request.user.is_authenticated else None


def _game_response(
    game: Game, *, player_name: str, viewer_id: int | None, code: int = status.HTTP_200_OK
) -> Response:
    return Response(game_dict(game, player_name=player_name, viewer_id=viewer_id), status=code)


class GameListView(APIView):
    @list_schema(
        tag="games",
        page=GamePageOut,
        states=["new", "playing", "paused", "won", "lost"],
        levels=[*LEVELS, "custom"],
        by="user",
    )
    def get(self, request: Request) -> Response:
        qs = selectors.game_list(**list_filters(request, "user"))
        viewer_id = _viewer_id(request)

        def shape(page: list[Game]) -> list[dict[str, Any]]:
            return [game_dict(g, player_name=g.player.username, viewer_id=viewer_id) for g in page]

        return paginated_response(request, self, qs, shape)

    @extend_schema(
        request=GameCreateIn,
        responses={201: GameOut, **ERRORS},
        examples=[examples.new_game_request, examples.custom_game_request, examples.new_game],
        tags=["games"],
    )
    def post(self, request: Request) -> Response:
        player = signed_in(request)
        body = _valid(GameCreateIn, request)
        game = services.game_create(
            player=player,
            level=body.get("level"),
            width=body.get("width"),
            height=body.get("height"),
            mines=body.get("mines"),
            no_guess=body.get("no_guess", False),
        )
        return _game_response(
            game, player_name=player.username, viewer_id=player.pk, code=status.HTTP_201_CREATED
        )


class GameDetailView(APIView):
    @extend_schema(
        responses={200: GameOut, 404: ErrorOut}, examples=[examples.game], tags=["games"]
    )
    def get(self, request: Request, game_id: str) -> Response:
        game = selectors.game_get(game_id=game_id)
        return _game_response(game, player_name=game.player.username, viewer_id=_viewer_id(request))


class _MoveView(APIView):
    action = ""
    body_class: type = MoveIn

    def post(self, request: Request, game_id: str) -> Response:
        player = signed_in(request)
        body = plain_move_body(request.data, flag=self.body_class is FlagIn) or _valid(
            self.body_class, request
        )
        result = services.game_move(
            game_id=selectors.parse_game_id(game_id),
            player=player,
            action=self.action,
            x=body["x"],
            y=body["y"],
            flagged=body.get("flagged"),
            client_move_id=body.get("client_move_id"),
        )
        return Response(
            {
                "game": game_dict(
                    result.game,
                    player_name=player.username,
                    viewer_id=player.pk,
                    board=result.board,
                    # The move's own clock; a replay answers the game as it is now (API.md).
                    at_ms=None if result.replayed else result.at_ms,
                ),
                "changes": result.changes,
                "seq": result.seq,
            }
        )


def _move_schema(body_class: type) -> Callable[[F], F]:
    """The schema of a move door's POST, whose body is `body_class`."""
    return extend_schema_view(
        post=extend_schema(
            request=body_class,
            responses={200: MoveResultOut, **ERRORS},
            examples=[examples.move_request, examples.move_result],
            tags=["moves"],
        )
    )


@_move_schema(MoveIn)
class RevealView(_MoveView):
    action = "reveal"


@_move_schema(FlagIn)
class FlagView(_MoveView):
    action = "flag"
    body_class = FlagIn


@_move_schema(MoveIn)
class ChordView(_MoveView):
    action = "chord"


class _StateView(APIView):
    service: Any = None

    @extend_schema(request=None, responses={200: GameOut, **ERRORS}, tags=["moves"])
    def post(self, request: Request, game_id: str) -> Response:
        player = signed_in(request)
        game = type(self).service(game_id=selectors.parse_game_id(game_id), player=player)
        return _game_response(game, player_name=player.username, viewer_id=player.pk)


class PauseView(_StateView):
    service = staticmethod(services.game_pause)


class ResumeView(_StateView):
    service = staticmethod(services.game_resume)


class ResignView(_StateView):
    service = staticmethod(services.game_resign)


class MoveListView(APIView):
    @extend_schema(
        parameters=[PageQuery],
        responses={200: MovePageOut, 400: ErrorOut, 404: ErrorOut},
        operation_id="games_moves_list",
        tags=["games"],
    )
    def get(self, request: Request, game_id: str) -> Response:
        game = selectors.game_get(game_id=game_id)
        selectors.check_moves_visible(game=game, viewer_id=_viewer_id(request))
        return paginated_response(
            request,
            self,
            selectors.game_moves(game=game),
            lambda page: [move_dict(m) for m in page],
        )


class ReplayEvfView(APIView):
    """GET /api/games/{id}/replay.evf (API.md, The account's lifecycle; docs/ACCOUNTS.md, EVF
    replay files): an ended game as an EVF file, under the Game answer's visibility rules (the
    layout leaves only once the game has ended, and a race game's once its race has)."""

    @extend_schema(
        responses=file_responses(
            "application/octet-stream",
            OpenApiTypes.BINARY,
            "The ended game as an EVF (version 3) replay.",
            {403: ErrorOut, 404: ErrorOut, 409: ErrorOut},
        ),
        operation_id="games_replay_evf",
        tags=["games"],
    )
    def get(self, request: Request, game_id: str) -> HttpResponse:
        game = selectors.game_get(game_id=game_id)
        selectors.check_moves_visible(game=game, viewer_id=_viewer_id(request))
        if not game.ended or game.started_at is None:
            raise GameError("game_not_over", "A replay file is written once the game has ended.")
        if game.sealed:  # its own player too: the layout waits for the race's or day's end
            raise selectors.sealed_error(game)
        response = HttpResponse(
            evf_bytes(_replay(game, list(selectors.game_moves(game=game)))),
            content_type="application/octet-stream",
        )
        response["Content-Disposition"] = f'attachment; filename="demineur-{game.id}.evf"'
        return response


def _replay(game: Game, moves: list[Move]) -> Replay:
    rows = Board.decode(bytes(game.board)).to_ascii()
    return Replay(
        width=game.width,
        height=game.height,
        mines=frozenset(
            (x, y) for y, row in enumerate(rows) for x, ch in enumerate(row) if ch in "*MX"
        ),
        moves=tuple((m.action, m.x, m.y, int(m.at_ms), m.flagged) for m in moves),
        player=game.player.username,
        elapsed_ms=game_elapsed_ms(game),
        won=game.state == GameState.WON,
        bbbv=game.bbbv or 0,
        no_guess=game.no_guess,
        ranked=game.ranked,
        started_us=_us(game.started_at),
        ended_us=_us(game.ended_at),
    )


def _us(at: datetime | None) -> int | None:
    return None if at is None else int(at.timestamp()) * 1_000_000 + at.microsecond


class MeView(APIView):
    """The signed-in player's profile, with what only its owner sees (the address, two-factor
    sign-in, closing; accounts.services.own_account)."""

    @extend_schema(responses={200: OwnProfileSerializer, 401: ErrorOut}, tags=["accounts"])
    def get(self, request: Request) -> Response:
        user = signed_in(request)
        return Response({**profile_dict(user), **own_account(user)})

    @extend_schema(
        request=AccountPatchIn,
        responses={200: OwnProfileSerializer, 400: ErrorOut, 401: ErrorOut, 409: ErrorOut},
        tags=["accounts"],
    )
    def patch(self, request: Request) -> Response:
        """Declare the account a bot (or a human again) before its first game (RULES.md)."""
        user = signed_in(request)
        data = _valid(AccountPatchIn, request)
        if "kind" in data:
            user = account_set_kind(user=user, kind=data["kind"], has_played=selectors.has_played)
        return Response({**profile_dict(user), **own_account(user)})


class UserProfileView(APIView):
    @extend_schema(responses={200: ProfileOut, 404: ErrorOut}, tags=["accounts"])
    def get(self, request: Request, username: str) -> Response:
        return Response(profile_dict(selectors.user_get(username=username)))


MODE_PARAMETER = OpenApiParameter("mode", str, enum=list(MODES), description="classic by default.")


def _levels_of(request: Request, username: str, read: Callable[..., dict[str, Any]]) -> Response:
    """A player's figures per level for the `mode` the query asks (classic by default), as the
    luck and the insights answer them: the same envelope, each with its own reader."""
    user = selectors.user_get(username=username)
    no_guess = no_guess_mode(request.query_params.get("mode"))
    levels = read(user_id=user.pk, no_guess=no_guess)
    return Response({"username": user.username, "mode": MODES[int(no_guess)], "levels": levels})


class UserLuckView(APIView):
    """A player's luck against expectation per level and month (docs/STATS.md)."""

    @extend_schema(
        parameters=[MODE_PARAMETER],
        responses={200: PlayerLuckOut, 400: ErrorOut, 404: ErrorOut},
        operation_id="users_luck",
        tags=["accounts"],
    )
    def get(self, request: Request, username: str) -> Response:
        return _levels_of(request, username, luck_by_level)


class UserInsightsView(APIView):
    """A player's insights: their analysed games summed per level and month (docs/STATS.md,
    Insights). Public where the profile is: an unknown or closed account is 404 to everyone."""

    @extend_schema(
        parameters=[MODE_PARAMETER],
        responses={200: PlayerInsightsOut, 400: ErrorOut, 404: ErrorOut},
        operation_id="users_insights",
        tags=["accounts"],
    )
    def get(self, request: Request, username: str) -> Response:
        return _levels_of(request, username, insights_by_level)
