"""The OpenAPI schema (/api/schema) describes the arenas' endpoints (API.md, Arenas) and the
Race's `arena`."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.django_db


def test_the_schema_has_every_arena_endpoint_and_its_shapes(anon_api: Any) -> None:
    response = anon_api.get("/api/schema", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    schema = response.json()
    paths = schema["paths"]
    assert set(paths["/api/arenas"]) >= {"get", "post"}
    for path in ("/api/arenas/{arena_id}/join", "/api/arenas/{arena_id}/leave"):
        assert "post" in paths[path], path
    assert "get" in paths["/api/arenas/{arena_id}"]
    standings = paths["/api/arenas/{arena_id}/standings"]["get"]
    assert {p["name"] for p in standings["parameters"]} >= {"page", "around"}
    parts = schema["components"]["schemas"]
    assert set(parts["ArenaOut"]["properties"]) >= {
        "id", "code", "name", "level", "no_guess", "players", "state", "starts_at", "ends_at",
        "created_by", "joined", "me",
    }  # fmt: skip
    assert set(parts["StandingRowOut"]["properties"]) >= {
        "rank", "player", "score", "races", "wins", "streak", "fire",
    }  # fmt: skip
    create = parts["ArenaCreateInRequest"]["properties"]
    assert (create["minutes"]["minimum"], create["minutes"]["maximum"]) == (20, 180)
    assert "arena" in parts["RaceOut"]["properties"]
