"""API.md: the OpenAPI schema at /api/schema/ "must agree with this page": paths as written,
lists as `{count, next, previous, results}`, the Game's fields and the profile's shape."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.shapes import BUCKETS

pytestmark = pytest.mark.django_db


@pytest.fixture
def schema(anon_api: Any) -> dict[str, Any]:
    response = anon_api.get("/api/schema", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    return response.json()


def _component(schema: dict[str, Any], ref: dict[str, Any]) -> dict[str, Any]:
    return schema["components"]["schemas"][ref["$ref"].rsplit("/", 1)[1]]


def _ok(schema: dict[str, Any], path: str) -> dict[str, Any]:
    body = schema["paths"][path]["get"]["responses"]["200"]["content"]["application/json"]
    return _component(schema, body["schema"])


def test_the_schema_lists_the_paths_as_api_md_writes_them(schema):
    for path in ("/api/games", "/api/games/{game_id}/reveal", "/api/me", "/api/auth/token"):
        assert path in schema["paths"], sorted(schema["paths"])
    assert not [p for p in schema["paths"] if p.endswith("/")]


@pytest.mark.parametrize(
    "path",
    [
        "/api/games",
        "/api/games/{game_id}/moves",
        "/api/leaderboards/{level}/times",
        "/api/leaderboards/{level}/speed",
        "/api/leaderboards/{level}/streaks",
    ],
)
def test_the_schema_describes_lists_as_pages(schema, path):
    page = _ok(schema, path)
    assert {"count", "next", "previous", "results"} <= set(page["properties"])
    assert page["properties"]["results"]["type"] == "array"


def test_the_schema_describes_the_game_and_the_profile(schema):
    game = _ok(schema, "/api/games/{game_id}")
    assert {"elapsed_ms", "result_stats", "board", "seq", "end_reason"} <= set(game["properties"])
    profile = _ok(schema, "/api/users/{username}")
    assert set(profile["properties"]) == {
        "username",
        "kind",
        "date_joined",
        "stats",
        "stats_no_guess",
        "recent_games",
        "daily",
    }
    stats = _component(schema, profile["properties"]["stats"])
    assert list(stats["properties"]) == BUCKETS
    stats_no_guess = _component(schema, profile["properties"]["stats_no_guess"])
    assert list(stats_no_guess["properties"]) == BUCKETS
    assert game["properties"]["no_guess"]["type"] == "boolean"
    recent = _component(schema, profile["properties"]["recent_games"]["items"])
    assert set(recent["properties"]) == {
        "id",
        "level",
        "no_guess",
        "state",
        "end_reason",
        "elapsed_ms",
        "result_stats",
        "ended_at",
    }
    board = _ok(schema, "/api/leaderboards/{level}/times")
    assert "me" in board["properties"]
