"""GET /api/games/{id}/replay.evf (API.md, The account's lifecycle; docs/ACCOUNTS.md, EVF
replay files): real games played through the API to a win and to a loss, with flags, an
unflag and a chord, written as EVF by games.play.evf and read back by ms-toollib's EvfVideo
(an independent reader): the same board, size, mines, clicks, time and player. Plus the
refusals: a running game, a sealed race game, an unknown id."""

from __future__ import annotations

import tempfile
import uuid
from pathlib import Path
from typing import Any

import ms_toollib
import pytest
from rest_framework.test import APIClient

from games.play.models import Game, Move
from tests.support.boards import board_of, chord_target, mine_cell, mines_of, win
from tests.support.http import assert_error, post, start

pytestmark = pytest.mark.django_db

SEED = "evf-export"


@pytest.fixture(autouse=True)
def _seeded(settings: Any) -> None:
    settings.GAME_TEST_SEED = SEED  # a known layout, so a chord is always there to make


def _flags_and_chord(api: APIClient, game_id: str) -> int:
    """Flag, unflag and flag again one mine, flag the others around a number (the first one a
    second time: an accepted no-op, no click in the file), chord it. The count of right clicks
    that changed a flag."""
    board = board_of(game_id)
    number, its_mines = chord_target(board, mines_of(board))
    first = its_mines[0]
    for flagged in (True, False):
        response = post(api, game_id, "flag", {"x": first[0], "y": first[1], "flagged": flagged})
        assert response.status_code == 200, response.content
    for x, y in [*its_mines, first]:
        response = post(api, game_id, "flag", {"x": x, "y": y, "flagged": True})
        assert response.status_code == 200, response.content
    assert response.json()["changes"] == []  # the second flag on `first`: a no-op
    response = post(api, game_id, "chord", {"x": number[0], "y": number[1]})
    assert response.status_code == 200, response.content
    assert response.json()["changes"], "the chord opened cells"
    return 2 + len(its_mines)


def _evf(api: APIClient, game_id: str) -> Any:
    """The game's replay file, downloaded and parsed by ms-toollib."""
    response = api.get(f"/api/games/{game_id}/replay.evf")
    assert response.status_code == 200, response.content
    assert response["Content-Type"] == "application/octet-stream"
    disposition = response["Content-Disposition"]
    assert disposition.startswith("attachment;") and disposition.endswith('.evf"')
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "game.evf"
        path.write_bytes(response.content)
        video = ms_toollib.EvfVideo(str(path))
        video.parse()
        video.analyse()
    video.current_time = 1e6  # the counts as of the last event
    return video


def _assert_same_game(video: Any, game_id: str, right_clicks: int) -> None:
    game = Game.objects.select_related("player").get(pk=game_id)
    mines = mines_of(board_of(game_id))
    assert (video.column, video.row, video.mine_num) == (game.width, game.height, game.mines)
    assert {(x, y) for y, row in enumerate(video.board) for x, v in enumerate(row) if v == -1} == (
        mines
    )
    moves = list(Move.objects.filter(game=game).values_list("action", flat=True))
    assert video.left == moves.count("reveal")
    assert moves.count("flag") == right_clicks + 1  # the no-op is a Move, not a click
    assert video.right == right_clicks
    assert video.double == moves.count("chord")
    assert video.rtime_ms == game.elapsed_ms  # the format keeps milliseconds
    assert video.player_identifier == game.player.username
    assert video.is_completed == (game.state == "won")
    assert video.bbbv == game.bbbv  # ms-toollib's own 3BV of the layout agrees with ours
    # Replaying the clicks, the reader opened exactly the cells our engine opened.
    ours = board_of(game_id).to_ascii()
    flagged = {(x, y) for y, row in enumerate(ours) for x, ch in enumerate(row) if ch in "MF"}
    assert flagged == {
        (x, y) for y, row in enumerate(video.game_board) for x, v in enumerate(row) if v == 11
    }
    assert video.flag == len(flagged)
    opened = {(x, y) for y, row in enumerate(video.game_board) for x, v in enumerate(row) if v <= 8}
    assert opened == {(x, y) for y, row in enumerate(ours) for x, ch in enumerate(row) if ch == "o"}


def test_a_won_game_reads_back_with_its_board_and_clicks(alice_api: APIClient) -> None:
    game_id = start(alice_api)["id"]
    right = _flags_and_chord(alice_api, game_id)
    assert win(alice_api, game_id)["state"] == "won"
    video = _evf(alice_api, game_id)
    _assert_same_game(video, game_id, right)
    assert video.bbbv_solved == video.bbbv
    assert (video.left, video.right, video.double) != (0, 0, 0)


def test_a_lost_game_reads_back_for_anyone(alice_api: APIClient) -> None:
    game_id = start(alice_api)["id"]
    right = _flags_and_chord(alice_api, game_id)
    x, y = mine_cell(board_of(game_id))
    if board_of(game_id).to_ascii()[y][x] == "M":  # a flagged mine: take the flag off first
        response = post(alice_api, game_id, "flag", {"x": x, "y": y, "flagged": False})
        assert response.status_code == 200, response.content
        right += 1
    response = post(alice_api, game_id, "reveal", {"x": x, "y": y})
    assert response.status_code == 200 and response.json()["game"]["state"] == "lost"
    _assert_same_game(_evf(APIClient(), game_id), game_id, right)  # a public read, like /moves


def test_a_running_game_has_no_replay_file(alice_api: APIClient) -> None:
    game_id = start(alice_api)["id"]
    assert_error(alice_api.get(f"/api/games/{game_id}/replay.evf"), 409, "game_not_over")
    assert_error(APIClient().get(f"/api/games/{game_id}/replay.evf"), 409, "game_not_over")


def test_a_race_game_stays_hidden_while_its_race_runs(alice_api: APIClient) -> None:
    game_id = start(alice_api)["id"]
    assert win(alice_api, game_id)["state"] == "won"
    Game.objects.filter(pk=game_id).update(sealed=True)  # as a running race seals its games
    for api in (APIClient(), alice_api):  # not even its player: the layout is the race's
        assert_error(api.get(f"/api/games/{game_id}/replay.evf"), 403, "race_running")


def test_an_unknown_game_is_404(alice_api: APIClient) -> None:
    for game_id in (uuid.uuid4(), "not-a-game"):
        assert_error(alice_api.get(f"/api/games/{game_id}/replay.evf"), 404, "not_found")
