"""Page views. They render a template and nothing else: every page reads and writes data
through the public API and the WebSockets from the browser (docs/FRONTEND.md), so a page
view never touches a model. One asks a question first: a player's profile looks the name up
(games.play.selectors.user_get, the API's own rule) so that a name nobody has is a real 404
page, not a page of empty tables. ensure_csrf_cookie makes sure the page's scripts can send
the CSRF token that session-authenticated API calls need.

What the server decides and the scripts need to know (level sizes, the custom board's bounds,
the race countdown, the settings' defaults and ranges, the largest page) is built here once
(`site_constants`) and rendered into every page as a JSON data block by the `site_constants`
template tag (base.html), so the scripts keep no copy of it (docs/FRONTEND.md, Constants)."""

from __future__ import annotations

import re
from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext_lazy as _
from django.views.decorators.csrf import ensure_csrf_cookie
from rest_framework.fields import ChoiceField, IntegerField

from accounts.serializers import SettingsSerializer
from accounts.services import SETTINGS_DEFAULTS
from demineur_site.pagination import Pagination
from games.engine import CUSTOM_MAX_SIDE, CUSTOM_MIN_SIDE, custom_mines_max
from games.engine import LEVELS as ENGINE_LEVELS
from games.errors import GameError
from games.play.selectors import user_get
from games.races import rules as race_rules

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
CUSTOM_LABEL = _("Custom")
# The two modes of a game, a race and a board (RULES.md, No-guess boards), as the pages say them.
MODE_LABELS = {"classic": _("classic"), "no_guess": _("no guess")}


def _settings_bounds() -> dict[str, Any]:
    """The ranges the account's settings accept (accounts.serializers.SettingsSerializer),
    which this browser's own copy of the settings keeps too."""
    fields = SettingsSerializer().fields
    press, theme = fields["long_press_ms"], fields["theme"]
    assert isinstance(press, IntegerField) and isinstance(theme, ChoiceField)
    return {
        "defaults": dict(SETTINGS_DEFAULTS),
        "long_press_ms": {"min": press.min_value, "max": press.max_value},
        "themes": list(theme.choices),
    }


def site_constants() -> dict[str, Any]:
    """Every server constant a page's script reads (frontend/static/frontend/js/constants.js).
    The labels are lazy: they are said in the language of the page that renders them."""
    side = CUSTOM_MIN_SIDE
    return {
        "levels": LEVELS,
        "custom": {
            "label": CUSTOM_LABEL,
            "min_side": CUSTOM_MIN_SIDE,
            "max_side": CUSTOM_MAX_SIDE,
            # the cells a board keeps free of mines (the first tap's 3 x 3): at most
            # width x height - kept_free mines (games.engine.custom_mines_max)
            "kept_free": side * side - custom_mines_max(side, side),
        },
        "race": {
            "countdown_ms": race_rules.COUNTDOWN_MS,
            "min_racers": race_rules.MIN_RACERS,
            "max_racers": race_rules.MAX_RACERS,
        },
        "settings": _settings_bounds(),
        "max_page_size": Pagination.max_page_size,
        "modes": MODE_LABELS,
    }


# A game (or race) id in a page URL: only checked for shape here; the API answers 404 for unknown ids.
GAME_ID = re.compile(r"^[0-9a-fA-F-]{32,36}$")


def _page(request: HttpRequest, template: str, **context: Any) -> HttpResponse:
    context.setdefault("levels", LEVELS)
    context.setdefault("site", site_constants())  # the same values the scripts read
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
def races(request: HttpRequest) -> HttpResponse:
    """The race lobby; a new race's "players at most" is picked among the sizes a race may have."""
    sizes = range(race_rules.MIN_RACERS, race_rules.MAX_RACERS + 1)
    return _page(request, "races.html", page="races", race_sizes=list(sizes))


@ensure_csrf_cookie
def leaderboards(request: HttpRequest, level: str = "beginner") -> HttpResponse:
    if level not in LEVEL_NAMES:
        raise Http404
    return _page(request, "leaderboards.html", page="leaderboards", level=level)


@ensure_csrf_cookie
def profile(request: HttpRequest, username: str) -> HttpResponse:
    try:
        user_get(username=username)  # the API's rule: an active account of exactly this name
    except GameError:
        context = {
            "heading": _("No such player"),
            "text": _("Nobody plays under this name. It may be mistyped, or the account is gone."),
        }
        return render(request, "404.html", context, status=404)
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
how_to_play = _simple_page("how_to_play.html", "how")
settings_page = _simple_page("settings.html", "settings")
# The account's lifecycle (docs/ACCOUNTS.md): the account page and the mailed links' pages.
account = _simple_page("account.html", "account")
verify_email = _simple_page("verify_email.html", "verify-email")
reset_password = _simple_page("reset_password.html", "reset-password")
