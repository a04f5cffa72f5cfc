"""Nothing crosses between racers (RULES.md, Races): until the end, a rival and a spectator
see counts only, in every answer and every frame; at the end every board becomes public."""

from __future__ import annotations

import json
from typing import Any

import pytest
from channels.db import database_sync_to_async
from rest_framework.test import APIClient

from accounts.models import User
from accounts.services import token_issue
from games.play.analysis_jobs import AnalysisWorker, analyse_game
from games.play.models import GameAnalysis
from games.races.models import Race
from tests.support.boards import board_of, mine_cell, safe_cells
from tests.support.personas import client_for
from tests.support.races import open_room, start_now, tick
from tests.support.sockets import only_its_player_watches, watching_race

# The keys a race frame or a Race may hold anywhere inside it: counts, names, times, states.
RACE_KEYS = {
    "type", "seq", "race", "id", "code", "level", "width", "height", "mines", "state", "host",
    "max_players", "quick", "no_guess", "arena", "rated", "time_limit_ms", "created_at", "starts_at", "started_at",
    "ended_at", "start_cell", "racers", "player", "player_kind", "ready", "game", "opened",
    "safe_cells", "flags", "elapsed_ms", "place", "rating_before", "rating_after", "x", "y",
    "took_part",  # whether a racer moved: nothing of a board
    "provisional",  # whether a racer's rating after the race was provisional
}  # fmt: skip


def _keys(value: Any, path: str = "") -> set[str]:
    if isinstance(value, dict):
        found = set(value)
        for key, inner in value.items():
            found |= _keys(inner, f"{path}.{key}")
        return found
    if isinstance(value, list):
        return set().union(*(_keys(v, path) for v in value)) if value else set()
    return set()


def assert_counts_only(frame: dict[str, Any], race: Race) -> None:
    """A race frame holds no key beyond RACE_KEYS, and its only coordinates are the start
    cell's (public: every racer's first move)."""
    assert _keys(frame) <= RACE_KEYS, _keys(frame) - RACE_KEYS
    text = json.dumps(frame)
    assert '"board"' not in text and '"changes"' not in text
    body = frame.get("race", {})
    cells = [frame.get("start_cell"), body.get("start_cell") if isinstance(body, dict) else None]
    for cell in cells:
        if cell is not None:
            assert (cell["x"], cell["y"]) == (race.start_x, race.start_y)


def _rest_race(api: APIClient, others: list[APIClient]) -> dict[str, Any]:
    body = api.post("/api/races", {"level": "beginner"}, format="json").json()
    for other in others:
        other.post(f"/api/races/{body['id']}/join")
    for client in [api, *others]:
        client.post(f"/api/races/{body['id']}/ready", {}, format="json")
    start_now(body["id"])
    return dict(api.get(f"/api/races/{body['id']}").json())


def test_a_rival_and_a_spectator_get_no_board_and_no_moves_until_the_end(
    alice_api: Any, bob_api: Any, anon_api: Any
) -> None:
    race = _rest_race(alice_api, [bob_api])
    alice_game = race["racers"][0]["game"]
    x, y = safe_cells(board_of(alice_game))[0]
    alice_api.post(f"/api/games/{alice_game}/reveal", {"x": x, "y": y}, format="json")
    for viewer in (bob_api, anon_api):
        seen = viewer.get(f"/api/games/{alice_game}").json()
        assert seen["board"] is None and seen["result_stats"] is None
        listed = viewer.get("/api/games?user=alice").json()["results"]
        assert [g["board"] for g in listed if g["id"] == alice_game] == [None]
        moves = viewer.get(f"/api/games/{alice_game}/moves")
        assert (moves.status_code, moves.json()["error"]["code"]) == (403, "race_running")
        assert_counts_only(
            viewer.get(f"/api/races/{race['id']}").json(), Race.objects.get(pk=race["id"])
        )
    assert alice_api.get(f"/api/games/{alice_game}").json()["board"] is not None
    assert alice_api.get(f"/api/games/{alice_game}/moves").status_code == 200
    # The end: every board, replay and result is public.
    alice_api.post(f"/api/races/{race['id']}/leave")
    bob_api.post(f"/api/races/{race['id']}/leave")
    tick()
    assert Race.objects.get(pk=race["id"]).state == "finished"
    after = bob_api.get(f"/api/games/{alice_game}").json()
    assert after["board"] is not None and "*" in "".join(after["board"])
    assert after["result_stats"] is not None
    assert anon_api.get(f"/api/games/{alice_game}/moves").status_code == 200


def test_a_racer_whose_game_ended_does_not_see_the_layout_before_the_race_ends(
    alice_api: Any, bob_api: Any
) -> None:
    """Else a second account could open a mine at once and read every mine of the layout."""
    race = _rest_race(alice_api, [bob_api])
    bob_game = race["racers"][1]["game"]
    x, y = mine_cell(board_of(bob_game))
    lost = bob_api.post(f"/api/games/{bob_game}/reveal", {"x": x, "y": y}, format="json").json()
    assert lost["game"]["state"] == "lost"
    rows = "".join(lost["game"]["board"])
    # API.md: no mine, no `X`, no `!` (a chord can open several mines: `X` would show them)
    assert "*" not in rows and "!" not in rows and "X" not in rows
    assert lost["game"]["result_stats"] is None
    again = bob_api.get(f"/api/games/{bob_game}").json()
    assert "*" not in "".join(again["board"])
    # Nor its analysis (API.md): the worker leaves a sealed game alone until the race ends.
    AnalysisWorker().run_once()  # whatever else it finds ended, never this sealed game
    assert not analyse_game(bob_game)
    assert not GameAnalysis.objects.filter(game_id=bob_game).exists()
    assert again["analysis"] is None


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_thread_connections")
async def test_sockets_on_a_race_game_are_refused_to_everyone_but_its_player(
    alice: User, bob: User
) -> None:
    def setup() -> tuple[dict[str, Any], str, str]:
        alice_api, bob_api = client_for(alice), client_for(bob)
        race = _rest_race(alice_api, [bob_api])
        return race, token_issue(user=alice)[1], token_issue(user=bob)[1]

    race, alice_token, bob_token = await database_sync_to_async(setup)()
    alice_game = race["racers"][0]["game"]
    await only_its_player_watches(alice_game, alice_token, bob_token, "race_running")


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_thread_connections")
async def test_every_frame_a_spectator_gets_during_a_whole_race_is_counts_only(
    alice: User, bob: User
) -> None:
    race = await database_sync_to_async(open_room)(alice)
    spectator, first = await watching_race(race["id"])
    frames = [first]

    def play() -> str:
        alice_api, bob_api = client_for(alice), client_for(bob)
        bob_api.post(f"/api/races/{race['id']}/join")
        for api in (alice_api, bob_api):
            api.post(f"/api/races/{race['id']}/ready", {}, format="json")
        start_now(race["id"])
        started = alice_api.get(f"/api/races/{race['id']}").json()
        alice_game, bob_game = (r["game"] for r in started["racers"])
        # A flag first, on a safe cell still closed: three reveals may clear a Beginner board
        # (the race's opening did most of it), and then no closed cell would be left to flag.
        closed = safe_cells(board_of(alice_game))
        x, y = closed[0]
        alice_api.post(f"/api/games/{alice_game}/flag", {"x": x, "y": y}, format="json")
        for x, y in closed[1:4]:
            alice_api.post(f"/api/games/{alice_game}/reveal", {"x": x, "y": y}, format="json")
        x, y = mine_cell(board_of(bob_game))
        bob_api.post(f"/api/games/{bob_game}/reveal", {"x": x, "y": y}, format="json")
        alice_api.post(f"/api/games/{alice_game}/resign")
        return str(bob_game)

    await database_sync_to_async(play)()
    while True:
        frame = await spectator.receive_json_from(timeout=3)
        frames.append(frame)
        if frame["type"] == "ended":
            break
    await spectator.disconnect()
    stored = await database_sync_to_async(Race.objects.get)(pk=race["id"])
    for frame in frames:
        assert_counts_only(frame, stored)
    kinds = [f["type"] for f in frames]
    assert kinds[:5] == ["state", "joined", "ready", "ready", "countdown"]
    assert "started" in kinds and kinds.count("finished") == 2 and kinds[-1] == "ended"
    seqs = [f["seq"] for f in frames]
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))  # every event, in order, no gap
    progress = [f for f in frames if f["type"] == "progress" and f["player"] == "alice"]
    assert [p["opened"] for p in progress][:3] == sorted([p["opened"] for p in progress][:3])
    assert progress[3]["flags"] == 1
    ended = frames[-1]["race"]
    assert {r["player"]: r["place"] for r in ended["racers"]} == {"alice": 1, "bob": 2}
