"""games.play.events: one typed constructor per live event (docs/LIVE.md), used by every publisher.

Every event the services publish over whole games (through the REST door: the socket door
calls the same services, tests/live/test_event_frames.py compares the two) has exactly
the keys of its TypedDict, and no module but games/play/events.py spells an event out by hand.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from django.utils import timezone

from games.play import events
from games.play.models import Game
from tests.support.boards import mines, win
from tests.support.http import new_game, post, start

pytestmark = pytest.mark.django_db

TYPED: dict[str, Any] = {
    "state": events.StateEvent,
    "move": events.MoveEvent,
    "paused": events.PausedEvent,
    "resumed": events.ResumedEvent,
    "ended": events.EndedEvent,
    "discarded": events.DiscardedEvent,
    "live": events.LiveEvent,
    "game_started": events.LobbyGameEvent,
    "game_ended": events.LobbyGameEvent,
    "record": events.RecordEvent,
}
# docs/LIVE.md's tables, written out once more: the keys each message carries.
DOCUMENTED = {
    "state": {"type", "seq", "game"},
    "move": {"type", "seq", "action", "changes", "state", "mines_left", "elapsed_ms"},
    "paused": {"type", "seq", "elapsed_ms", "state"},
    "resumed": {"type", "seq", "elapsed_ms", "state", "game"},
    "ended": {"type", "seq", "game"},
    "discarded": {"type", "seq"},
    "live": {"type", "games"},
    "game_started": {
        "type",
        "id",
        "player",
        "player_kind",
        "level",
        "no_guess",
        "width",
        "height",
        "state",
        "end_reason",
        "ranked",
        "elapsed_ms",
    },
    "record": {"type", "player", "level", "game_id", "kind"},
}
DOCUMENTED["game_ended"] = DOCUMENTED["game_started"]


def assert_typed(event: dict[str, Any]) -> None:
    typed = TYPED[event["type"]]
    required, optional = set(typed.__required_keys__), set(typed.__optional_keys__)
    assert required <= set(event) <= required | optional, (event["type"], set(event))
    assert required == DOCUMENTED[event["type"]], event["type"]


@contextmanager
def published(capture: Any) -> Iterator[list[dict[str, Any]]]:
    """Every event published after a commit, game and lobby alike, in order (the list fills
    when the block ends: that is when the captured on_commit callbacks run)."""
    sent: list[dict[str, Any]] = []
    with (
        mock.patch(
            "demineur_site.publish.send_now", side_effect=lambda group, msg, **_: sent.append(msg)
        ),
        capture(execute=True),
    ):
        yield sent


def test_every_event_the_services_publish_has_the_keys_of_its_typed_dict(
    alice_api: Any, django_capture_on_commit_callbacks: Any, settings: Any
) -> None:
    settings.GAME_TEST_SEED = "events"  # a known layout: the win is not a first-tap win
    with published(django_capture_on_commit_callbacks) as sent:
        # A game with a flag, a pause and a loss on a mine.
        lost = start(alice_api)
        mine = sorted(mines(lost["id"]))[0]
        post(alice_api, lost["id"], "flag", {"x": mine[0], "y": mine[1], "client_move_id": "f"})
        post(alice_api, lost["id"], "pause")
        post(alice_api, lost["id"], "resume")
        post(alice_api, lost["id"], "reveal", {"x": mine[0], "y": mine[1]})  # flagged: no-op
        post(alice_api, lost["id"], "flag", {"x": mine[0], "y": mine[1]})
        post(alice_api, lost["id"], "reveal", {"x": mine[0], "y": mine[1]})
        # A won game (a personal best: record events), an abandoned one, a discarded one.
        won = start(alice_api)
        win(alice_api, won["id"])
        start(alice_api)
        new_game(alice_api)  # abandons the started game
        new_game(alice_api)  # discards the untapped one

    game_events = [m["event"] for m in sent if m["type"] == events.GAME_EVENT_TYPE]
    lobby_events = [m["event"] for m in sent if m["type"] == events.LOBBY_EVENT_TYPE]
    seen = {e["type"] for e in game_events + lobby_events}
    assert seen == set(TYPED) - {"state", "live"}  # those two only the consumers send
    for event in game_events + lobby_events:
        assert_typed(event)
    actions = [e["action"] for e in game_events if e["type"] == "move"]
    assert {"reveal", "flag", "abandon"} <= set(actions)
    flag = next(e for e in game_events if e.get("client_move_id") == "f")
    assert flag["action"] == "flag" and "replayed" not in flag
    kinds = {e["kind"] for e in lobby_events if e["type"] == "record"}
    assert kinds == {"time", "speed"}
    gone = [e for e in lobby_events if e.get("discarded")]
    assert len(gone) == 1 and gone[0]["type"] == "game_ended"


def test_the_constructors_the_consumers_use_build_the_documented_shapes(alice: Any) -> None:
    from games.play import services

    game = services.game_create(player=alice, level="beginner")
    services.game_move(game_id=game.id, player=alice, action="reveal", x=4, y=4)
    game.refresh_from_db()
    snapshot = {"id": str(game.id)}
    assert_typed(dict(events.state_event(seq=game.seq, game=snapshot)))
    lobby = events.lobby_game(game, player=alice)
    live = events.live_event([lobby])
    assert_typed(dict(live))
    assert set(live["games"][0]) == DOCUMENTED["game_started"] - {"type"}


def test_a_move_event_carries_the_clock_it_is_given_never_now(alice: Any) -> None:
    from games.play import services

    game = services.game_create(player=alice, level="beginner")
    services.game_move(game_id=game.id, player=alice, action="reveal", x=4, y=4)
    Game.objects.filter(pk=game.id).update(started_at=timezone.now() - timedelta(hours=1))
    game.refresh_from_db()
    event = events.move_event(game, action="reveal", changes=[], at_ms=1234, seq=1)
    assert event["elapsed_ms"] == 1234 and event["seq"] == 1
    replay = events.move_event(
        game, action="flag", changes=[], at_ms=0, client_move_id="m", replayed=True
    )
    assert (replay["elapsed_ms"], replay["client_move_id"], replay["replayed"]) == (0, "m", True)


def test_a_record_event_names_its_measure() -> None:
    game = Game(level="expert")
    time_record = events.record_event(game, player_name="alice", kind="time", value=41210)
    speed_record = events.record_event(game, player_name="alice", kind="speed", value=2.34567)
    assert (time_record["kind"], time_record.get("time_ms")) == ("time", 41210)
    assert "bbbv_per_s" not in time_record
    assert (speed_record["kind"], speed_record.get("bbbv_per_s")) == ("speed", 2.346)
    assert "time_ms" not in speed_record


GAMES_DIR = Path(events.__file__).parent
EVENT_NAMES = "|".join(TYPED)
EVENT_LITERAL = re.compile(rf"""["']type["']\s*:\s*["']({EVENT_NAMES})["']""")


def test_no_module_but_games_events_spells_out_a_live_event() -> None:
    """One constructor each: a second hand-built copy of an event is how the replayed move's
    clock went wrong once."""
    roots = [GAMES_DIR, GAMES_DIR.parent / "accounts"]
    offenders = [
        f"{path.relative_to(GAMES_DIR.parent)}: {match.group(0)}"
        for root in roots
        for path in sorted(root.rglob("*.py"))
        if path != Path(events.__file__) and "migrations" not in path.parts
        for line in path.read_text().splitlines()
        if not line.lstrip().startswith(">>>")  # a doctest's input is not a publisher
        for match in EVENT_LITERAL.finditer(line)
    ]
    assert offenders == []
