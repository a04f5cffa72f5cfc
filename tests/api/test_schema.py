"""The OpenAPI schema and its browsable page agree with API.md's paths."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db

CONTRACT_PATHS = [
    "/api/auth/register",
    "/api/auth/token",
    "/api/me",
    "/api/users/{username}",
    "/api/games",
    "/api/games/{game_id}",
    "/api/games/{game_id}/reveal",
    "/api/games/{game_id}/flag",
    "/api/games/{game_id}/chord",
    "/api/games/{game_id}/pause",
    "/api/games/{game_id}/resume",
    "/api/games/{game_id}/resign",
    "/api/games/{game_id}/moves",
    "/api/leaderboards/{level}/times",
    "/api/leaderboards/{level}/speed",
    "/api/leaderboards/{level}/streaks",
]


def test_the_schema_lists_every_contract_path(anon_api):
    response = anon_api.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    schema = response.json()
    assert schema["openapi"].startswith("3.")
    paths = {p.rstrip("/") for p in schema["paths"]}
    missing = [p for p in CONTRACT_PATHS if p not in paths]
    assert not missing, (missing, sorted(paths))
    reveal = schema["paths"][next(p for p in schema["paths"] if p.rstrip("/").endswith("/reveal"))]
    assert "409" in reveal["post"]["responses"] and "200" in reveal["post"]["responses"]


def test_the_docs_page_is_served(anon_api):
    response = anon_api.get("/api/docs/")
    assert response.status_code == 200
    assert b"swagger" in response.content.lower()
