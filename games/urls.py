"""Every REST path of the games app: one game, races, leaderboards and profiles, each served by
its room's doors (games.play.api, games.play.export, games.races.api, games.arenas.api,
games.daily.api, games.puzzles.api, accounts.standings.api). Order matters twice: the race,
daily and puzzle boards (`leaderboards/{level}/races`, `.../daily`, `leaderboards/puzzles/...`)
come before the solo boards' pattern, and the puzzles' named paths (`puzzles/next`, ...) before
`puzzles/{id}`.

A pattern with segments (`games/{id}`, `leaderboards/{level}/{board}`, ...) matches paths that
name nothing, and API.md says an unknown path is 404 for every method. A view looks its
segments up only in the methods it answers, after sign-in, CSRF, the body and the method have
been checked; so each pattern names the lookups of its segments (`known`), and when the view
refused before it got that far (or answered OPTIONS) and a lookup finds nothing, the answer is
that lookup's 404 instead. A real path keeps its 405, 401, 400 or CSRF 403. The lookups run
only on those refusals, never on an answered request (a move pays nothing)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import re_path
from django.views.decorators.csrf import csrf_exempt

from accounts.standings import api as board_api
from accounts.standings import leaderboards as solo_boards
from accounts.standings import race_board
from demineur_site.api_errors import error_body, status_for
from demineur_site.errors import DomainError
from games.arenas import api as arena_api
from games.arenas import selectors as arena_selectors
from games.daily import api as daily_api
from games.daily import services as daily_services
from games.play import api as game_api
from games.play import export, overlays, selectors
from games.puzzles import api as puzzle_api
from games.puzzles import services as puzzle_services
from games.races import api as race_api
from games.races import selectors as race_selectors

GAME = r"(?P<game_id>[^/]{1,64})"
RACE = r"(?P<race_id>[^/]{1,64})"
ARENA = r"(?P<arena_id>[^/]{1,64})"
USER = r"(?P<username>[^/]{1,150})"
LEVEL = r"(?P<level>[^/]{1,32})"
PUZZLE = r"(?P<puzzle_id>[^/]{1,64})"

# The statuses a view answers before it has looked its path's segments up: a malformed body,
# no sign-in, a failed CSRF check, content negotiation, the method, the body's size or type.
_BEFORE_LOOKUP = frozenset({400, 401, 403, 405, 406, 413, 415})

Lookup = Callable[..., object]


def _game(game_id: str, **_: Any) -> object:
    return selectors.game_get(game_id=game_id)


def _race(race_id: str, **_: Any) -> object:
    return race_selectors.race_get(race_id=race_id)


def _arena(arena_id: str, **_: Any) -> object:
    return arena_selectors.arena_get(arena_id=arena_id)


def _puzzle(puzzle_id: str, **_: Any) -> object:
    return puzzle_services.puzzle_get(puzzle_id)


def _player(username: str, **_: Any) -> object:
    return selectors.user_get(username=username)


def _solo_board(level: str, board: str, **_: Any) -> object:
    return solo_boards.board_spec(level=level, board=board, period=None, sort=None)


def _race_board(level: str, **_: Any) -> object:
    return race_board.race_board(level=level, players=None)  # a queryset, not evaluated


def _daily_board(level: str, **_: Any) -> object:
    return daily_services.check_level(level)


def _daily_segment(segment: str, **_: Any) -> object:
    """`daily/{segment}` names a level (POST) or a day (GET): anything else names nothing."""
    if segment in daily_services.LEVELS:
        return segment
    return daily_api.day_segment(segment)


def _daily_day(day: str, **_: Any) -> object:
    return daily_api.day_segment(day)


def _unknown(lookups: tuple[Lookup, ...], kwargs: dict[str, Any]) -> DomainError | None:
    """The 404 refusal of the first segment that names nothing, or None when all are real."""
    for lookup in lookups:
        try:
            lookup(**kwargs)
        except DomainError as exc:
            if status_for(exc.code) == 404:
                return exc
            raise
    return None


def known(view_class: Any, *lookups: Lookup, **initkwargs: Any) -> Callable[..., HttpResponse]:
    """The view of a pattern whose segments `lookups` check (see the module's docstring);
    `initkwargs` set the view's attributes, as `as_view` does."""
    view = view_class.as_view(**initkwargs)

    @functools.wraps(view)  # keeps `cls`, `initkwargs` and `csrf_exempt` for DRF and the schema
    def door(request: HttpRequest, **kwargs: Any) -> HttpResponse:
        response: HttpResponse = view(request, **kwargs)
        described = request.method == "OPTIONS" and response.status_code < 300
        if described or response.status_code in _BEFORE_LOOKUP:
            unknown = _unknown(lookups, kwargs)
            if unknown is not None:
                body = error_body(unknown.code, unknown.message, unknown.details)
                return JsonResponse(body, status=404)
        return response

    return csrf_exempt(door)


# The `games/{id}/{segment}` doors, each named `api-{segment}`.
GAME_SEGMENT_VIEWS = {
    "reveal": game_api.RevealView,
    "flag": game_api.FlagView,
    "chord": game_api.ChordView,
    "pause": game_api.PauseView,
    "resume": game_api.ResumeView,
    "resign": game_api.ResignView,
    "moves": game_api.MoveListView,
}

# The `arenas/{id}/{segment}` doors, each named `api-arena-{segment}`: the actions (POST) and
# the standings (GET).
ARENA_SEGMENT_VIEWS = {**arena_api.ACTION_VIEWS, "standings": arena_api.StandingsView}

games = [
    re_path(r"^games/?$", game_api.GameListView.as_view(), name="api-games"),
    re_path(rf"^games/{GAME}/?$", known(game_api.GameDetailView, _game), name="api-game"),
    *(
        re_path(rf"^games/{GAME}/{segment}/?$", known(view, _game), name=f"api-{segment}")
        for segment, view in GAME_SEGMENT_VIEWS.items()
    ),
    re_path(
        rf"^games/{GAME}/replay\.evf/?$",
        known(game_api.ReplayEvfView, _game),
        name="api-game-replay-evf",
    ),
    re_path(
        rf"^games/{GAME}/probabilities/?$",
        known(overlays.ProbabilitiesView, _game),
        name="api-game-probabilities",
    ),
    re_path(r"^me/?$", game_api.MeView.as_view(), name="api-me"),
    re_path(rf"^users/{USER}/?$", known(game_api.UserProfileView, _player), name="api-user"),
    re_path(rf"^users/{USER}/luck/?$", known(game_api.UserLuckView, _player), name="api-user-luck"),
    re_path(
        rf"^users/{USER}/insights/?$",
        known(game_api.UserInsightsView, _player),
        name="api-user-insights",
    ),
    re_path(
        rf"^users/{USER}/games/export/?$",
        known(export.GamesExportView, _player),
        name="api-user-games-export",
    ),
]

races = [
    re_path(r"^races/?$", race_api.RaceListView.as_view(), name="api-races"),
    re_path(r"^races/queue/?$", race_api.QueueView.as_view(), name="api-race-queue"),
    re_path(rf"^races/{RACE}/?$", known(race_api.RaceDetailView, _race), name="api-race"),
    *(
        re_path(rf"^races/{RACE}/{action}/?$", known(view, _race), name=f"api-race-{action}")
        for action, view in race_api.ACTION_VIEWS.items()
    ),
    # A player's races, with their arenas (arenas sit above races: given here).
    re_path(
        rf"^users/{USER}/races/?$",
        known(
            race_api.PlayerRacesView,
            _player,
            sections={"arenas": arena_selectors.arena_profile},
        ),
    ),
    re_path(rf"^leaderboards/{LEVEL}/races/?$", known(board_api.RaceBoardView, _race_board)),
]

arenas = [
    re_path(r"^arenas/?$", arena_api.ArenaListView.as_view(), name="api-arenas"),
    re_path(rf"^arenas/{ARENA}/?$", known(arena_api.ArenaDetailView, _arena), name="api-arena"),
    *(
        re_path(rf"^arenas/{ARENA}/{segment}/?$", known(view, _arena), name=f"api-arena-{segment}")
        for segment, view in ARENA_SEGMENT_VIEWS.items()
    ),
]

# The daily challenge (API.md, Daily challenge). `daily/{segment}`: GET a day, POST a level.
daily = [
    re_path(r"^daily/?$", daily_api.DailyTodayView.as_view(), name="api-daily"),
    re_path(
        r"^daily/(?P<segment>[^/]{1,32})/?$",
        known(daily_api.DailyDayView, _daily_segment),
        name="api-daily-day",
    ),
    re_path(
        r"^daily/(?P<day>[^/]{1,32})/(?P<level>[^/]{1,32})/?$",
        known(daily_api.DailyPracticeView, _daily_day, _daily_board),
        name="api-daily-practice",
    ),
    re_path(
        rf"^leaderboards/{LEVEL}/daily/?$",
        known(daily_api.DailyBoardView, _daily_board),
        name="api-leaderboard-daily",
    ),
    re_path(
        rf"^users/{USER}/daily/?$",
        known(daily_api.PlayerDailyView, _player),
        name="api-user-daily",
    ),
]

# Puzzles (API.md, Puzzles; docs/PUZZLES.md): the named paths first, then `puzzles/{id}`.
# The named paths of puzzles, then the actions on one puzzle; and the puzzles' boards, by the
# part of the path after `leaderboards/puzzles` ("" for the ratings' board).
PUZZLE_PATHS = {
    "next": puzzle_api.PuzzleNextView,
    "daily": puzzle_api.PuzzleDailyView,
    "dashboard": puzzle_api.PuzzleDashboardView,
    "streak": puzzle_api.StreakView,
    "storm": puzzle_api.StormView,
}
PUZZLE_ACTIONS = {"open": puzzle_api.PuzzleOpenView, "retry": puzzle_api.PuzzleRetryView}
PUZZLE_BOARDS = {
    "": puzzle_api.PuzzleBoardView,
    "streak": puzzle_api.PuzzleStreakBoardView,
    "storm": puzzle_api.PuzzleStormBoardView,
}
puzzles = [
    *(
        re_path(rf"^puzzles/{name}/?$", view.as_view(), name=f"api-puzzle-{name}")
        for name, view in PUZZLE_PATHS.items()
    ),
    re_path(
        rf"^puzzles/{PUZZLE}/?$", known(puzzle_api.PuzzleDetailView, _puzzle), name="api-puzzle"
    ),
    *(
        re_path(
            rf"^puzzles/{PUZZLE}/{action}/?$", known(view, _puzzle), name=f"api-puzzle-{action}"
        )
        for action, view in PUZZLE_ACTIONS.items()
    ),
    *(
        re_path(
            rf"^leaderboards/puzzles{'/' if board else ''}{board}/?$",
            view.as_view(),
            name="api-leaderboard-puzzles" + (f"-{board}" if board else ""),
        )
        for board, view in PUZZLE_BOARDS.items()
    ),
]

leaderboards = [
    re_path(
        rf"^leaderboards/{LEVEL}/(?P<board>[^/]{{1,32}})/?$",
        known(board_api.LeaderboardView, _solo_board),
        name="api-leaderboard",
    ),
]

urlpatterns = [*games, *races, *arenas, *daily, *puzzles, *leaderboards]
