"""Page views. They render a template and nothing else: every page reads and writes data
through the public API and the WebSockets from the browser (docs/FRONTEND.md), so a page
view never touches a model. The game, replay and race pages read the public answer (the API's
selectors and presenters, as an anonymous viewer) for a shared link's card and picture
(docs/FRONTEND.md, Links people share). One asks a question first: a player's profile looks the name up
(games.play.selectors.user_get, the API's own rule) so that a name nobody has is a real 404
page, not a page of empty tables. ensure_csrf_cookie makes sure the page's scripts can send
the CSRF token that session-authenticated API calls need.

What the server decides and the scripts need to know (level sizes, the custom board's bounds,
the race countdown, an arena's length and its pairing stop, the settings' defaults and
ranges, the largest page) is built here once
(`site_constants`) and rendered into every page as a JSON data block by the `site_constants`
template tag (base.html), so the scripts keep no copy of it (docs/FRONTEND.md, Constants)."""

from __future__ import annotations

import re
from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.formats import number_format
from django.utils.translation import gettext_lazy as _
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.http import require_safe
from rest_framework.fields import ChoiceField, IntegerField

from accounts.serializers import SettingsSerializer
from accounts.services import SETTINGS_DEFAULTS
from demineur_site.pagination import Pagination
from frontend import api_reference as reference
from games.arenas import rules as arena_rules
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
# The puzzles' themes (RULES.md, Puzzles: the reasoning a puzzle needs), as the pages say them;
# the themes themselves, easiest first, are games.puzzles.positions.THEMES.
PUZZLE_THEME_LABELS = {
    "single": _("One number"),
    "subset": _("One number inside another (1-1, 1-2)"),
    "pattern": _("Patterns (1-2-1, 1-2-2-1)"),
    "chain": _("A chain of steps"),
    "mines_left": _("Mines left"),
}


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


def _puzzle_constants() -> dict[str, Any]:
    """The puzzles' themes (name and label, easiest first) and the storm's clock: three
    minutes, less a penalty per failed puzzle (games.puzzles.rules; docs/PUZZLES.md)."""
    from games.puzzles import rules as puzzle_rules
    from games.puzzles.positions import THEMES

    return {
        "themes": [{"name": t, "label": PUZZLE_THEME_LABELS.get(t, t)} for t in THEMES],
        "storm_ms": int(puzzle_rules.STORM_DURATION.total_seconds() * 1000),
        "storm_penalty_ms": int(puzzle_rules.STORM_PENALTY.total_seconds() * 1000),
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
        "arena": {
            "min_minutes": arena_rules.MIN_MINUTES,
            "max_minutes": arena_rules.MAX_MINUTES,
            "pairing_stop_ms": arena_rules.PAIRING_STOP_MS,
        },
        "settings": _settings_bounds(),
        "max_page_size": Pagination.max_page_size,
        "modes": MODE_LABELS,
        "puzzles": _puzzle_constants(),
    }


# A game (or race) id in a page URL: only checked for shape here; the API answers 404 for unknown ids.
GAME_ID = re.compile(r"^[0-9a-fA-F-]{32,36}$")


def _page(request: HttpRequest, template: str, **context: Any) -> HttpResponse:
    context.setdefault("levels", LEVELS)
    context.setdefault("site", site_constants())  # the same values the scripts read
    return render(request, f"frontend/{template}", context)


def _game_page(request: HttpRequest, game_id: str, *, replay: bool) -> HttpResponse:
    """The game page or its replay, with the game's card for a shared link."""
    if not GAME_ID.match(game_id):
        raise Http404
    game = _public_game(game_id)
    share = _game_card(request, game, replay=replay) if game else None
    page = "replay" if replay else "game"
    return _page(request, f"{page}.html", page=page, game_id=game_id, share=share)


@ensure_csrf_cookie
def game(request: HttpRequest, game_id: str) -> HttpResponse:
    """Play (the player, while the game runs) or watch (anyone else, or after the end)."""
    return _game_page(request, game_id, replay=False)


@ensure_csrf_cookie
def replay(request: HttpRequest, game_id: str) -> HttpResponse:
    return _game_page(request, game_id, replay=True)


@ensure_csrf_cookie
def race(request: HttpRequest, race_id: str) -> HttpResponse:
    """One race: the room before the start, the countdown, the racer's own board and every
    rival's progress while it runs, the results at the end (API.md, Races)."""
    if not GAME_ID.match(race_id):
        raise Http404
    race = _public_race(race_id)
    share = _race_card(request, race) if race else None
    return _page(request, "race.html", page="race", race_id=race_id, share=share)


@ensure_csrf_cookie
def races(request: HttpRequest) -> HttpResponse:
    """The race lobby; a new race's "players at most" is picked among the sizes a race may have."""
    sizes = range(race_rules.MIN_RACERS, race_rules.MAX_RACERS + 1)
    return _page(request, "races.html", page="races", race_sizes=list(sizes))


def _arena_points() -> dict[str, int]:
    """The points of a race as the arena page's rules say them, from the rules themselves
    (docs/ARENAS.md, Points): a small race (two to four racers) and a big one."""
    result = arena_rules.RaceResult
    big = arena_rules.BIG_RACE
    return {
        "win": arena_rules.base_points(result(1, 2, True)),
        "win_big": arena_rules.base_points(result(1, big, True)),
        "top": arena_rules.base_points(result(2, 4, True)),
        "top_big": arena_rules.base_points(result(2, 2 * big, True)),
        "big": big,
        "stop_s": arena_rules.PAIRING_STOP_MS // 1000,
    }


# A private arena's code as a player types it into a link (games.races.rules.normalize_code).
ARENA_CODE = re.compile(r"^[A-Za-z0-9-]{4,12}$")


@ensure_csrf_cookie
def arena(request: HttpRequest, arena_id: str) -> HttpResponse:
    """One arena: the countdown, join and leave, the player's race, the live standings and the
    podium (docs/ARENAS.md, The site). `/arenas/<code>` is a private arena's short link: the
    code is looked up as `GET /api/arenas?code=` does and answered with the arena's own
    address; an unknown id or code is the site's 404 page."""
    if GAME_ID.match(arena_id):
        return _page(request, "arena.html", page="arena", arena_id=arena_id, points=_arena_points())
    if ARENA_CODE.match(arena_id):
        from django.shortcuts import redirect

        from games.arenas import selectors as arena_selectors

        found = arena_selectors.arena_list(state=None, level=None, code=arena_id).first()
        if found is not None:
            return redirect("arena", arena_id=str(found.pk))
    context = {
        "heading": _("No such arena"),
        "text": _("No arena has this address or code. It may be mistyped."),
    }
    return render(request, "404.html", context, status=404)


@ensure_csrf_cookie
def leaderboards(request: HttpRequest, level: str = "beginner") -> HttpResponse:
    if level not in LEVEL_NAMES:
        raise Http404
    return _page(request, "leaderboards.html", page="leaderboards", level=level)


def _no_such_player(request: HttpRequest) -> HttpResponse:
    """The 404 page of a name no active account has: a player's profile and insights."""
    context = {
        "heading": _("No such player"),
        "text": _("Nobody plays under this name. It may be mistyped, or the account is gone."),
    }
    return render(request, "404.html", context, status=404)


def _player_page(request: HttpRequest, username: str) -> str:
    """The navigation's current page on a player's pages: "My profile" only on the visitor's
    own (a walk through the site found it lit everywhere), else the other players' entry."""
    own = request.user.is_authenticated and request.user.get_username() == username
    return "profile" if own else "player"


@ensure_csrf_cookie
def profile(request: HttpRequest, username: str) -> HttpResponse:
    try:
        # the API's rule: an active account of exactly this name
        player = user_get(username=username)
    except GameError:
        return _no_such_player(request)
    share = _profile_card(request, player)
    return _page(
        request,
        "profile.html",
        page=_player_page(request, username),
        username=username,
        share=share,
    )


def insights(request: HttpRequest, username: str) -> HttpResponse:
    """A player's insights (docs/STATS.md, Insights): charts drawn in the browser from
    GET /api/users/{name}/insights. Shown wherever the profile is, the same 404 elsewhere."""
    try:
        user_get(username=username)
    except GameError:
        return _no_such_player(request)
    return _page(request, "insights.html", page=_player_page(request, username), username=username)


@ensure_csrf_cookie
def daily(request: HttpRequest, day: str | None = None) -> HttpResponse:
    """The daily challenge of one day (docs/FRONTEND.md, The daily pages): `/daily` is today,
    `/daily/YYYY-MM-DD` any day up to today. The day's six levels, the viewer's games, the
    day's boards come from the API in the browser; a day after today, or a date that is no
    date, is the site's 404 page (the API says which past days had a daily)."""
    from datetime import timedelta

    from django.utils import timezone

    from games.daily import rules as daily_rules

    today = daily_rules.day_of(timezone.now())
    shown = today
    if day is not None:
        parsed = daily_rules.parse_day(day)
        if parsed is None or parsed > today:
            context = {
                "heading": _("No daily on this day"),
                "text": _("A daily is dealt for each day at 00:00 UTC: this day has not come yet."),
            }
            return render(request, "404.html", context, status=404)
        shown = parsed
    before, after = shown - timedelta(days=1), shown + timedelta(days=1)
    return _page(
        request,
        "daily.html",
        page="daily",
        day="" if day is None else shown.isoformat(),
        shown=shown,
        today=today.isoformat(),
        previous_day=before.isoformat(),
        next_day=None if after > today else ("" if after == today else after.isoformat()),
    )


# --- Puzzles (RULES.md and API.md, Puzzles; docs/FRONTEND.md, The puzzle pages) ---------------
# The training page, the puzzle of the day and one puzzle are one page (puzzle.html, puzzle.js)
# that reads its puzzle from `GET /api/puzzles/next`, `/daily` or `/{id}`; the streak and the
# storm share puzzle_run.html; the dashboard has its own. What they show comes from the API.


@ensure_csrf_cookie
def puzzles(request: HttpRequest) -> HttpResponse:
    """The training page: a rated puzzle near the player's puzzle rating, a theme to filter by."""
    theme = request.GET.get("theme", "")
    return _page(
        request, "puzzle.html", page="puzzles", puzzle_page="training", mode="next", theme=theme
    )


@ensure_csrf_cookie
def puzzle_daily(request: HttpRequest) -> HttpResponse:
    return _page(request, "puzzle.html", page="puzzles", puzzle_page="daily", mode="daily")


@ensure_csrf_cookie
def puzzle(request: HttpRequest, puzzle_id: str) -> HttpResponse:
    """One puzzle by its id (a link shared, a storm's puzzle looked at again). An id that is no
    puzzle's is the site's 404 page, looked up as the API looks it up."""
    from games.puzzles.services import puzzle_get

    try:
        puzzle_get(puzzle_id)
    except GameError:
        context = {
            "heading": _("No such puzzle"),
            "text": _("No puzzle has this address. It may be mistyped."),
        }
        return render(request, "404.html", context, status=404)
    return _page(
        request, "puzzle.html", page="puzzles", puzzle_page="one", mode="one", puzzle_id=puzzle_id
    )


def _puzzle_run_page(kind: str) -> Any:
    """The streak's or the storm's page (puzzle_run.html, puzzle_run.js)."""

    @ensure_csrf_cookie
    def view(request: HttpRequest) -> HttpResponse:
        storm = _puzzle_constants()
        return _page(
            request,
            "puzzle_run.html",
            page="puzzles",
            puzzle_page=kind,
            kind=kind,
            storm_minutes=storm["storm_ms"] // 60000,
            storm_penalty_s=storm["storm_penalty_ms"] // 1000,
        )

    view.__name__ = f"puzzle_{kind}"
    return view


puzzle_streak = _puzzle_run_page("streak")
puzzle_storm = _puzzle_run_page("storm")


@ensure_csrf_cookie
def puzzle_dashboard(request: HttpRequest) -> HttpResponse:
    """The player's puzzle rating, per theme, over time, and the puzzle boards."""
    return _page(request, "puzzle_dashboard.html", page="puzzles", puzzle_page="dashboard")


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
# The arenas (docs/ARENAS.md, The site): the lists and the form to create one.
arenas = _simple_page("arenas.html", "arenas")
how_to_play = _simple_page("how_to_play.html", "how")
settings_page = _simple_page("settings.html", "settings")

# The account's lifecycle (docs/ACCOUNTS.md): the account page and the mailed links' pages.
account = _simple_page("account.html", "account")
verify_email = _simple_page("verify_email.html", "verify-email")
reset_password = _simple_page("reset_password.html", "reset-password")


# --- Links people share and the installed app (docs/FRONTEND.md, Links people share) ---------
# The pictures and the cards' text come from the API's own public answers (an anonymous
# viewer's Game, the Race), never from a layout: a running game shows no closed cell.

LONG_CACHE = "public, max-age=86400"  # an ended game or race no longer changes
SHORT_CACHE = "public, max-age=30"  # a running one: a link shared now shows it nearly now


def _public_game(game_id: str) -> dict[str, Any] | None:
    from games.play import selectors as play_selectors
    from games.play.presenters import game_dict

    try:
        game = play_selectors.game_get(game_id=game_id)
    except GameError:
        return None
    return game_dict(game, player_name=game.player.username, viewer_id=None)


def _public_race(race_id: str) -> dict[str, Any] | None:
    from games.races import selectors as race_selectors
    from games.races.presenters import race_dict

    try:
        race = race_selectors.race_get(race_id=race_id)
    except GameError:
        return None
    return race_dict(race, race_selectors.racers_by_race([race])[race.pk])


def _not_found(request: HttpRequest) -> HttpResponse:
    return render(request, "404.html", {}, status=404)


def _png(body: bytes, *, ended: bool) -> HttpResponse:
    response = HttpResponse(body, content_type="image/png")
    response["Cache-Control"] = LONG_CACHE if ended else SHORT_CACHE
    return response


def _level_label(level: str) -> str:
    return str(LEVEL_LABELS.get(level, CUSTOM_LABEL))


def _game_card(request: HttpRequest, game: dict[str, Any], *, replay: bool) -> dict[str, Any]:
    from django.urls import reverse

    size = f"{game['width']} \u00d7 {game['height']}, {game['mines']}"
    facts = {"level": _level_label(game["level"]), "player": game["player"], "size": size}
    if game["state"] == "won":
        # In the visitor's language's format: "64,8 s" in French, as the pages write it.
        seconds = number_format(game["elapsed_ms"] / 1000, decimal_pos=1, use_l10n=True)
        text = _("%(player)s won a %(level)s game (%(size)s mines) in %(seconds)s s.") % {
            **facts,
            "seconds": seconds,
        }
    elif game["state"] == "lost":
        text = _("%(player)s lost a %(level)s game (%(size)s mines).") % facts
    else:
        text = _("%(player)s is playing a %(level)s game (%(size)s mines). Watch it live.") % facts
    title = _("Replay: %(level)s by %(player)s") if replay else _("%(level)s by %(player)s")
    image = reverse("game-preview", args=[game["id"]])
    return {
        "title": title % facts,
        "text": text,
        "image": request.build_absolute_uri(image),
        "image_alt": _("The board of the game"),
        "url": request.build_absolute_uri(request.path),
    }


def _profile_card(request: HttpRequest, player: Any) -> dict[str, Any]:
    """A profile's card: the name and how long they have played (public on the page too), with
    the site's icon, as a profile has no picture of its own."""
    from django.urls import reverse
    from django.utils.formats import date_format

    facts = {"player": player.get_username(), "date": date_format(player.date_joined)}
    text = _(
        "%(player)s has played Minesweeper on Démineur since %(date)s: best times, statistics, "
        "races and dailies."
    )
    return {
        "title": _("%(player)s, Minesweeper player") % facts,
        "text": text % facts,
        "type": "profile",
        "image": request.build_absolute_uri(reverse("app-icon", args=[512])),
        "image_size": 512,
        "image_alt": _("The Démineur icon: a mine"),
        "url": request.build_absolute_uri(request.path),
    }


def _race_card(request: HttpRequest, race: dict[str, Any]) -> dict[str, Any]:
    from django.urls import reverse

    facts = {"level": _level_label(race["level"]), "racers": len(race["racers"])}
    if race["state"] == "finished":
        podium = [r["player"] for r in race["racers"] if r.get("place")][:3]
        text = _("Podium: %(names)s.") % {"names": ", ".join(podium)} if podium else ""
        alt = _("The race's podium")
    else:
        text = _("Racers: %(racers)s.") % facts
        alt = _("Each racer's progress")
    image = reverse("race-preview", args=[race["id"]])
    return {
        "title": _("A %(level)s race") % facts,
        "text": text,
        "image": request.build_absolute_uri(image),
        "image_alt": alt,
        "url": request.build_absolute_uri(request.path),
    }


def game_preview(request: HttpRequest, game_id: str) -> HttpResponse:
    """The picture of a shared game (and its replay): the board as anyone may see it now."""
    from frontend.previews import board_picture

    game = _public_game(game_id) if GAME_ID.match(game_id) else None
    if game is None:
        return _not_found(request)
    ended = game["state"] in ("won", "lost") and game["board"] is not None
    return _png(board_picture(game), ended=ended)


def race_preview(request: HttpRequest, race_id: str) -> HttpResponse:
    """The picture of a shared race: the podium at the end, the racers' progress before."""
    from frontend.previews import race_picture

    race = _public_race(race_id) if GAME_ID.match(race_id) else None
    if race is None:
        return _not_found(request)
    return _png(race_picture(race), ended=race["state"] == "finished")


ICON_SIZES = (192, 512)


def app_icon(request: HttpRequest, size: int) -> HttpResponse:
    from frontend.previews import icon

    if size not in ICON_SIZES:
        return _not_found(request)
    return _png(icon(size), ended=True)


def manifest(request: HttpRequest) -> HttpResponse:
    """The web app manifest: the site installs as an app (docs/FRONTEND.md)."""
    import json

    from django.urls import reverse

    body = {
        "name": "Démineur",
        "short_name": "Démineur",
        "description": str(_("Minesweeper against the clock, alone or in races.")),
        "start_url": "/",
        "scope": "/",
        "display": "standalone",
        "background_color": "#1d3557",
        "theme_color": "#1d3557",
        "icons": [
            {
                "src": reverse("app-icon", args=[size]),
                "sizes": f"{size}x{size}",
                "type": "image/png",
                "purpose": "any",
            }
            for size in ICON_SIZES
        ],
    }
    response = HttpResponse(json.dumps(body), content_type="application/manifest+json")
    response["Cache-Control"] = "public, max-age=3600"
    return response


def service_worker(request: HttpRequest) -> HttpResponse:
    """The service worker, at the root so that its scope is the whole site; never cached by
    HTTP so that a new version reaches browsers at once."""
    response = render(
        request,
        "frontend/sw.js",
        {"offline_url": "/offline"},
        content_type="text/javascript",
    )
    response["Cache-Control"] = "no-cache"
    return response


def offline(request: HttpRequest) -> HttpResponse:
    """The page the service worker shows when a page cannot be fetched."""
    return render(request, "frontend/offline.html")


# --- The API reference (docs/FRONTEND.md, The API reference) --------------------------------


@require_safe
def api_reference(request: HttpRequest, name: str = "") -> HttpResponse:
    """`/reference/`: the list of the contract's and docs/'s pages; `/reference/<name>`: one of
    them rendered from the repository's Markdown (frontend.api_reference)."""
    if not name:
        return _page(request, "api_reference.html", page="reference", pages=reference.index())
    found = reference.render(name)
    if found is None:
        raise Http404
    title, html = found
    return _page(request, "api_reference.html", page="reference", title=title, html=html)
