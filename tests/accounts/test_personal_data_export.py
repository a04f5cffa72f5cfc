"""The personal-data export (GET /api/me/export): the account, settings,
tokens without their secrets, sessions and statistics, as JSON."""

from __future__ import annotations

import json

import pytest
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import ApiToken, User
from accounts.services import token_issue
from tests.support.boards import win
from tests.support.personas import PASSWORD

pytestmark = pytest.mark.django_db


def test_the_export_holds_the_account_and_no_secret(alice: User, alice_api: APIClient) -> None:
    alice.email = "alice@example.org"
    alice.save()
    _, key = token_issue(user=alice, name="laptop")
    page = Client(HTTP_USER_AGENT="Firefox")
    page.post("/api/auth/session", {"username": "alice", "password": PASSWORD}, "application/json")
    alice_api.patch("/api/me/settings", {"theme": "dark"}, format="json")
    game = alice_api.post("/api/games", {"level": "beginner"}, format="json").json()
    alice_api.post(f"/api/games/{game['id']}/reveal", {"x": 4, "y": 4}, format="json")
    win(alice_api, game["id"])

    answer = page.get("/api/me/export")
    assert answer.status_code == 200
    assert "attachment" in answer["Content-Disposition"]
    data = answer.json()
    assert set(data) >= {"account", "settings", "tokens", "sessions", "statistics"}
    assert data["account"]["username"] == "alice"
    assert data["account"]["email"] == "alice@example.org"
    assert data["settings"]["theme"] == "dark"
    assert {t["name"] for t in data["tokens"]} == {"api", "laptop"}
    assert data["sessions"][0]["user_agent"] == "Firefox" and data["sessions"][0]["current"]
    assert data["statistics"]["beginner"]["won"] == 1
    text = json.dumps(data)
    for token in ApiToken.objects.filter(user=alice):
        assert token.key_hash not in text
    assert key not in text and alice.password not in text
    assert "session_key" not in text
