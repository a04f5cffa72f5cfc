"""API.md, "What is refused and what is a no-op" and Fine points, move by move: refusals take
no `seq` and store nothing, accepted no-ops take one, pause/resume no-ops take none; every
reused `client_move_id` with any difference is a conflict; `changes` come in the order the
server opened the cells. Checked against the stored game and on drawn layouts (the
black-box part: tests/contract/test_moves.py)."""

from __future__ import annotations

from typing import Any

import pytest

from games.play.models import Game, Move
from tests.support.boards import game_from_ascii, mines
from tests.support.http import assert_error, new_game, post, start

pytestmark = pytest.mark.django_db


def _stored(game_id: str) -> tuple[int, int, int]:
    game = Game.objects.get(pk=game_id)
    return game.seq, game.clicks, Move.objects.filter(game_id=game_id).count()


def _moves(api: Any, game_id: str) -> list[dict[str, Any]]:
    return api.get(f"/api/games/{game_id}/moves").json()["results"]


@pytest.mark.parametrize(
    ("action", "code"),
    [("flag", "game_not_started"), ("chord", "game_not_started")],
)
def test_a_move_before_the_first_tap_is_refused_and_takes_no_seq(alice_api, action, code):
    game = new_game(alice_api)
    assert_error(post(alice_api, game["id"], action, {"x": 0, "y": 0}), 409, code)
    assert _stored(game["id"]) == (0, 0, 0)


@pytest.mark.parametrize("action", ["pause", "resume", "resign"])
def test_pause_resume_and_resign_before_the_first_tap_are_game_not_started(alice_api, action):
    game = new_game(alice_api)
    assert_error(post(alice_api, game["id"], action), 409, "game_not_started")
    assert _stored(game["id"]) == (0, 0, 0)
    assert alice_api.get(f"/api/games/{game['id']}").json()["state"] == "new"


def test_each_refusal_has_its_status_and_code_and_takes_no_seq(alice_api, bob_api):
    game = game_from_ascii(alice_api, BOARD)
    gid = game["id"]
    refusals = [
        (bob_api, "reveal", {"x": 3, "y": 3}, 403, "not_your_game"),
        (alice_api, "reveal", {"x": 6, "y": 0}, 400, "out_of_bounds"),
        (alice_api, "reveal", {"x": "1", "y": 0}, 400, "invalid"),
        (alice_api, "flag", {"x": 1, "y": 1}, 409, "cell_open"),
        (alice_api, "chord", {"x": 3, "y": 0}, 409, "cell_closed"),
    ]
    for api, action, body, status, code in refusals:
        assert_error(post(api, gid, action, body), status, code)
    assert _stored(gid) == (0, 0, 0)
    post(alice_api, gid, "flag", {"x": 0, "y": 0})
    # A chord on a flagged cell is a chord on a closed cell.
    assert_error(post(alice_api, gid, "chord", {"x": 0, "y": 0}), 409, "cell_closed")
    post(alice_api, gid, "pause")
    assert_error(post(alice_api, gid, "reveal", {"x": 3, "y": 3}), 409, "game_paused")
    assert_error(post(alice_api, gid, "flag", {"x": 3, "y": 3}), 409, "game_paused")
    assert_error(post(alice_api, gid, "chord", {"x": 1, "y": 1}), 409, "game_paused")
    post(alice_api, gid, "resign")
    for action in ("reveal", "flag", "chord"):
        assert_error(post(alice_api, gid, action, {"x": 1, "y": 1}), 409, "game_over")
    for action in ("pause", "resume", "resign"):
        assert_error(post(alice_api, gid, action), 409, "game_over")
    assert [m["action"] for m in _moves(alice_api, gid)] == ["flag", "pause", "resign"]


def test_accepted_no_ops_answer_200_with_a_seq_and_no_changes(alice_api):
    game = game_from_ascii(alice_api, BOARD)
    gid = game["id"]
    post(alice_api, gid, "flag", {"x": 0, "y": 0})  # seq 1
    no_ops = [
        ("reveal", {"x": 1, "y": 1}),  # an opened cell
        ("reveal", {"x": 0, "y": 0}),  # a flagged cell
        ("chord", {"x": 1, "y": 1}),  # one flag around a 2
        ("flag", {"x": 0, "y": 0, "flagged": True}),  # already flagged
        ("flag", {"x": 2, "y": 0, "flagged": False}),  # not flagged
    ]
    for seq, (action, body) in enumerate(no_ops, start=2):
        result = post(alice_api, gid, action, body)
        assert result.status_code == 200, result.content
        answer = result.json()
        assert (answer["seq"], answer["changes"]) == (seq, [])
        assert answer["game"]["seq"] == seq and answer["game"]["state"] == "playing"
    # every accepted reveal, flag and chord is a click, no-ops included
    assert _stored(gid) == (6, 6, 6)


def test_pause_and_resume_no_ops_answer_200_take_no_seq_and_are_not_listed(alice_api):
    game = start(alice_api)
    gid = game["id"]
    running = post(alice_api, gid, "resume")
    assert running.status_code == 200 and running.json()["state"] == "playing"
    assert running.json()["seq"] == 1
    assert post(alice_api, gid, "pause").json()["seq"] == 2
    again = post(alice_api, gid, "pause")
    assert again.status_code == 200
    assert (again.json()["seq"], again.json()["state"], again.json()["board"]) == (
        2,
        "paused",
        None,
    )
    assert post(alice_api, gid, "resume").json()["seq"] == 3
    moves = _moves(alice_api, gid)
    assert [(m["seq"], m["action"]) for m in moves] == [(1, "reveal"), (2, "pause"), (3, "resume")]
    assert all(m["x"] is None and m["y"] is None for m in moves[1:])
    assert _stored(gid)[1] == 1  # pause and resume are not clicks


@pytest.mark.parametrize(
    "second",
    [
        {"action": "flag", "x": 0, "y": 0, "flagged": False},  # flagged differs
        {"action": "flag", "x": 0, "y": 0},  # a toggle instead of flagged: true
        {"action": "flag", "x": 2, "y": 0, "flagged": True},  # the cell differs
        {"action": "reveal", "x": 0, "y": 0},  # the action differs
        {"action": "chord", "x": 0, "y": 0},
    ],
)
def test_a_reused_client_move_id_with_any_difference_is_idempotency_conflict(alice_api, second):
    game = game_from_ascii(alice_api, BOARD)
    gid = game["id"]
    first = post(alice_api, gid, "flag", {"x": 0, "y": 0, "flagged": True, "client_move_id": "m"})
    assert first.status_code == 200
    action = second.pop("action")
    body = {**second, "client_move_id": "m"}
    assert_error(post(alice_api, gid, action, body), 409, "idempotency_conflict")
    assert _stored(gid) == (1, 1, 1)


def test_a_replay_answers_the_original_changes_and_seq_with_the_game_as_it_is_now(alice_api):
    game = game_from_ascii(alice_api, BOARD)
    gid = game["id"]
    body = {"x": 5, "y": 4, "client_move_id": "open"}
    first = post(alice_api, gid, "reveal", body).json()
    assert first["changes"] and first["seq"] == 1
    post(alice_api, gid, "flag", {"x": 0, "y": 0})
    replay = post(alice_api, gid, "reveal", body).json()
    assert (replay["seq"], replay["changes"]) == (first["seq"], first["changes"])
    assert replay["game"]["seq"] == 2 and replay["game"]["board"][0][0] == "F"
    post(alice_api, gid, "resign")
    after_end = post(alice_api, gid, "reveal", body).json()
    assert (after_end["seq"], after_end["changes"]) == (first["seq"], first["changes"])
    assert after_end["game"]["state"] == "lost"
    assert _stored(gid)[0] == 3


def test_changes_list_the_cells_in_the_order_the_cascade_opened_them(alice_api):
    # One mine in a corner: a tap on the far corner opens every other cell, breadth-first.
    game = game_from_ascii(alice_api, [".....", ".....", ".....", ".....", "....*"])
    answer = post(alice_api, game["id"], "reveal", {"x": 0, "y": 0}).json()
    cells = [(c["x"], c["y"], c["v"]) for c in answer["changes"]]
    assert cells[0] == (0, 0, "0")
    assert len(cells) == 24 and len(set(cells)) == 24
    distance = [max(x, y) for x, y, _ in cells]  # rings around (0, 0) in breadth-first order
    assert distance == sorted(distance)
    assert answer["game"]["state"] == "won"


def test_a_chord_lists_its_neighbours_in_reading_order_each_with_its_cascade(alice_api):
    game = game_from_ascii(alice_api, BOARD)
    gid = game["id"]
    post(alice_api, gid, "flag", {"x": 0, "y": 0})
    post(alice_api, gid, "flag", {"x": 2, "y": 0})
    answer = post(alice_api, gid, "chord", {"x": 1, "y": 1}).json()
    cells = [(c["x"], c["y"]) for c in answer["changes"]]
    # (1, 0) is the first closed unflagged neighbour in reading order; (0, 1) next.
    assert cells[:2] == [(1, 0), (0, 1)]
    assert len(cells) == len(set(cells)) == 27  # 30 cells - 2 mines - the chorded 2


def test_a_losing_move_shows_its_mine_in_changes_and_the_rest_only_in_the_board(alice_api):
    game = game_from_ascii(alice_api, BOARD)
    answer = post(alice_api, game["id"], "reveal", {"x": 0, "y": 0}).json()
    assert answer["changes"] == [{"x": 0, "y": 0, "v": "X"}]
    assert answer["game"]["board"][0][:3] == "X#*"


def test_flag_changes_show_the_flag_placed_and_removed(alice_api):
    game = start(alice_api)
    x, y = sorted(mines(game["id"]))[0]
    placed = post(alice_api, game["id"], "flag", {"x": x, "y": y}).json()
    removed = post(alice_api, game["id"], "flag", {"x": x, "y": y}).json()
    assert placed["changes"] == [{"x": x, "y": y, "v": "F"}]
    assert removed["changes"] == [{"x": x, "y": y, "v": "#"}]


def test_the_moves_list_is_a_page_of_50_by_default_and_page_size_is_clamped_to_200(
    alice, alice_api, anon_api
):
    from games.play import services

    game = start(alice_api)
    x, y = sorted(mines(game["id"]))[0]
    for _ in range(204):
        services.game_move(game_id=game["id"], player=alice, action="flag", x=x, y=y)
    first = anon_api.get(f"/api/games/{game['id']}/moves").json()
    assert set(first) == {"count", "next", "previous", "results"}
    assert first["count"] == 205 and len(first["results"]) == 50 and first["previous"] is None
    big = anon_api.get(f"/api/games/{game['id']}/moves", {"page_size": 1000}).json()
    assert [m["seq"] for m in big["results"]] == list(range(1, 201))
    last = anon_api.get(big["next"]).json()
    assert [m["seq"] for m in last["results"]] == list(range(201, 206))
    assert last["next"] is None and last["previous"] is not None
    listed = anon_api.get("/api/games", {"page_size": 1000}).json()
    assert set(listed) == {"count", "next", "previous", "results"}


# A 6x5 board: the '2' at (1, 1) touches the mines (0, 0) and (2, 0); '1' at (3, 1).
BOARD = [
    "*.*...",
    ".o....",
    "......",
    "......",
    "......",
]
