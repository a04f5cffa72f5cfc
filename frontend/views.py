"""Page views. They render a template and nothing else: every page reads and writes data
through the public API and the WebSockets from the browser (docs/FRONTEND.md), so a page
view never touches a model. ensure_csrf_cookie makes sure the page's scripts can send the
CSRF token that session-authenticated API calls need."""

from __future__ import annotations

import re
from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext_lazy as _
from django.views.decorators.csrf import ensure_csrf_cookie

from games.engine import LEVELS as ENGINE_LEVELS

# The names shown on the pages; the levels themselves are the engine's (games.engine.LEVELS).
LEVEL_LABELS = {
    "beginner": _("Beginner"),
    "intermediate": _("Intermediate"),
    "hard": _("Hard"),
    "expert": _("Expert"),
    "extreme": _("Extreme"),
    "marathon": _("Marathon"),
}
LEVELS: list[dict[str, Any]] = [
    {
        "name": level.name,
        "label": LEVEL_LABELS[level.name],
        "width": level.width,
        "height": level.height,
        "mines": level.mines,
    }
    for level in ENGINE_LEVELS.values()
]
LEVEL_NAMES = {level["name"] for level in LEVELS}
# A game (or race) id in a page URL: only checked for shape here; the API answers 404 for unknown ids.
GAME_ID = re.compile(r"^[0-9a-fA-F-]{32,36}$")


def _page(request: HttpRequest, template: str, **context: Any) -> HttpResponse:
    context.setdefault("levels", LEVELS)
    return render(request, f"frontend/{template}", context)


@ensure_csrf_cookie
def game(request: HttpRequest, game_id: str) -> HttpResponse:
    """Play (the player, while the game runs) or watch (anyone else, or after the end)."""
    if not GAME_ID.match(game_id):
        raise Http404
    return _page(request, "game.html", page="game", game_id=game_id)


@ensure_csrf_cookie
def replay(request: HttpRequest, game_id: str) -> HttpResponse:
    if not GAME_ID.match(game_id):
        raise Http404
    return _page(request, "replay.html", page="replay", game_id=game_id)


@ensure_csrf_cookie
def race(request: HttpRequest, race_id: str) -> HttpResponse:
    """One race: the room before the start, the countdown, the racer's own board and every
    rival's progress while it runs, the results at the end (API.md, Races)."""
    if not GAME_ID.match(race_id):
        raise Http404
    return _page(request, "race.html", page="race", race_id=race_id)


@ensure_csrf_cookie
def leaderboards(request: HttpRequest, level: str = "beginner") -> HttpResponse:
    if level not in LEVEL_NAMES:
        raise Http404
    return _page(request, "leaderboards.html", page="leaderboards", level=level)


@ensure_csrf_cookie
def profile(request: HttpRequest, username: str) -> HttpResponse:
    # "My profile" is the current page only on the visitor's own profile (issue 11's walk).
    own = request.user.is_authenticated and request.user.get_username() == username
    return _page(request, "profile.html", page="profile" if own else "player", username=username)


def _simple_page(template: str, page: str) -> Any:
    """A page that needs nothing but its template (its script reads the API)."""

    @ensure_csrf_cookie
    def view(request: HttpRequest) -> HttpResponse:
        return _page(request, template, page=page)

    view.__name__ = page
    return view


signup = _simple_page("signup.html", "signup")
signin = _simple_page("signin.html", "signin")
tokens = _simple_page("tokens.html", "tokens")
home = _simple_page("home.html", "home")
races = _simple_page("races.html", "races")
how_to_play = _simple_page("how_to_play.html", "how")
settings_page = _simple_page("settings.html", "settings")
