"""A race move without the lock (games.play.services._move_without_lock with the races room's
share, games.races.progress.UnlockedShare; docs/PERFORMANCE.md): outside a transaction on
PostgreSQL, a racer's move that does not end their game is a read and one statement, which
also takes the race's next seq. It must leave what the locked path leaves, publish the same
events in the same order, refuse a move past the time limit, and number the progress of
racers moving at once without a gap."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connection, connections, transaction
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from accounts.models import User
from demineur_site import publish
from games.errors import GameError
from games.play import services
from games.play.models import Game, Move
from games.races.models import Race
from tests.support.boards import board_of, mines, safe_cells
from tests.support.plans import Step, answers_to
from tests.support.races import racing
from tests.support.threads import in_threads

pytestmark = [
    pytest.mark.skipif(
        connection.vendor != "postgresql",
        reason="the compare-and-set is PostgreSQL's (SQLite moves take the locked path); CI "
        "sets DATABASE_URL",
    ),
    pytest.mark.django_db(transaction=True),
]


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, dict[str, Any]]]:
    """Every event published (group, event), in the order of publishing, from any thread;
    as publishing does, only once the transaction it belongs to (if any) commits."""
    events: list[tuple[str, dict[str, Any]]] = []
    lock = threading.Lock()

    def record(group: str, message: dict[str, Any], *, live: bool = True) -> None:
        def keep() -> None:
            with lock:
                events.append((group, message["event"]))

        transaction.on_commit(keep)

    monkeypatch.setattr(publish, "on_commit", record)
    return events


def _race(first: APIClient, second: APIClient) -> tuple[dict[str, Any], dict[str, str]]:
    """An Expert race of the two, started: the Race, and each racer's game id by name."""
    race = racing(first, [second], level="expert")
    return race, {r["player"]: r["game"] for r in race["racers"]}


def _progress(sent: list[tuple[str, dict[str, Any]]], race_id: str) -> list[dict[str, Any]]:
    """The race's `progress` and `finished` events, in the order published."""
    return [e for group, e in sent if race_id in group and e["type"] in ("progress", "finished")]


def test_a_racers_move_is_a_read_and_one_statement_that_takes_the_races_seq(
    alice: User, bob: User, alice_api: APIClient, bob_api: APIClient, sent, settings
):
    settings.DB_MOVE_COMPARE_AND_SET = True
    race, games = _race(alice_api, bob_api)
    game_id = games["alice"]
    x, y = sorted(mines(game_id))[0]
    seq_before = Race.objects.get(pk=race["id"]).seq
    sent.clear()

    with CaptureQueriesContext(connection) as flag:
        result = services.game_move(
            game_id=game_id, player=alice, action="flag", x=x, y=y, client_move_id="f1"
        )

    statements = [q["sql"] for q in flag.captured_queries]
    assert len(statements) == 2, statements
    assert not any("FOR UPDATE" in s for s in statements)
    assert statements[1].startswith("WITH saved AS (UPDATE") and "games_race" in statements[1]
    assert result.seq == 2 and result.changes == [{"x": x, "y": y, "v": "F"}]
    assert Race.objects.get(pk=race["id"]).seq == seq_before + 1
    # The game's `move` first, then the race's `progress` with the seq the statement took.
    assert [e["type"] for _, e in sent] == ["move", "progress"]
    progress = sent[1][1]
    assert progress["seq"] == seq_before + 1
    assert (progress["player"], progress["flags"], progress["state"]) == ("alice", 1, "racing")
    assert progress["elapsed_ms"] == Move.objects.get(game_id=game_id, seq=2).at_ms


def test_a_race_played_with_and_without_the_lock_gives_the_same_rows_and_events(
    alice: User, bob: User, alice_api: APIClient, bob_api: APIClient, sent, settings
):
    # One layout for both racers: alice's moves go without the lock, bob's with it, by the
    # same plan (flags, an unflag, a replay, a refusal, reveals to the win).
    race, games = _race(alice_api, bob_api)
    board = board_of(games["alice"])
    assert board_of(games["bob"]).render() == board.render()
    mine_cells = sorted(mines(games["alice"]))
    plan: list[Step] = [
        ("flag", *mine_cells[0], None, "a"),
        ("flag", *mine_cells[1], None, "b"),
        ("flag", *mine_cells[1], None, None),
        ("flag", *mine_cells[0], None, "a"),  # a replay
        ("reveal", 99, 0, None, None),  # off the board
    ]
    plan += [("reveal", x, y, None, f"r{x}.{y}") for x, y in safe_cells(board)]

    def play(player: User, game_id: str, unlocked: bool) -> list[Any]:
        settings.DB_MOVE_COMPARE_AND_SET = unlocked
        return answers_to(player, game_id, plan)

    sent.clear()
    unlocked = play(alice, games["alice"], True)
    locked = play(bob, games["bob"], False)

    assert unlocked == locked
    assert "out_of_bounds" in unlocked
    assert any(isinstance(a, tuple) and a[3] == "won" for a in unlocked)

    def stored(game_id: str) -> tuple[Any, ...]:
        game = Game.objects.get(pk=game_id)
        moves = Move.objects.filter(game_id=game_id).order_by("seq")
        return (
            game.seq, game.board, game.state, game.opened, game.mines_left, game.clicks,
            list(moves.values_list("seq", "action", "x", "y", "client_move_id", "changes")),
        )  # fmt: skip

    assert stored(games["alice"]) == stored(games["bob"])
    progress = _progress(sent, race["id"])

    def counts(name: str) -> list[tuple[Any, ...]]:
        return [
            (p["type"], p["opened"], p["flags"], p["state"])
            for p in progress
            if p["player"] == name
        ]

    assert counts("alice") == counts("bob")
    seqs = [p["seq"] for p in progress]
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))  # numbered without a gap


def test_a_race_move_past_the_time_limit_is_refused_and_changes_nothing(
    alice: User, bob: User, alice_api: APIClient, bob_api: APIClient, sent, settings
):
    settings.DB_MOVE_COMPARE_AND_SET = True
    race, games = _race(alice_api, bob_api)
    Race.objects.filter(pk=race["id"]).update(time_limit_ms=0)
    game_id = games["alice"]
    x, y = sorted(mines(game_id))[0]
    before = Race.objects.get(pk=race["id"]).seq
    sent.clear()

    with pytest.raises(GameError) as refused:
        services.game_move(game_id=game_id, player=alice, action="flag", x=x, y=y)

    assert refused.value.code == "game_over"
    game = Game.objects.get(pk=game_id)
    assert (game.seq, game.mines_left) == (1, game.mines)
    assert Move.objects.filter(game_id=game_id).count() == 1
    assert Race.objects.get(pk=race["id"]).seq == before
    assert sent == []


def test_racers_moving_at_once_get_their_progress_numbered_without_a_gap(
    alice: User, bob: User, alice_api: APIClient, bob_api: APIClient, sent, settings
):
    settings.DB_MOVE_COMPARE_AND_SET = True
    race, games = _race(alice_api, bob_api)
    before = Race.objects.get(pk=race["id"]).seq
    flips = 12

    def flipper(player: User, game_id: str) -> Any:
        x, y = sorted(mines(game_id))[0]

        def flip() -> None:
            for _ in range(flips):
                services.game_move(game_id=game_id, player=player, action="flag", x=x, y=y)
            connections.close_all()

        return flip

    sent.clear()
    in_threads(flipper(alice, games["alice"]), flipper(bob, games["bob"]))

    progress = _progress(sent, race["id"])
    assert sorted(p["seq"] for p in progress) == list(range(before + 1, before + 2 * flips + 1))
    assert Race.objects.get(pk=race["id"]).seq == before + 2 * flips
    for name in ("alice", "bob"):
        game = Game.objects.get(pk=games[name])
        assert game.seq == 1 + flips
        flags = [p["flags"] for p in progress if p["player"] == name and p["type"] == "progress"]
        assert flags == [1, 0] * (flips // 2)
