"""The replay page's Download EVF button, in real Chromium: the file it downloads is the
game's, as ms-toollib reads it (the format itself: tests/play/test_evf_export.py)."""

from __future__ import annotations

import gc
from pathlib import Path
from typing import Any

import ms_toollib
from playwright.sync_api import expect

from tests.support.boards import mines_of
from tests.support.browser import (
    finished_beginner_with_flag_moves,
    layout_after_first_tap,
    sign_up_by_api,
)


def test_the_replay_page_downloads_the_game_as_evf(desktop: Any, tmp_path: Path) -> None:
    sign_up_by_api(desktop, "evelyn")
    game_id, _ = finished_beginner_with_flag_moves(desktop, "evelyn")
    page = desktop.new_page()
    page.goto(f"/games/{game_id}/replay")
    button = page.locator("#download-evf")
    expect(button).to_be_visible()
    with page.expect_download() as download:
        button.click()
    assert download.value.suggested_filename == f"demineur-{game_id}.evf"
    path = tmp_path / "game.evf"
    download.value.save_as(path)
    video = ms_toollib.EvfVideo(str(path))
    video.parse()
    video.analyse()
    video.current_time = 1e6
    mines = {(x, y) for y, row in enumerate(video.board) for x, v in enumerate(row) if v == -1}
    assert mines == mines_of(layout_after_first_tap(9, 9, 10, 4, 4))
    assert video.player_identifier == "evelyn"
    # A tap, then flag a, a no-op (no click), flag b, unflag b; the resignation is no click.
    assert (video.left, video.right, video.double) == (1, 3, 0)
    assert not video.is_completed
    # ms-toollib's EvfVideo may only be dropped on the thread that made it (a Rust object that
    # cannot change threads). Left to the garbage collector, it was once collected on another
    # thread during a later test of the worker, an unraisable RuntimeError in pytest's report:
    # it goes here, with any cycle it is in.
    del video
    gc.collect()
