"""REST endpoints of arenas (API.md, Arenas). Thin: validate, call games.arenas.services or
games.arenas.selectors, shape the answer with games.arenas.presenters."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import BaseThrottle
from rest_framework.views import APIView

from accounts.models import User
from accounts.standings.api import AROUND, board_paging, board_response
from demineur_site.parsers import valid_body as _valid
from games.api import examples
from games.api.helpers import list_filters, list_schema, paginated_response, signed_in
from games.api.serializers import ERRORS, ErrorOut, PageQuery
from games.arenas import selectors as arena_selectors
from games.arenas import services as arenas
from games.arenas.models import Arena
from games.arenas.presenters import arena_dict
from games.arenas.serializers import (
    ARENA_STATES,
    ArenaCreateIn,
    ArenaOut,
    ArenaPageOut,
    StandingsPageOut,
)
from games.engine import LEVELS


def _viewer(request: Request) -> User | None:
    return request.user if isinstance(request.user, User) else None


def _arena_response(request: Request, arena: Arena, code: int = status.HTTP_200_OK) -> Response:
    fresh = arena_selectors.arena_get(arena_id=arena.pk)
    return Response(arena_selectors.arena_json(fresh, viewer=_viewer(request)), status=code)


class ArenaListView(APIView):
    @list_schema(
        tag="arenas",
        page=ArenaPageOut,
        states=ARENA_STATES,
        levels=list(LEVELS),
        by="code",
    )
    def get(self, request: Request) -> Response:
        """Arenas, the next to start first; the server's scheduled ones among them; private
        arenas only by `?code=`."""
        qs = arena_selectors.arena_list(**list_filters(request, "code"))
        viewer = _viewer(request)
        return paginated_response(
            request,
            self,
            qs,
            lambda page: [
                arena_selectors.arena_json(a, viewer=viewer) if viewer else arena_dict(a)
                for a in page
            ],
        )

    @extend_schema(request=ArenaCreateIn, responses={201: ArenaOut, **ERRORS}, tags=["arenas"])
    def post(self, request: Request) -> Response:
        player = signed_in(request)
        body = _valid(ArenaCreateIn, request)
        # The client address as the throttles read it (the peer, or X-Forwarded-For behind
        # TRUSTED_PROXIES): the cap on open arenas per address counts by it.
        address = BaseThrottle().get_ident(request)
        arena = arenas.arena_create(player=player, address=address, **body)
        return _arena_response(request, arena, status.HTTP_201_CREATED)


class ArenaDetailView(APIView):
    @extend_schema(
        responses={200: ArenaOut, 404: ErrorOut}, examples=[examples.arena], tags=["arenas"]
    )
    def get(self, request: Request, arena_id: str) -> Response:
        return _arena_response(request, arena_selectors.arena_get(arena_id=arena_id))


def _action_view(name: str, act: Callable[..., Arena]) -> Any:
    """The view of `POST /api/arenas/{id}/<name>`: the signed-in player, the service, the
    Arena as it now is."""

    @extend_schema(request=None, responses={200: ArenaOut, **ERRORS}, tags=["arenas"])
    def post(self: APIView, request: Request, arena_id: str) -> Response:
        player = signed_in(request)
        arena_selectors.parse_arena_id(arena_id)
        return _arena_response(request, act(arena_id=arena_id, player=player))

    return type(f"Arena{name.title()}View", (APIView,), {"post": post})


ACTION_VIEWS = {
    "join": _action_view("join", arenas.arena_join),
    "leave": _action_view("leave", arenas.arena_leave),
}


class StandingsView(APIView):
    @extend_schema(
        parameters=[PageQuery, AROUND],
        responses={200: StandingsPageOut, 400: ErrorOut, 401: ErrorOut, 404: ErrorOut},
        operation_id="arenas_standings",
        tags=["arenas"],
    )
    def get(self, request: Request, arena_id: str) -> Response:
        """The standings by points (docs/ARENAS.md, Ties), with `me`; `around=me` is the page
        holding the viewer's row."""
        arena = arena_selectors.arena_get(arena_id=arena_id)
        page = arena_selectors.standings_page(arena=arena, ask=board_paging(request))
        return board_response(request, page)
