"""API.md, No-guess games and analysis, as a client sees it: the Game's `analysis` is in the
schema with its shape, and it is null on every answer about a game before its end (the
move that ends it included: the analysis is made after the end)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.http import post, start

pytestmark = pytest.mark.django_db


def _schema(api: Any) -> dict[str, Any]:
    response = api.get("/api/schema", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    return response.json()["components"]["schemas"]


def test_the_schema_describes_the_analysis_and_the_luck_statistics(anon_api):
    schemas = _schema(anon_api)
    game = schemas["GameOut"]["properties"]
    assert "analysis" in game
    analysis = schemas["AnalysisOut"]["properties"]
    assert {"moves", "forced_guesses", "avoidable_guesses", "unlucky_loss"} <= set(analysis)
    move = schemas["AnalysedMoveOut"]["properties"]
    assert {"seq", "label", "p_mine", "safest_p_mine"} <= set(move)
    level = schemas["LevelStatsOut"]["properties"]
    assert {"skill_streak", "best_skill_streak", "unlucky_losses"} <= set(level)


def test_the_analysis_is_null_before_and_at_the_end(alice_api, anon_api):
    game = start(alice_api)
    assert game["analysis"] is None
    for api in (alice_api, anon_api):
        assert api.get(f"/api/games/{game['id']}").json()["analysis"] is None
        listed = api.get("/api/games?state=playing").json()["results"]
        assert all(g["analysis"] is None for g in listed)
    ended = post(alice_api, game["id"], "resign").json()
    assert ended["state"] == "lost" and ended["analysis"] is None
