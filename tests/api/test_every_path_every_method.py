"""API.md, Conventions and Fine points: an unknown path is 404 for every method, and a real
path refuses a method it does not answer with 405.

A path can be unknown in two ways: nothing matches it (demineur_site.api_errors.api_not_found),
or a URL pattern matches it but one of its segments names nothing -- a game, race or player
that does not exist, a level or board there is no leaderboard of. This walks every URL pattern
under /api/ that has segments, fills each segment in turn with something unknown (the others
real), and sends every method from three clients (anonymous, a token, a signed-in browser
that sends no CSRF token), with and without the trailing slash. It reads the URL patterns
themselves (hence here, not in the black-box tests/contract/): a pattern added later is
walked too."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, resolve
from rest_framework.test import APIClient

from accounts.models import ApiToken, SignedInSession, User
from games.play import selectors
from tests.support import puzzles
from tests.support.http import assert_error, start
from tests.support.personas import PASSWORD

pytestmark = pytest.mark.django_db

METHODS = ("get", "head", "post", "put", "patch", "delete", "options", "trace")
GROUP = re.compile(r"\(\?P<(\w+)>[^)]*\)")

# Segments whose answer depends on who asks: a token id names a token of the signed-in account
# only (accounts/urls.py); a wrong method there is 405 (or 401) whatever the id, which tells
# nobody whether another account's token exists.
OWNER_SCOPED = {"token_id", "session_id"}  # a session id too (GET /api/me/sessions)


def api_patterns() -> Iterator[tuple[str, Any]]:
    """(regex, view callback) of every endpoint under /api/, the include prefixes joined."""

    def walk(patterns: list[Any], prefix: str) -> Iterator[tuple[str, Any]]:
        for p in patterns:
            regex = prefix + p.pattern.regex.pattern.lstrip("^")
            if isinstance(p, URLResolver):
                yield from walk(p.url_patterns, regex)
            elif isinstance(p, URLPattern):
                yield regex, p.callback

    for regex, callback in walk(get_resolver().url_patterns, "^"):
        if regex.startswith("^api/") and GROUP.search(regex):
            yield regex, callback


def path_of(regex: str, values: dict[str, str]) -> str:
    path = GROUP.sub(lambda m: values[m.group(1)], regex)
    path = path.removeprefix("^").replace("/?$", "").replace("\\Z", "").rstrip("$")
    return "/" + path.replace("\\.", ".")  # replay\.evf


def answered(callback: Any) -> set[str]:
    """The methods the view has a handler for (HEAD with GET, as Django's View does)."""
    cls = callback.cls
    methods = {m for m in METHODS if m != "options" and hasattr(cls, m)}
    return methods | ({"head"} if "get" in methods else set())


@pytest.fixture
def real(alice: User, alice_api: APIClient) -> dict[str, str]:
    """A real value for every segment name the patterns use."""
    game = start(alice_api)
    race = alice_api.post("/api/races", {"level": "beginner"}, format="json").json()
    arena = alice_api.post("/api/arenas", {"level": "beginner", "minutes": 20}, format="json")
    assert arena.status_code == 201, arena.content
    token = ApiToken.objects.filter(user=alice).first()
    assert token is not None
    puzzle = puzzles.store(puzzles.SUBSET)
    return {
        "game_id": game["id"],
        "race_id": race["id"],
        "arena_id": arena.json()["id"],
        "username": "alice",
        "level": "beginner",
        "board": "times",
        "segment": "beginner",  # /api/daily/{segment}: a level (POST) or a day (GET)
        "day": "2026-01-01",
        "token_id": str(token.pk),
        "session_id": str(SignedInSession.objects.create(user=alice, session_key="s" * 32).pk),
        "puzzle_id": str(puzzle.id),
    }


UNKNOWN = {
    "game_id": ("nope", str(uuid.uuid4())),
    "race_id": ("nope", str(uuid.uuid4())),
    "arena_id": ("nope", str(uuid.uuid4())),
    "username": ("nobody-here",),
    "level": ("nope",),
    "board": ("nope",),
    "segment": ("nope",),
    "day": ("nope", "2026-13-01"),
    "token_id": ("999999999",),
    "session_id": ("999999999",),
    "puzzle_id": ("nope", str(uuid.uuid4())),
}


def _clients(alice: User, alice_api: APIClient) -> dict[str, Client]:
    browser = Client(enforce_csrf_checks=True)  # signed in, sends no CSRF token
    assert browser.login(username=alice.username, password=PASSWORD)
    return {"anonymous": APIClient(), "token": alice_api, "browser": browser}


def _send(client: Client, method: str, path: str) -> Any:
    if method in ("get", "head", "options", "trace"):
        return getattr(client, method)(path)
    return getattr(client, method)(path, data="{}", content_type="application/json")


def test_the_walk_covers_every_kind_of_segment(real: dict[str, str]) -> None:
    """A guard for the walker itself: every pattern's segments have values, and each path it
    builds from real values resolves back to the same view."""
    names: set[str] = set()
    for regex, callback in api_patterns():
        groups = set(GROUP.findall(regex))
        names |= groups
        assert groups <= set(real) and groups <= set(UNKNOWN), regex
        assert resolve(path_of(regex, real)).func is callback, regex
    assert names == set(real)


def _pattern_id(regex: str) -> str:
    return path_of(regex, {name: "{" + name + "}" for name in GROUP.findall(regex)})


# One test per pattern with a segment to make unknown (an owner-scoped one stays real, see
# OWNER_SCOPED): thousands of requests in all, spread over the suite's workers.
PATTERNS = [(r, view) for r, view in api_patterns() if set(GROUP.findall(r)) - OWNER_SCOPED]


@pytest.mark.parametrize(("regex", "callback"), PATTERNS, ids=[_pattern_id(r) for r, _ in PATTERNS])
def test_every_unknown_segment_of_every_pattern_is_404_for_every_method(
    regex: str, callback: Any, real: dict[str, str], alice: User, alice_api: APIClient
) -> None:
    clients = _clients(alice, alice_api)
    wrong: list[tuple[Any, ...]] = []
    for name in sorted(set(GROUP.findall(regex)) - OWNER_SCOPED):
        for unknown in UNKNOWN[name]:
            path = path_of(regex, {**real, name: unknown})
            assert resolve(path).func is callback, (regex, path)  # still this pattern
            cache.clear()  # the walk is many requests from one address: no 429 here
            for method in METHODS:
                for who, client in clients.items():
                    for slash in ("", "/"):
                        response = _send(client, method, path + slash)
                        code = response.status_code
                        if method != "head" and code == 404:
                            assert_error(response, 404, "not_found")
                        if code != 404:
                            wrong.append((method.upper(), path + slash, who, code))
    assert wrong == [], f"{len(wrong)} answers were not 404, e.g. {wrong[:8]}"


def test_a_real_path_refuses_a_method_it_does_not_answer_with_405(
    real: dict[str, str], alice_api: APIClient
) -> None:
    wrong: list[tuple[Any, ...]] = []
    for regex, callback in api_patterns():
        path = path_of(regex, real)
        cache.clear()
        for method in sorted(set(METHODS) - answered(callback) - {"options"}):
            for slash in ("", "/"):
                response = _send(alice_api, method, path + slash)
                if response.status_code != 405:
                    wrong.append((method.upper(), path + slash, response.status_code))
                elif method != "head":
                    assert_error(response, 405, "method_not_allowed")
    assert wrong == [], wrong


def test_options_on_a_real_path_still_describes_it(
    real: dict[str, str], alice_api: APIClient
) -> None:
    for regex, _callback in api_patterns():
        if set(GROUP.findall(regex)) & OWNER_SCOPED:
            continue
        assert alice_api.options(path_of(regex, real)).status_code == 200, regex


def test_the_segments_are_looked_up_only_when_the_view_refused_first(
    alice_api: APIClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An answered request pays nothing for the check: a move reads its game once, in the
    service; only a refusal that came before the view's own lookup (here a 405) looks the
    segments up."""
    looked_up: list[str] = []
    game_get = selectors.game_get

    def counted(*, game_id: Any) -> Any:
        looked_up.append(str(game_id))
        return game_get(game_id=game_id)

    game = start(alice_api)
    monkeypatch.setattr(selectors, "game_get", counted)
    moved = alice_api.post(f"/api/games/{game['id']}/flag", {"x": 0, "y": 0}, format="json")
    assert moved.status_code in (200, 409), moved.content
    assert looked_up == []
    assert_error(alice_api.put(f"/api/games/{game['id']}/flag"), 405, "method_not_allowed")
    assert looked_up == [game["id"]]
