"""The player's puzzles in the personal-data export (GET /api/me/export; docs/ACCOUNTS.md, Your
data): the dashboard and every attempt, and nothing of an answer while an attempt is played."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from games.puzzles.models import Puzzle

pytestmark = pytest.mark.django_db


def _export(api: APIClient) -> dict[str, Any]:
    answer = api.get("/api/me/export")
    assert answer.status_code == 200
    return dict(answer.json()["puzzles"])


def test_the_export_lists_the_attempts_and_no_answer_before_the_end(
    alice_api: APIClient, flow: Puzzle
) -> None:
    assert _export(alice_api)["attempts"] == []
    opened = alice_api.post(f"/api/puzzles/{flow.id}/open", {"x": 2, "y": 0}, format="json")
    assert opened.json()["correct"] is True

    playing = _export(alice_api)
    (attempt,) = playing["attempts"]
    assert attempt["puzzle"] == str(flow.id) and attempt["state"] == "playing"
    assert attempt["opened"] == [{"x": 2, "y": 0, "number": 1}]
    text = repr(playing)
    assert "solution" not in text and flow.layout not in text and "source_game" not in text

    for x, y in ((3, 0), (3, 1), (4, 1)):
        alice_api.post(f"/api/puzzles/{flow.id}/open", {"x": x, "y": y}, format="json")
    solved = _export(alice_api)
    assert [a["state"] for a in solved["attempts"]] == ["solved"]
    assert solved["rated_attempts"] == 1 and solved["solved"] == 1
    assert solved["attempts"][0]["rating_after"] == solved["rating"]
