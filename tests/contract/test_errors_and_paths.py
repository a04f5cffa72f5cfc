"""API.md, Conventions: every error under /api/ has the one JSON error body -- 404, 405, 413,
415 and 429 included, on every path, the schema and its docs page too -- and every path is
also reached with a trailing slash (the moves on a mine the test knows:
tests/play/test_api_moves.py)."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from tests.support.http import assert_error, new_game, start
from tests.support.personas import PASSWORD

pytestmark = pytest.mark.django_db

BIG_JSON = '{"level": "' + "a" * 3_000_000 + '"}'


def _paths(game_id: str) -> dict[str, tuple[str, ...]]:
    """Every path of API.md with the methods it answers."""
    return {
        "/api/auth/register": ("post",),
        "/api/auth/token": ("post", "delete"),
        "/api/me": ("get",),
        "/api/users/alice": ("get",),
        "/api/games": ("get", "post"),
        f"/api/games/{game_id}": ("get",),
        f"/api/games/{game_id}/reveal": ("post",),
        f"/api/games/{game_id}/flag": ("post",),
        f"/api/games/{game_id}/chord": ("post",),
        f"/api/games/{game_id}/pause": ("post",),
        f"/api/games/{game_id}/resume": ("post",),
        f"/api/games/{game_id}/resign": ("post",),
        f"/api/games/{game_id}/moves": ("get",),
        "/api/leaderboards/beginner/times": ("get",),
        "/api/leaderboards/beginner/speed": ("get",),
        "/api/leaderboards/beginner/streaks": ("get",),
        "/api/schema": ("get",),
        "/api/docs": ("get",),
    }


def test_every_path_refuses_a_method_it_does_not_answer_with_a_json_405(alice_api):
    game = new_game(alice_api)
    for path, methods in _paths(game["id"]).items():
        for slash in ("", "/"):
            wrong = "put" if "post" in methods else "post"
            response = getattr(alice_api, wrong)(path + slash, {}, format="json")
            assert response["Content-Type"].startswith("application/json"), (path, response)
            assert_error(response, 405, "method_not_allowed")


def test_the_schema_and_docs_pages_answer_errors_in_json_too(anon_api):
    """drf-spectacular renders these two views as YAML and HTML: their errors must not be."""
    for path in ("/api/schema/", "/api/docs/"):
        response = anon_api.get(path, {"format": "nonsense"})
        assert response["Content-Type"].startswith("application/json"), response.content[:80]
        assert_error(response, 404, "not_found")
    refused = anon_api.get("/api/schema/", HTTP_ACCEPT="text/html")
    assert refused["Content-Type"].startswith("application/json")
    assert_error(refused, 406, "not_acceptable")


def test_every_get_path_answers_with_and_without_a_trailing_slash(alice_api):
    game = start(alice_api)
    for path, methods in _paths(game["id"]).items():
        if "get" not in methods:
            continue
        plain, slashed = alice_api.get(path), alice_api.get(path + "/")
        assert plain.status_code == slashed.status_code == 200, path


def test_pause_and_resume_answer_with_a_trailing_slash(alice_api):
    game = start(alice_api)
    for action in ("pause/", "resume/"):
        assert alice_api.post(f"/api/games/{game['id']}/{action}").status_code == 200


def test_sign_up_token_new_game_and_sign_out_answer_with_a_trailing_slash(anon_api):
    registered = anon_api.post(
        "/api/auth/register/", {"username": "carol", "password": PASSWORD}, format="json"
    )
    assert registered.status_code == 201
    token = anon_api.post(
        "/api/auth/token/", {"username": "carol", "password": PASSWORD}, format="json"
    )
    assert token.status_code == 200
    carol = APIClient()
    carol.credentials(HTTP_AUTHORIZATION=f"Token {token.json()['token']}")
    assert carol.post("/api/games/", {"level": "hard"}, format="json").status_code == 201
    assert carol.delete("/api/auth/token/").status_code == 204


@pytest.mark.parametrize(
    "path",
    ["/api/auth/register", "/api/auth/token", "/api/games", "/api/games/{id}/reveal"],
)
def test_a_body_that_is_not_json_is_a_415_and_a_huge_one_a_413(alice_api, path):
    game = new_game(alice_api)
    path = path.replace("{id}", game["id"])
    for slash in ("", "/"):
        form = alice_api.post(
            path + slash, data="x=1", content_type="application/x-www-form-urlencoded"
        )
        assert_error(form, 415, "unsupported_media_type")
        huge = alice_api.post(path + slash, data=BIG_JSON, content_type="application/json")
        assert_error(huge, 413, "payload_too_large")


@pytest.mark.parametrize(
    "path",
    ["/api/nothing", "/api/games/{id}/nothing", "/api/leaderboards/beginner", "/api/users/"],
)
def test_unknown_paths_are_a_json_404(anon_api, alice_api, path):
    game = new_game(alice_api)
    for slash in ("", "/"):
        response = anon_api.get(path.replace("{id}", game["id"]).rstrip("/") + slash)
        assert response["Content-Type"].startswith("application/json")
        assert_error(response, 404, "not_found")


@pytest.mark.parametrize("game_id", ["not-a-uuid", "12", "00000000-0000-0000-0000-000000000000"])
def test_a_non_uuid_or_unknown_game_id_is_404_on_every_game_path(alice_api, game_id):
    assert_error(alice_api.get(f"/api/games/{game_id}"), 404, "not_found")
    assert_error(alice_api.get(f"/api/games/{game_id}/moves"), 404, "not_found")
    for action, body in (("reveal", {"x": 0, "y": 0}), ("flag", {"x": 0, "y": 0}), ("pause", {})):
        response = alice_api.post(f"/api/games/{game_id}/{action}", body, format="json")
        assert_error(response, 404, "not_found")


def _throttled(client: APIClient, scope: str, rate: str, call: Any) -> Any:
    from django.core.cache import cache
    from rest_framework.settings import api_settings
    from rest_framework.throttling import SimpleRateThrottle

    cache.clear()
    original = SimpleRateThrottle.THROTTLE_RATES
    SimpleRateThrottle.THROTTLE_RATES = {**api_settings.DEFAULT_THROTTLE_RATES, scope: rate}
    try:
        call()
        return call()
    finally:
        SimpleRateThrottle.THROTTLE_RATES = original
        cache.clear()


@pytest.mark.parametrize(
    ("scope", "who", "call"),
    [
        ("anon", "anon", lambda c: c.get("/api/leaderboards/beginner/times")),
        ("anon", "anon", lambda c: c.get("/api/games")),
        ("auth", "anon", lambda c: c.post("/api/auth/token", {}, format="json")),
        ("user", "alice", lambda c: c.post("/api/games", {"level": "beginner"}, format="json")),
    ],
)
def test_throttled_requests_get_429_with_the_error_body_and_retry_after(
    anon_api, alice_api, scope, who, call
):
    client = anon_api if who == "anon" else alice_api
    response = _throttled(client, scope, "1/min", lambda: call(client))
    assert_error(response, 429, "throttled")
    assert int(response["Retry-After"]) >= 1
