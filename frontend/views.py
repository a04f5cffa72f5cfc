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

# The six ranked levels of RULES.md, in order, with the names shown on the pages.
LEVELS: list[dict[str, Any]] = [
    {"name": "beginner", "label": _("Beginner"), "width": 9, "height": 9, "mines": 10},
    {"name": "intermediate", "label": _("Intermediate"), "width": 16, "height": 10, "mines": 25},
    {"name": "hard", "label": _("Hard"), "width": 20, "height": 12, "mines": 40},
    {"name": "expert", "label": _("Expert"), "width": 30, "height": 16, "mines": 60},
    {"name": "extreme", "label": _("Extreme"), "width": 40, "height": 20, "mines": 60},
    {"name": "marathon", "label": _("Marathon"), "width": 80, "height": 40, "mines": 240},
]
LEVEL_NAMES = {level["name"] for level in LEVELS}
# A game id in a page URL: only checked for shape here; the API answers 404 for unknown ids.
GAME_ID = re.compile(r"^[0-9a-fA-F-]{32,36}$")


def _page(request: HttpRequest, template: str, **context: Any) -> HttpResponse:
    context.setdefault("levels", LEVELS)
    return render(request, f"frontend/{template}", context)


@ensure_csrf_cookie
def home(request: HttpRequest) -> HttpResponse:
    return _page(request, "home.html", page="home")


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
def leaderboards(request: HttpRequest, level: str = "beginner") -> HttpResponse:
    if level not in LEVEL_NAMES:
        raise Http404
    return _page(request, "leaderboards.html", page="leaderboards", level=level)


@ensure_csrf_cookie
def profile(request: HttpRequest, username: str) -> HttpResponse:
    return _page(request, "profile.html", page="profile", username=username)


@ensure_csrf_cookie
def signup(request: HttpRequest) -> HttpResponse:
    return _page(request, "signup.html", page="signup")


@ensure_csrf_cookie
def signin(request: HttpRequest) -> HttpResponse:
    return _page(request, "signin.html", page="signin")


@ensure_csrf_cookie
def tokens(request: HttpRequest) -> HttpResponse:
    return _page(request, "tokens.html", page="tokens")


@ensure_csrf_cookie
def how_to_play(request: HttpRequest) -> HttpResponse:
    return _page(request, "how_to_play.html", page="how")
