"""Moves through the REST API: what is refused, what is an accepted no-op, idempotency,
ownership (API.md, "What is refused and what is a no-op", Fine points; RULES.md)."""

from __future__ import annotations

import itertools

import pytest

from games.play.models import Game, Move
from tests.support.boards import game_from_ascii, layout, mines, safe_closed
from tests.support.http import assert_error, new_game, post, start

pytestmark = pytest.mark.django_db


def _seq(game_id: str) -> int:
    return Game.objects.get(pk=game_id).seq


def _number_cell(game_id: str, board: list[str], value: str | None = None) -> tuple[int, int]:
    for y, row in enumerate(board):
        for x, ch in enumerate(row):
            if ch in "12345678" and (value is None or ch == value):
                return x, y
    raise AssertionError("no opened number on the board")


def _zero_cell(board: list[str]) -> tuple[int, int]:
    for y, row in enumerate(board):
        for x, ch in enumerate(row):
            if ch == "0":
                return x, y
    raise AssertionError("no opened zero")


def _closed_neighbours(board: list[str], x: int, y: int) -> list[tuple[int, int]]:
    out = []
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            nx, ny = x + dx, y + dy
            if (
                (dx or dy)
                and 0 <= ny < len(board)
                and 0 <= nx < len(board[0])
                and board[ny][nx] == "#"
            ):
                out.append((nx, ny))
    return out


@pytest.mark.parametrize("action", ["flag", "chord"])
def test_flagging_or_chording_before_the_first_tap_is_refused(alice_api, action):
    game = new_game(alice_api)
    assert_error(post(alice_api, game["id"], action, {"x": 1, "y": 1}), 409, "game_not_started")
    assert Move.objects.count() == 0


@pytest.mark.parametrize("action", ["pause", "resume", "resign"])
def test_pause_resume_and_resign_before_the_first_tap_are_refused(alice_api, action):
    game = new_game(alice_api)
    assert_error(post(alice_api, game["id"], action), 409, "game_not_started")


def test_flags_toggle_and_explicit_values_are_no_ops_when_unchanged(alice_api):
    game = start(alice_api)
    cell = safe_closed(game["id"])[0] if safe_closed(game["id"]) else None
    x, y = cell or sorted(mines(game["id"]))[0]
    placed = post(alice_api, game["id"], "flag", {"x": x, "y": y}).json()
    assert placed["changes"] == [{"x": x, "y": y, "v": "F"}]
    assert placed["game"]["mines_left"] == 9 and placed["game"]["board"][y][x] == "F"
    again = post(alice_api, game["id"], "flag", {"x": x, "y": y, "flagged": True}).json()
    assert again["changes"] == [] and again["seq"] == placed["seq"] + 1
    removed = post(alice_api, game["id"], "flag", {"x": x, "y": y}).json()
    assert removed["changes"] == [{"x": x, "y": y, "v": "#"}]
    noop = post(alice_api, game["id"], "flag", {"x": x, "y": y, "flagged": False}).json()
    assert noop["changes"] == [] and noop["game"]["mines_left"] == 10


def test_the_mine_counter_goes_below_zero_with_too_many_flags(alice_api):
    game = start(alice_api)
    closed = [
        (x, y) for y, row in enumerate(game["board"]) for x, ch in enumerate(row) if ch == "#"
    ]
    for x, y in closed[:11]:
        post(alice_api, game["id"], "flag", {"x": x, "y": y})
    assert alice_api.get(f"/api/games/{game['id']}").json()["mines_left"] == -1


def test_flagging_an_opened_cell_is_refused(alice_api):
    game = start(alice_api)
    x, y = _zero_cell(game["board"])
    seq = _seq(game["id"])
    assert_error(post(alice_api, game["id"], "flag", {"x": x, "y": y}), 409, "cell_open")
    assert _seq(game["id"]) == seq


def test_revealing_a_flagged_or_opened_cell_is_an_accepted_no_op(alice_api):
    game = start(alice_api)
    x, y = _zero_cell(game["board"])
    answer = post(alice_api, game["id"], "reveal", {"x": x, "y": y})
    assert answer.status_code == 200, answer.content  # a refusal's code, should one come
    opened = answer.json()
    assert opened["changes"] == [] and opened["seq"] == 2
    mx, my = sorted(mines(game["id"]))[0]
    post(alice_api, game["id"], "flag", {"x": mx, "y": my})
    flagged = post(alice_api, game["id"], "reveal", {"x": mx, "y": my}).json()
    assert flagged["changes"] == [] and flagged["game"]["state"] == "playing"


def test_chording_a_closed_or_flagged_cell_is_refused(alice_api):
    game = start(alice_api)
    mx, my = sorted(mines(game["id"]))[0]
    assert_error(post(alice_api, game["id"], "chord", {"x": mx, "y": my}), 409, "cell_closed")
    post(alice_api, game["id"], "flag", {"x": mx, "y": my})
    assert_error(post(alice_api, game["id"], "chord", {"x": mx, "y": my}), 409, "cell_closed")


def test_a_chord_on_a_zero_or_with_the_wrong_flag_count_changes_nothing(alice_api):
    game = start(alice_api)
    zx, zy = _zero_cell(game["board"])
    assert post(alice_api, game["id"], "chord", {"x": zx, "y": zy}).json()["changes"] == []
    nx, ny = _number_cell(game["id"], game["board"])
    result = post(alice_api, game["id"], "chord", {"x": nx, "y": ny}).json()
    assert result["changes"] == [] and result["seq"] == 3


# A 6x5 board: the '2' at (1, 1) touches the mines (0, 0) and (2, 0) and the safe (0, 2).
CHORD_BOARD = [
    "*.*...",
    ".o....",
    "......",
    "......",
    "......",
]


def test_a_chord_with_the_right_flags_opens_the_other_neighbours(alice_api):
    game = game_from_ascii(alice_api, CHORD_BOARD)
    assert game["board"][1][1] == "2"
    post(alice_api, game["id"], "flag", {"x": 0, "y": 0})
    post(alice_api, game["id"], "flag", {"x": 2, "y": 0})
    result = post(alice_api, game["id"], "chord", {"x": 1, "y": 1}).json()
    opened = [(c["x"], c["y"]) for c in result["changes"]]
    # the neighbours in reading order; (0, 2) and the zeros below cascade
    assert opened[0] == (1, 0)
    assert {(0, 1), (2, 1), (0, 2), (1, 2), (2, 2)} <= set(opened)
    assert (0, 0) not in opened and (2, 0) not in opened
    assert result["game"]["state"] == "won"  # everything else is a cascade of zeros


def test_a_chord_with_one_flag_short_changes_nothing(alice_api):
    game = game_from_ascii(alice_api, CHORD_BOARD)
    post(alice_api, game["id"], "flag", {"x": 0, "y": 0})
    result = post(alice_api, game["id"], "chord", {"x": 1, "y": 1}).json()
    assert result["changes"] == [] and result["game"]["state"] == "playing"


def test_a_chord_with_a_wrong_flag_opens_a_mine_and_loses(alice_api):
    game = game_from_ascii(alice_api, CHORD_BOARD)
    post(alice_api, game["id"], "flag", {"x": 0, "y": 0})
    post(alice_api, game["id"], "flag", {"x": 1, "y": 0})  # wrong: (1, 0) is safe
    result = post(alice_api, game["id"], "chord", {"x": 1, "y": 1}).json()
    assert {"x": 2, "y": 0, "v": "X"} in result["changes"]
    assert (result["game"]["state"], result["game"]["end_reason"]) == ("lost", "mine")
    board = result["game"]["board"]
    assert (board[0][0], board[0][1], board[0][2]) == ("F", "!", "X")


def test_moves_on_an_ended_game_are_refused(alice_api):
    game = start(alice_api)
    post(alice_api, game["id"], "resign")
    for action in ("reveal", "flag", "chord"):
        assert_error(post(alice_api, game["id"], action, {"x": 0, "y": 0}), 409, "game_over")
    for action in ("pause", "resume", "resign"):
        assert_error(post(alice_api, game["id"], action), 409, "game_over")


def test_resigning_ends_the_game_lost_without_opening_a_mine(alice_api):
    game = start(alice_api)
    ended = post(alice_api, game["id"], "resign").json()
    assert (ended["state"], ended["end_reason"]) == ("lost", "resigned")
    assert "X" not in "".join(ended["board"])
    assert "".join(ended["board"]).count("*") == 10
    assert (
        alice_api.get(f"/api/games/{game['id']}/moves").json()["results"][-1]["action"] == "resign"
    )


def test_only_the_player_may_move_and_anonymous_moves_are_refused(alice_api, bob_api, anon_api):
    game = start(alice_api)
    for action, body in (("reveal", {"x": 0, "y": 0}), ("flag", {"x": 0, "y": 0}), ("pause", None)):
        assert_error(post(bob_api, game["id"], action, body), 403, "not_your_game")
        assert_error(post(anon_api, game["id"], action, body), 401, "not_authenticated")
    assert _seq(game["id"]) == 1


@pytest.mark.parametrize(
    "body",
    [
        {"x": "1", "y": 1},
        {"x": 1.0, "y": 1},
        {"x": True, "y": 1},
        {"x": None, "y": 1},
        {"x": 1},
        {"x": [1], "y": 1},
        {"x": 1, "y": 1, "client_move_id": 7},
        {"x": 1, "y": 1, "client_move_id": "x" * 65},
        {"x": 1, "y": 1, "client_move_id": ""},
    ],
)
def test_malformed_moves_are_refused_with_400(alice_api, body):
    game = start(alice_api)
    response = post(alice_api, game["id"], "reveal", body)
    assert_error(response, 400, "invalid")
    assert _seq(game["id"]) == 1


@pytest.mark.parametrize("x, y", [(-1, 0), (9, 0), (0, 9), (10**30, 0), (0, -(10**30))])
def test_cells_outside_the_board_are_refused_with_400(alice_api, x, y):
    game = start(alice_api)
    response = post(alice_api, game["id"], "reveal", {"x": x, "y": y})
    assert response.status_code == 400
    assert response.json()["error"]["code"] in ("out_of_bounds", "invalid")
    assert _seq(game["id"]) == 1


def test_flagged_must_be_a_boolean(alice_api):
    game = start(alice_api)
    assert_error(
        post(alice_api, game["id"], "flag", {"x": 0, "y": 0, "flagged": "yes"}), 400, "invalid"
    )
    assert_error(
        post(alice_api, game["id"], "flag", {"x": 0, "y": 0, "flagged": 1}), 400, "invalid"
    )


def test_a_client_move_id_makes_a_move_idempotent(alice_api):
    game = new_game(alice_api)
    first = post(
        alice_api, game["id"], "reveal", {"x": 4, "y": 4, "client_move_id": "tap-1"}
    ).json()
    again = post(
        alice_api, game["id"], "reveal", {"x": 4, "y": 4, "client_move_id": "tap-1"}
    ).json()
    assert again["seq"] == first["seq"] == 1
    assert again["changes"] == first["changes"]
    assert Move.objects.filter(game_id=game["id"]).count() == 1
    assert_error(
        post(alice_api, game["id"], "reveal", {"x": 3, "y": 4, "client_move_id": "tap-1"}),
        409,
        "idempotency_conflict",
    )
    assert_error(
        post(alice_api, game["id"], "flag", {"x": 4, "y": 4, "client_move_id": "tap-1"}),
        409,
        "idempotency_conflict",
    )


def test_a_replay_answers_the_original_result_even_after_the_end(alice_api):
    game = start(alice_api)
    mx, my = sorted(mines(game["id"]))[0]
    flagged = post(
        alice_api, game["id"], "flag", {"x": mx, "y": my, "flagged": True, "client_move_id": "f"}
    ).json()
    post(alice_api, game["id"], "resign")
    replay = post(
        alice_api, game["id"], "flag", {"x": mx, "y": my, "flagged": True, "client_move_id": "f"}
    )
    assert replay.status_code == 200
    assert replay.json()["seq"] == flagged["seq"] and replay.json()["changes"] == flagged["changes"]
    assert replay.json()["game"]["state"] == "lost"
    assert_error(
        post(alice_api, game["id"], "flag", {"x": mx, "y": my, "client_move_id": "f"}),
        409,
        "idempotency_conflict",
    )


def test_the_same_client_move_id_is_free_in_another_game(alice_api):
    one = new_game(alice_api, "beginner")
    two = new_game(alice_api, "expert")
    a = post(alice_api, one["id"], "reveal", {"x": 1, "y": 1, "client_move_id": "same"})
    b = post(alice_api, two["id"], "reveal", {"x": 1, "y": 1, "client_move_id": "same"})
    assert a.status_code == b.status_code == 200


def test_moves_are_listed_in_order_with_the_game_clock(alice_api, anon_api):
    game = start(alice_api)
    x, y = sorted(mines(game["id"]))[0]
    post(alice_api, game["id"], "flag", {"x": x, "y": y})
    post(alice_api, game["id"], "pause")
    post(alice_api, game["id"], "pause")  # no-op: no seq
    post(alice_api, game["id"], "resume")
    post(alice_api, game["id"], "resume")  # no-op: no seq
    moves = anon_api.get(f"/api/games/{game['id']}/moves").json()
    assert moves["count"] == 4
    rows = moves["results"]
    assert [m["seq"] for m in rows] == [1, 2, 3, 4]
    assert [m["action"] for m in rows] == ["reveal", "flag", "pause", "resume"]
    assert (rows[2]["x"], rows[2]["y"], rows[3]["x"]) == (None, None, None)
    assert rows[0]["at_ms"] == 0
    assert all(a["at_ms"] <= b["at_ms"] for a, b in itertools.pairwise(rows))
    assert set(rows[0]) == {"seq", "action", "x", "y", "at_ms", "flagged"}
    assert rows[1]["flagged"] is None  # a toggle


def test_the_hidden_layout_does_not_change_between_moves(alice_api):
    game = start(alice_api)
    before = [row.replace("o", ".") for row in layout(game["id"])]
    x, y = sorted(mines(game["id"]))[0]
    post(alice_api, game["id"], "flag", {"x": x, "y": y})
    after = [
        row.replace("o", ".").replace("M", "*").replace("F", ".") for row in layout(game["id"])
    ]
    assert before == after


def test_flag_reveal_and_resign_answer_with_a_trailing_slash(alice_api):
    game = start(alice_api)
    x, y = sorted(mines(game["id"]))[0]
    body = {"x": x, "y": y}
    for action in ("flag/", "flag/", "reveal/"):  # flag, unflag, reveal: a mine, lost
        response = alice_api.post(f"/api/games/{game['id']}/{action}", body, format="json")
        assert response.status_code == 200, response.content
    assert_error(alice_api.post(f"/api/games/{game['id']}/resign/"), 409, "game_over")
