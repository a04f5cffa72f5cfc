"""A player's games exported as NDJSON, streamed
(GET /api/users/{name}/games/export): ended games only, each with its layout and moves, under
the Game answer's own visibility (nothing of a running game or race); filters and throttle."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from django.core.cache import cache
from django.utils import timezone
from rest_framework.test import APIClient

from games.play.models import Game
from tests.support.boards import mines, win
from tests.support.personas import PASSWORD
from tests.support.races import racing

pytestmark = pytest.mark.django_db


def lines(answer: Any) -> list[dict[str, Any]]:
    assert answer.status_code == 200, answer
    assert answer["Content-Type"] == "application/x-ndjson"
    body = b"".join(answer.streaming_content).decode()
    assert body == "" or body.endswith("\n")
    return [json.loads(line) for line in body.splitlines()]


def export(query: str = "", name: str = "alice") -> Any:
    cache.clear()
    return APIClient().get(f"/api/users/{name}/games/export{query}")


def started(api: APIClient, level: str) -> str:
    game = api.post("/api/games", {"level": level}, format="json").json()
    api.post(f"/api/games/{game['id']}/reveal", {"x": 0, "y": 0}, format="json")
    return str(game["id"])


def test_the_export_holds_each_ended_game_with_its_layout_and_moves(
    alice_api: APIClient, bob_api: APIClient
) -> None:
    won = started(alice_api, "beginner")
    win(alice_api, won)
    lost = started(alice_api, "intermediate")
    x, y = sorted(mines(lost))[0]
    alice_api.post(f"/api/games/{lost}/reveal", {"x": x, "y": y}, format="json")
    running = started(alice_api, "expert")
    race = racing(alice_api, [bob_api])  # alice's race game runs: nothing of it leaves
    rows = lines(export())
    assert [r["id"] for r in rows] == [won, lost]
    for row in rows:
        assert row["state"] in ("won", "lost")
        public = APIClient().get(f"/api/games/{row['id']}").json()
        assert {k: v for k, v in row.items() if k != "moves"} == public
        moves = APIClient().get(f"/api/games/{row['id']}/moves?page_size=200").json()["results"]
        assert row["moves"] == moves
    assert any("*" in line or "X" in line for line in rows[1]["board"])  # the layout, at the end
    exported = {r["id"] for r in rows}
    assert running not in exported
    assert not exported & {r["game"] for r in race["racers"]}


def test_filters_by_level_mode_and_date(alice_api: APIClient) -> None:
    first = started(alice_api, "beginner")
    win(alice_api, first)
    second = started(alice_api, "intermediate")
    alice_api.post(f"/api/games/{second}/resign")
    assert [r["id"] for r in lines(export("?level=beginner"))] == [first]
    assert [r["id"] for r in lines(export("?level=intermediate"))] == [second]
    assert len(lines(export("?mode=classic"))) == 2
    assert lines(export("?mode=no_guess")) == []
    Game.objects.filter(pk=first).update(ended_at=timezone.now() - timedelta(days=3))
    since = (timezone.now() - timedelta(days=1)).isoformat()
    assert [r["id"] for r in lines(export("?since=" + since.replace("+", "%2B")))] == [second]
    for bad in ("?level=huge", "?mode=odd", "?since=yesterday"):
        answer = export(bad)
        assert (answer.status_code, answer.json()["error"]["code"]) == (400, "invalid")
    assert export(name="nobody").status_code == 404


def test_a_closed_account_has_no_export(alice_api: APIClient) -> None:
    alice_api.post("/api/me/close", {"mode": "close", "password": PASSWORD}, format="json")
    assert export().status_code == 404


def test_the_export_is_throttled() -> None:
    from rest_framework.settings import api_settings
    from rest_framework.throttling import SimpleRateThrottle

    from accounts.models import User

    User.objects.create_user(username="alice", password=PASSWORD)
    cache.clear()
    SimpleRateThrottle.THROTTLE_RATES = {
        **api_settings.DEFAULT_THROTTLE_RATES,
        "games_export": "2/hour",
    }
    try:
        statuses = [APIClient().get("/api/users/alice/games/export").status_code for _ in range(3)]
        assert statuses == [200, 200, 429]
    finally:
        SimpleRateThrottle.THROTTLE_RATES = api_settings.DEFAULT_THROTTLE_RATES
        cache.clear()
