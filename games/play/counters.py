"""The community's counters of one game (docs/STATS.md, "The counters of a game"): its clicks
split by kind, the effective ones, the flags placed and the layout's ZiNi, and the ratios the
World Minesweeper Rankings and minesweepergame.com's statistics page derive from them (IOE,
correctness, throughput, RQP, ZiNi efficiency).

Stored, not recomputed: each move adds to the game's counts in the row write the move already
makes (`count_move`, no query of its own), and the ZiNi is computed once, when the game ends
(`zini_of`). The ratios are divisions of stored integers, made where result_stats is shown
(`counters_dict`), so they cannot drift from the counts they come from.

A game that started before these counts existed has them null, and shows null counters."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from games.engine import Board
from games.play.models import Action, Game, GameState

# Game's columns that `count_move` keeps, by move action.
_KIND_COLUMN = {
    Action.REVEAL: "reveal_clicks",
    Action.FLAG: "flag_clicks",
    Action.CHORD: "chord_clicks",
}
COUNT_COLUMNS = (*_KIND_COLUMN.values(), "effective_clicks", "flags_placed")


def effective(action: str, changes: Sequence[dict[str, Any]]) -> bool:
    """Whether a click changed the board (minesweepergame.com: "Effective means the click
    changed the state of the board"): a reveal or chord that opened a safe cell, a flag
    click that placed or took off a flag. A reveal that opens a mine solved nothing: wasted."""
    if action == Action.FLAG:
        return bool(changes)
    return any(change["v"] != "X" for change in changes)


def placed_flag(action: str, changes: Sequence[dict[str, Any]]) -> bool:
    return action == Action.FLAG and bool(changes) and changes[0]["v"] == "F"


def _counted(action: str, changes: Sequence[dict[str, Any]]) -> tuple[str, bool, bool]:
    """One click's share of the counts: its kind's column, whether it was effective, whether
    it placed a flag."""
    return _KIND_COLUMN[Action(action)], effective(action, changes), placed_flag(action, changes)


def count_move(game: Game, action: str, changes: Sequence[dict[str, Any]]) -> None:
    """Add one accepted reveal, flag or chord to the game's counts (a game whose counts are
    null started before they were kept: it stays uncounted)."""
    if game.effective_clicks is None:
        return
    column, was_effective, placed = _counted(action, changes)
    setattr(game, column, (getattr(game, column) or 0) + 1)
    game.effective_clicks += was_effective
    if placed:
        game.flags_placed = (game.flags_placed or 0) + 1


def counts_of(moves: Iterable[tuple[str, Sequence[dict[str, Any]]]]) -> dict[str, int]:
    """The counts of a whole game from its (action, changes) in order: what `count_move`
    leaves on a game that counted them all (the integrity check and the tests replay it)."""
    out = dict.fromkeys(COUNT_COLUMNS, 0)
    for action, changes in moves:
        if action not in _KIND_COLUMN:
            continue
        column, was_effective, placed = _counted(action, changes)
        out[column] += 1
        out["effective_clicks"] += was_effective
        out["flags_placed"] += placed
    return out


def zini_of(width: int, height: int, mines: Iterable[tuple[int, int]]) -> int:
    """The layout's ZiNi: ms-toollib's greedy ZiNi, the fewest clicks (reveals, flags and
    chords) its greedy walk needs to clear the board. About 1 ms on Marathon, 30 ms on the
    densest 100 x 100 custom board."""
    import ms_toollib  # a pinned dependency (pyproject.toml), kept out of the engine

    grid = [[0] * width for _ in range(height)]
    for x, y in mines:
        grid[y][x] = -1
    # Board(...).zini is cal_zini's greedy ZiNi (the stub of cal_zini names an argument the
    # function does not take).
    return int(ms_toollib.Board(ms_toollib.cal_board_numbers(grid)).zini)


def board_zini(board: Board) -> int:
    """`zini_of` the layout of a board whose mines are placed."""
    rows = board.to_ascii()
    mines = ((x, y) for y, row in enumerate(rows) for x, ch in enumerate(row) if ch in "*MX")
    return zini_of(board.width, board.height, mines)


def _ratio(top: float | None, bottom: float | None) -> float | None:
    return round(top / bottom, 3) if top is not None and bottom else None


def counters_dict(game: Game) -> dict[str, Any]:
    """The counters' part of result_stats (API.md extended; docs/STATS.md): null where the game
    was not counted, and each ratio null where its divisor is 0 or the game has none."""
    counted = game.effective_clicks is not None
    clicks = game.clicks  # API.md's, counted on every game
    solved = game.bbbv_solved or 0
    won = game.state == GameState.WON
    speed = game.bbbv_per_s
    wasted = clicks - game.effective_clicks if game.effective_clicks is not None else None
    return {
        "reveal_clicks": game.reveal_clicks if counted else None,
        "flag_clicks": game.flag_clicks if counted else None,
        "chord_clicks": game.chord_clicks if counted else None,
        "effective_clicks": game.effective_clicks,
        "wasted_clicks": wasted,
        "flags_used": game.flags_placed if counted else None,
        "no_flags": won and game.flags_placed == 0 if counted else None,
        "ioe": _ratio(solved, clicks),
        "correctness": _ratio(game.effective_clicks, clicks),
        "throughput": _ratio(solved, game.effective_clicks),
        # RQP = time / (3BV/s), in seconds: only where a 3BV/s is (a win in more than 0 ms).
        "rqp": _ratio((game.elapsed_ms or 0) / 1000, speed) if won and speed else None,
        "zini": game.zini,
        # The ZiNi of the whole layout against the clicks: a win's only (a loss cleared part).
        "zini_efficiency": _ratio(game.zini, clicks) if won else None,
    }
