"""`/ws/arenas/{id}` (API.md, Arenas): anyone may watch; `state` on connect, then `standings`
after each change, `race` when one forms, `ended` with the final standings; every frame in
`seq` order and never a cell."""

from __future__ import annotations

import json
from typing import Any

import pytest
from channels.db import database_sync_to_async

from accounts.models import User
from tests.support.arenas import alice_beats_bob, end_arena, new_arena, race_of
from tests.support.personas import client_for
from tests.support.sockets import connected, socket, until_closed

ARENA_FRAME_KEYS = {
    "type", "seq", "arena", "standings", "race", "players", "id", "code", "name", "level",
    "no_guess", "private", "state", "starts_at", "ends_at", "ended_at", "created_by",
    "time_limit_ms", "joined", "me", "rank", "player", "score", "races", "wins", "streak",
    "fire", "active", "min_players",
}  # fmt: skip


def _keys(value: Any) -> set[str]:
    if isinstance(value, dict):
        found = set(value)
        for inner in value.values():
            found |= _keys(inner)
        return found
    if isinstance(value, list):
        return set().union(*(_keys(v) for v in value)) if value else set()
    return set()


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_thread_connections")
async def test_a_spectator_follows_an_arena_from_the_first_join_to_the_podium(
    alice: User, bob: User
) -> None:
    arena = await database_sync_to_async(lambda: new_arena(client_for(alice)))()
    spectator = socket(f"/ws/arenas/{arena['id']}")
    first = await connected(spectator)
    assert first["type"] == "state" and first["standings"] == []
    assert first["arena"]["id"] == arena["id"] and first["arena"]["state"] == "running"
    frames = [first]

    def play() -> None:
        alice_api, bob_api = client_for(alice), client_for(bob)
        race = race_of(arena["id"], alice_api, bob_api)
        alice_beats_bob(race, alice_api, bob_api)
        end_arena(arena["id"])

    await database_sync_to_async(play)()
    while frames[-1]["type"] != "ended":
        frames.append(await spectator.receive_json_from(timeout=3))
    await spectator.disconnect()
    kinds = [f["type"] for f in frames]
    assert kinds == ["state", "standings", "standings", "race", "standings", "ended"]
    seqs = [f["seq"] for f in frames]
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))  # every event, in order, no gap
    assert frames[3]["players"] == ["alice", "bob"]
    after_race = {r["player"]: r["score"] for r in frames[4]["standings"]}
    assert frames[4]["race"] == frames[3]["race"]  # the standings say which race's end they follow
    assert frames[2]["race"] is None and frames[0]["race"] is None
    assert after_race == {"alice": 4, "bob": 0}
    final = frames[-1]
    assert final["arena"]["state"] == "finished"
    assert [(r["rank"], r["player"]) for r in final["standings"]] == [(1, "alice"), (2, "bob")]
    for frame in frames:
        assert _keys(frame) <= ARENA_FRAME_KEYS, _keys(frame) - ARENA_FRAME_KEYS
        text = json.dumps(frame)
        assert '"board"' not in text and '"changes"' not in text and '"game"' not in text


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_thread_connections")
async def test_an_unknown_arena_is_a_404_and_the_feed_is_read_only(alice: User) -> None:
    for path in ("/ws/arenas/nope", "/ws/arenas/00000000-0000-0000-0000-000000000000"):
        comm = socket(path)
        first = await connected(comm)
        assert first["type"] == "error" and first["error"]["code"] == "not_found"
        _, code = await until_closed(comm)
        assert code == 4404
    arena = await database_sync_to_async(lambda: new_arena(client_for(alice)))()
    comm = socket(f"/ws/arenas/{arena['id']}")
    await connected(comm)
    await comm.send_json_to({"action": "reveal", "x": 1, "y": 1})
    refused = await comm.receive_json_from(timeout=3)
    assert refused["type"] == "error" and refused["error"]["code"] == "invalid"
    await comm.disconnect()
