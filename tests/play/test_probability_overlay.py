"""The replay's probability overlay (docs/ANALYSIS.md, The probability overlay): every closed
cell's chance of a mine at each step, right on positions worked out by hand, and in agreement
with ms-toollib's routine and with the analysis's own (each position rebuilt from scratch);
made with the analysis after the end, and answered by GET /api/games/{id}/probabilities only
then: never before the end, to nobody (the player, a spectator, a racer of the same race), and
for a race game not before the race's end."""

from __future__ import annotations

import io
import random

import ms_toollib
import pytest
from django.core.management import call_command
from django.utils import timezone

from games.engine import Board
from games.play.analysis import MoveIn, Position, probabilities
from games.play.analysis_jobs import AnalysisWorker
from games.play.models import GameProbabilities
from games.play.probabilities import OPEN, SCALE, overlay, quantise
from tests.support.boards import COIN, board_of, game_from_ascii, mine_cell
from tests.support.http import assert_error, post
from tests.support.races import racing, tick

_ = None  # an opened cell
BEFORE = [[0.12] * 5 for _row in range(5)]  # no number yet: 3 mines in 25 cells
AFTER_TAP = [[_] * 5] * 4 + [[0.5, 0.5, 1.0, 0.5, 0.5]]


def _moves(*taps: tuple[str, int, int, bool | None]) -> list[MoveIn]:
    return [MoveIn(i + 1, a, x, y, f) for i, (a, x, y, f) in enumerate(taps)]


def _rows(grid: bytes, width: int) -> list[list[float | None]]:
    return [
        [None if b == OPEN else b / SCALE for b in grid[y * width : (y + 1) * width]]
        for y in range(len(grid) // width)
    ]


def test_the_chances_of_a_position_worked_out_by_hand():
    made = overlay(
        width=5,
        height=5,
        layout=COIN,
        moves=_moves(
            ("reveal", 0, 0, None),
            ("pause", None, None, None),  # no step of the replay
            ("resume", None, None, None),
            ("flag", 2, 4, True),  # a flag is the player's opinion: the chances stay
            ("reveal", 1, 4, None),  # the coin lost
        ),
    )
    assert made.steps == 4 and made.exact
    assert _rows(made.grid(0), 5) == BEFORE
    assert _rows(made.grid(1), 5) == AFTER_TAP
    assert made.grid(2) == made.grid(1)
    # Lost on (1, 4): that mine is opened and known, so (0, 4) is safe and (4, 4) a mine.
    assert _rows(made.grid(3), 5)[4] == [0.0, None, 1.0, 0.0, 1.0]
    with pytest.raises(IndexError):
        made.grid(4)


@pytest.mark.parametrize(
    ("p", "byte"),
    [(0.0, 0), (1e-9, 1), (0.0024, 1), (0.5, 100), (0.12, 24), (0.9999, 199), (1.0, 200)],
)
def test_a_chance_is_kept_to_the_half_point_and_only_a_certainty_is_0_or_1(p, byte):
    assert quantise(p) == byte


def _bot_game(seed: int) -> tuple[list[str], list[MoveIn]]:
    """An Expert-sized game: a first tap, then reveals of random safe cells (cascades open the
    rest), ended after a dozen moves."""
    rng = random.Random(seed)
    board = Board.new(30, 16, 99)
    board.reveal(15, 8, rng)
    moves = [MoveIn(1, "reveal", 15, 8)]
    rows = board.to_ascii()
    safe = [(x, y) for y in range(16) for x in range(30) if rows[y][x] not in "*MX"]
    rng.shuffle(safe)
    for x, y in safe[:12]:
        moves.append(MoveIn(len(moves) + 1, "reveal", x, y))
    return rows, moves


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_chances_agree_with_ms_toollib_and_the_analysis_on_generated_positions(seed):
    layout, moves = _bot_game(seed)
    made = overlay(width=30, height=16, layout=layout, moves=moves)
    board = Board.from_ascii(["".join("*" if c in "*MX" else "." for c in r) for r in layout])
    for step, move in enumerate(moves, start=1):
        board.reveal(move.x, move.y)
        view = board.render(layout=False)
        grid = [[10 if c in "#F" else int(c) for c in row] for row in view]
        theirs, _ = ms_toollib.cal_probability_onboard(grid, 99.0)
        ours = _rows(made.grid(step), 30)
        # The position rebuilt from scratch by the analysis: the same bytes.
        flat = "".join(view)
        whole = probabilities(Position(30, 16, 99, flat)).p
        assert made.grid(step) == bytes(
            quantise(whole[i]) if c in "#F" else OPEN for i, c in enumerate(flat)
        )
        for y, row in enumerate(view):
            for x, c in enumerate(row):
                if c in "#F":
                    assert ours[y][x] == pytest.approx(theirs[y][x], abs=0.5 / SCALE + 1e-9)
                else:
                    assert ours[y][x] is None


# --------------------------------------------------------------------------- through the API


def _url(game_id: str, step: object = 1) -> str:
    return f"/api/games/{game_id}/probabilities?step={step}"


@pytest.mark.django_db
def test_after_the_end_and_the_analysis_each_step_is_answered_to_everyone(
    alice_api, bob_api, anon_api
):
    game = game_from_ascii(alice_api, COIN)
    for x, y in ((0, 0), (0, 4), (3, 4)):  # the coin survived, then the last safe cell
        post(alice_api, game["id"], "reveal", {"x": x, "y": y})
    # Ended, not analysed yet: nothing to show.
    assert_error(anon_api.get(_url(game["id"])), 404, "not_found")
    assert AnalysisWorker().run_once() == 1
    row = GameProbabilities.objects.get(game_id=game["id"])
    assert (row.steps, row.exact) == (4, True)
    for api in (alice_api, bob_api, anon_api):
        body = api.get(_url(game["id"])).json()
        assert (body["step"], body["steps"], body["width"], body["height"]) == (1, 4, 5, 5)
        assert body["p_mine"] == AFTER_TAP
    assert anon_api.get(_url(game["id"], 0)).json()["p_mine"] == BEFORE
    last = anon_api.get(_url(game["id"], 3)).json()["p_mine"]
    assert last[4] == [None, 1.0, 1.0, None, 1.0]  # the win: every closed cell a mine
    for bad in ("4", "-1", "x", "1.0", "", " 1", "²", "9" * 5000):
        assert_error(anon_api.get(_url(game["id"], bad)), 400, "invalid")
    assert_error(anon_api.get(f"/api/games/{game['id']}/probabilities"), 400, "invalid")
    assert_error(anon_api.get(_url("no-such-game")), 404, "not_found")
    # A game analysed before the overlay was kept gets it from the backlog command.
    GameProbabilities.objects.filter(game_id=game["id"]).delete()
    assert_error(anon_api.get(_url(game["id"])), 404, "not_found")
    out = io.StringIO()
    call_command("analyse_games", "--overlays", stdout=out, stderr=io.StringIO())
    assert "1 probability overlays made" in out.getvalue()
    assert anon_api.get(_url(game["id"])).json()["p_mine"] == AFTER_TAP


@pytest.mark.django_db
def test_a_running_game_has_no_overlay_for_anyone_even_one_stored(alice_api, bob_api, anon_api):
    game = game_from_ascii(alice_api, COIN)
    post(alice_api, game["id"], "reveal", {"x": 0, "y": 0})
    GameProbabilities.objects.create(
        game_id=game["id"], steps=2, chunk=32, offsets=[0], data=b"", exact=True
    )
    for api in (alice_api, bob_api, anon_api):
        body = assert_error(api.get(_url(game["id"])), 409, "game_not_over")
        assert "p_mine" not in body
        assert "probabilities" not in api.get(f"/api/games/{game['id']}").json()


@pytest.mark.django_db
def test_a_race_games_overlay_waits_for_the_race_even_for_a_finished_racer(
    alice_api, bob_api, anon_api
):
    race = racing(alice_api, [bob_api])
    mine, theirs = (r["game"] for r in race["racers"])
    ax, ay = mine_cell(board_of(mine))
    assert post(alice_api, mine, "reveal", {"x": ax, "y": ay}).json()["game"]["state"] == "lost"
    # Alice has finished, Bob still races on the same layout: nobody gets Alice's chances.
    for api in (alice_api, bob_api, anon_api):
        assert_error(api.get(_url(mine, 0)), 403, "race_running")
    # Bob's running game: hidden from the others, not over for himself.
    assert_error(alice_api.get(_url(theirs, 0)), 403, "race_running")
    assert_error(bob_api.get(_url(theirs, 0)), 409, "game_not_over")
    x, y = mine_cell(board_of(theirs))
    post(bob_api, theirs, "reveal", {"x": x, "y": y})
    tick(timezone.now())  # every racer is done: the race ends and its games unseal
    assert AnalysisWorker().run_once() == 2
    for api in (alice_api, bob_api, anon_api):
        body = api.get(_url(mine, 2)).json()
        assert body["steps"] == 3  # the server's opening, then Alice's fatal tap
        assert body["p_mine"][ay][ax] is None  # the mine she opened, known
