"""REST endpoints of races (API.md, Races). Thin: validate, call games.races.services or
games.races.selectors, shape the answer with games.races.presenters. The race boards' door is
the boards' (accounts.standings.api)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from demineur_site.parsers import valid_body as _valid
from games.api import examples
from games.api.helpers import list_filters, list_schema, paginated_response, signed_in
from games.api.serializers import ERRORS, ErrorOut
from games.engine import LEVELS
from games.play import selectors
from games.races import selectors as race_selectors
from games.races import services as races
from games.races.models import Race
from games.races.presenters import race_dict
from games.races.serializers import (
    PlayerRacesOut,
    QueueIn,
    QueueOut,
    RaceCreateIn,
    RaceOut,
    RacePageOut,
    ReadyIn,
)


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
        qs = race_selectors.race_list(**list_filters(request, "code"))

        def shape(page: list[Race]) -> list[dict[str, Any]]:
            racers = race_selectors.racers_by_race(page)
            return [race_dict(r, racers[r.pk]) for r in page]

        return paginated_response(request, self, qs, shape)

    @extend_schema(request=RaceCreateIn, responses={201: RaceOut, **ERRORS}, tags=["races"])
    def post(self, request: Request) -> Response:
        player = signed_in(request)
        body = _valid(RaceCreateIn, request)
        race = races.race_create(player=player, **body)
        return _race_response(race, status.HTTP_201_CREATED)


class RaceDetailView(APIView):
    @extend_schema(
        responses={200: RaceOut, 404: ErrorOut}, examples=[examples.race], tags=["races"]
    )
    def get(self, request: Request, race_id: str) -> Response:
        return _race_response(race_selectors.race_get(race_id=race_id))


def _action_view(name: str, act: Callable[..., Race], body_class: type | None = None) -> Any:
    """The view of `POST /api/races/{id}/<name>`: the signed-in racer, the body (if the action
    takes one), the service, the Race as it now is."""

    @extend_schema(request=body_class, responses={200: RaceOut, **ERRORS}, tags=["races"])
    def post(self: APIView, request: Request, race_id: str) -> Response:
        player = signed_in(request)
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
        player = signed_in(request)
        body = _valid(QueueIn, request)
        return Response(
            races.queue_join(
                player=player, level=body["level"], no_guess=body.get("no_guess", False)
            )
        )

    @extend_schema(responses={200: QueueOut, 401: ErrorOut, 404: ErrorOut}, tags=["races"])
    def get(self, request: Request) -> Response:
        return Response(races.queue_status(player=signed_in(request)))

    @extend_schema(responses={204: None, 401: ErrorOut, 404: ErrorOut}, tags=["races"])
    def delete(self, request: Request) -> Response:
        races.queue_leave(player=signed_in(request))
        return Response(status=status.HTTP_204_NO_CONTENT)


class PlayerRacesView(APIView):
    """An extension of API.md: a player's race statistics per level (rating, races, wins,
    podiums), their totals, their 20 newest finished races (docs/RACES.md), and their arenas:
    played, podiums, best final rank (docs/ARENAS.md)."""

    # What the rooms above races add to the answer, each a key and a reader of the player's
    # part (`arenas`: games.arenas.selectors.arena_profile, docs/ARENAS.md, Profiles); the
    # route table (games.urls) gives them, since races never import arenas.
    sections: Mapping[str, Callable[..., Any]] = {}

    @extend_schema(responses={200: PlayerRacesOut, 404: ErrorOut}, tags=["races"])
    def get(self, request: Request, username: str) -> Response:
        user = selectors.user_get(username=username)
        body = race_selectors.race_profile(user=user)
        for key, section in self.sections.items():
            body[key] = section(user=user)
        return Response(body)
