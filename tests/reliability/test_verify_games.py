"""`manage.py verify_games` passes on games played through the service in every way a game
can go, and names the game (or the player) when anything stored was tampered with."""

from __future__ import annotations

from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from rest_framework.test import APIClient

from accounts.standings.models import PlayerStats
from games.play.models import Game, Move
from tests.support.boards import mines, safe_closed, win
from tests.support.http import post, start

pytestmark = pytest.mark.django_db


def verify(*args: str) -> tuple[int, str]:
    out = StringIO()
    try:
        call_command("verify_games", *args, stdout=out, verbosity=0)
    except CommandError as exc:
        return exc.returncode, out.getvalue()
    return 0, out.getvalue()


@pytest.fixture
def played(alice_api: APIClient) -> dict[str, str]:
    """One game of each ending, with flags, chords, pauses and idempotent moves."""
    games: dict[str, str] = {}
    won = start(alice_api, "beginner")
    mine = sorted(mines(won["id"]))[0]
    post(alice_api, won["id"], "flag", {"x": mine[0], "y": mine[1], "client_move_id": "f1"})
    post(alice_api, won["id"], "flag", {"x": mine[0], "y": mine[1], "flagged": True})
    post(alice_api, won["id"], "pause")
    post(alice_api, won["id"], "resume")
    win(alice_api, won["id"])
    games["won"] = won["id"]
    lost = start(alice_api, "intermediate")
    bomb = sorted(mines(lost["id"]))[0]
    post(alice_api, lost["id"], "reveal", {"x": bomb[0], "y": bomb[1], "client_move_id": "r1"})
    games["lost"] = lost["id"]
    resigned = start(alice_api, "hard")
    post(alice_api, resigned["id"], "resign")
    games["resigned"] = resigned["id"]
    abandoned = start(alice_api, "expert")
    alice_api.post("/api/games", {"level": "expert"}, format="json")  # abandons it
    games["abandoned"] = abandoned["id"]
    running = start(alice_api, "marathon")
    x, y = safe_closed(running["id"])[0]
    post(alice_api, running["id"], "reveal", {"x": x, "y": y})
    post(alice_api, running["id"], "pause")
    games["paused"] = running["id"]
    chorded = start(alice_api, "extreme", at=(5, 5))
    post(alice_api, chorded["id"], "chord", {"x": 5, "y": 5})  # a zero: an accepted no-op
    games["chorded"] = chorded["id"]
    return games


def test_every_way_a_game_goes_verifies(played: dict[str, Any]) -> None:
    code, out = verify()
    assert code == 0, out
    assert "0 mismatch" in out
    assert Game.objects.get(pk=played["abandoned"]).end_reason == "abandoned"


def test_a_missing_move_is_reported_with_its_game(played: dict[str, Any]) -> None:
    Move.objects.filter(game_id=played["won"], seq=2).delete()
    code, out = verify()
    assert code == 1
    assert f"game {played['won']}: seq is not" in out


def test_a_tampered_board_is_reported(played: dict[str, Any]) -> None:
    game = Game.objects.get(pk=played["paused"])
    from games.engine import Board

    board = Board.decode(bytes(game.board))
    rows = board.to_ascii()
    x, y = next((x, y) for y, r in enumerate(rows) for x, c in enumerate(r) if c == ".")
    rows[y] = rows[y][:x] + "o" + rows[y][x + 1 :]
    game.board = Board.from_ascii(rows).encode()
    game.save()
    code, out = verify()
    assert code == 1 and f"game {played['paused']}: the stored board differs" in out


def test_a_faked_time_is_reported(played: dict[str, Any]) -> None:
    Game.objects.filter(pk=played["won"]).update(elapsed_ms=1)
    code, out = verify()
    assert code == 1
    assert f"game {played['won']}: elapsed_ms is 1" in out


def test_tampered_statistics_are_reported(alice: Any, played: dict[str, Any]) -> None:
    PlayerStats.objects.filter(user=alice, level="beginner").update(played=5)
    code, out = verify()
    assert code == 1 and f"stats {alice.pk}/beginner" in out


def test_since_limits_the_check_to_recent_games(played: dict[str, Any]) -> None:
    from datetime import timedelta

    from django.utils import timezone

    Move.objects.filter(game_id=played["won"], seq=2).delete()
    Game.objects.filter(pk=played["won"]).update(last_action_at=timezone.now() - timedelta(days=3))
    assert verify("--since", "1d")[0] == 0
    assert verify("--since", "4d")[0] == 1
    with pytest.raises(CommandError):
        call_command("verify_games", "--since", "yesterday", verbosity=0)
