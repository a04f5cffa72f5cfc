"""The community's counters of a game in result_stats (docs/STATS.md, "The counters of a game"),
on hand-made games whose every value is worked out below, by hand, from the layout and the
clicks. The layout, 5 x 5 with one mine at (1, 1):

    y0  1 1 1 0 0      (0,0), (1,0) and (0,1) touch no zero: three lone numbers;
    y1  1 * 1 0 0      every other number touches the one opening (the zeros).
    y2  1 1 1 0 0      3BV = 1 opening + 3 lone numbers = 4.
    y3  0 0 0 0 0      ZiNi = 4 as well: each lone number takes a click of its own (a chord
    y4  0 0 0 0 0      beside them opens at most one of them, after a flag that costs one).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from rest_framework.test import APIClient

from games.play.counters import COUNT_COLUMNS
from games.play.models import Game
from tests.support.boards import game_from_ascii
from tests.support.http import post

pytestmark = pytest.mark.django_db

LAYOUT = [".....", ".*...", ".....", ".....", "....."]
LONE = [(0, 0), (1, 0), (0, 1)]  # the lone numbers


def _play(api: APIClient, clicks: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    """A game of LAYOUT, started 2 s ago, through `clicks`; the ended Game as anyone sees it."""
    game = game_from_ascii(api, LAYOUT)
    gid = game["id"]
    Game.objects.filter(pk=gid).update(
        started_at=Game.objects.get(pk=gid).started_at - timedelta(seconds=2)
    )
    for action, body in clicks:
        response = post(api, gid, action, body)
        assert response.status_code == 200, response.content
    final = APIClient().get(f"/api/games/{gid}").json()
    assert final["state"] in ("won", "lost")
    return final


def _rqp(game: dict[str, Any], bbbv: int) -> float:
    """RQP = time / (3BV/s) = time² / 3BV, the time in seconds."""
    seconds = game["elapsed_ms"] / 1000
    return seconds / (bbbv / seconds)


def test_a_win_with_wasted_clicks_a_wrong_flag_and_chords(alice_api: APIClient) -> None:
    final = _play(
        alice_api,
        [
            ("reveal", {"x": 4, "y": 4}),  # 1 the opening: effective, 3BV 1 of 4
            ("reveal", {"x": 4, "y": 4}),  # 2 an opened cell: a no-op, wasted
            ("flag", {"x": 0, "y": 0}),  # 3 a flag on a safe cell: placed, effective
            ("flag", {"x": 0, "y": 0}),  # 4 taken off again: effective
            ("flag", {"x": 1, "y": 1}),  # 5 the mine: placed, effective
            ("chord", {"x": 1, "y": 2}),  # 6 the 1 under the flag opens (0, 1): effective
            ("chord", {"x": 1, "y": 2}),  # 7 nothing closed around it any more: wasted
            ("reveal", {"x": 0, "y": 0}),  # 8 a lone number: effective
            ("reveal", {"x": 1, "y": 0}),  # 9 the last lone number: the win
        ],
    )
    assert final["state"] == "won"
    stats = final["result_stats"]
    assert (stats["bbbv"], stats["bbbv_solved"], stats["clicks"]) == (4, 4, 9)
    assert (stats["reveal_clicks"], stats["flag_clicks"], stats["chord_clicks"]) == (4, 3, 2)
    assert (stats["effective_clicks"], stats["wasted_clicks"]) == (7, 2)  # steps 2 and 7
    assert (stats["flags_used"], stats["no_flags"]) == (2, False)  # steps 3 and 5
    assert stats["ioe"] == stats["efficiency"] == 0.444  # 4 / 9
    assert stats["correctness"] == 0.778  # 7 / 9
    assert stats["throughput"] == 0.571  # 4 / 7
    assert stats["zini"] == 4
    assert stats["zini_efficiency"] == 0.444  # 4 / 9
    assert final["elapsed_ms"] >= 2000
    assert stats["rqp"] == pytest.approx(_rqp(final, 4), abs=0.001)


def test_a_win_without_flags_is_nf_and_every_click_counts(alice_api: APIClient) -> None:
    final = _play(
        alice_api,
        [("reveal", {"x": 4, "y": 4})] + [("reveal", {"x": x, "y": y}) for x, y in LONE],
    )
    stats = final["result_stats"]
    assert (stats["clicks"], stats["reveal_clicks"], stats["flag_clicks"]) == (4, 4, 0)
    assert (stats["chord_clicks"], stats["effective_clicks"], stats["wasted_clicks"]) == (0, 4, 0)
    assert (stats["flags_used"], stats["no_flags"]) == (0, True)
    assert stats["ioe"] == stats["correctness"] == stats["throughput"] == 1.0  # 4/4 each
    assert stats["zini_efficiency"] == 1.0  # 4 / 4


def test_a_loss_counts_its_clicks_and_has_no_rqp_nor_zini_efficiency(alice_api: APIClient) -> None:
    final = _play(
        alice_api,
        [
            ("reveal", {"x": 4, "y": 4}),  # the opening: effective, 3BV 1
            ("flag", {"x": 1, "y": 1}),  # placed: effective
            ("flag", {"x": 1, "y": 1}),  # taken off: effective
            ("reveal", {"x": 1, "y": 1}),  # the mine: the loss, wasted (it opened no safe cell)
        ],
    )
    assert (final["state"], final["end_reason"]) == ("lost", "mine")
    stats = final["result_stats"]
    assert (stats["bbbv_solved"], stats["clicks"]) == (1, 4)
    assert (stats["reveal_clicks"], stats["flag_clicks"], stats["chord_clicks"]) == (2, 2, 0)
    assert (stats["effective_clicks"], stats["wasted_clicks"]) == (3, 1)
    assert (stats["flags_used"], stats["no_flags"]) == (1, False)
    assert stats["ioe"] == 0.25  # 1 / 4
    assert stats["correctness"] == 0.75  # 3 / 4
    assert stats["throughput"] == 0.333  # 1 / 3
    assert (stats["rqp"], stats["zini"], stats["zini_efficiency"]) == (None, 4, None)


def test_a_game_from_before_the_counters_shows_them_null(alice_api: APIClient) -> None:
    game = game_from_ascii(alice_api, LAYOUT)
    Game.objects.filter(pk=game["id"]).update(**dict.fromkeys(COUNT_COLUMNS, None))
    post(alice_api, game["id"], "reveal", {"x": 4, "y": 4})
    post(alice_api, game["id"], "resign")
    stats = alice_api.get(f"/api/games/{game['id']}").json()["result_stats"]
    assert (stats["clicks"], stats["ioe"], stats["zini"]) == (1, 1.0, 4)  # 1 solved / 1 click
    uncounted = ("reveal_clicks", "effective_clicks", "wasted_clicks", "flags_used", "no_flags")
    assert [stats[key] for key in uncounted] == [None] * len(uncounted)
    assert (stats["correctness"], stats["throughput"]) == (None, None)
    stored = Game.objects.get(pk=game["id"])
    assert (stored.reveal_clicks, stored.effective_clicks) == (None, None)
