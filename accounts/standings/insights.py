"""Insights (docs/STATS.md, Insights): what a player's analysed solo games add up to, per
statistics bucket and month of the games' ends (UTC), and where on the board they guessed.

The sums are kept, never recomputed on a read: `record_game` adds one game's share to its
bucket's row (accounts.standings.models.PlayerInsight) in the transaction that stores the
game's analysis (games.play.analysis_jobs), and `insights_by_level` reads at most seven rows,
whatever the number of games. A row holds one entry per month its player had an analysed game
in that bucket, and one heat grid.

The rooms' line: this module knows nothing of games. The analysis worker hands it plain
figures: each labelled move's label, the game clock since the player's move before it, and its
cell (`Labelled`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import transaction

from accounts.models import STATS_BUCKETS
from accounts.standings.models import PlayerInsight
from accounts.standings.records import base_level, bucket_for
from accounts.standings.stats import lock_bucket_row
from demineur_site.db_router import lagging_reads
from games.engine import LEVELS

# The analysis' labels (games.play.analysis; this room may not import it).
DEDUCED = "deduced"
FORCED_GUESS = "forced_guess"
AVOIDABLE_GUESS = "avoidable_guess"

# A wait between two moves counts as this much at most: past a minute the player was away,
# not thinking, and one coffee break would outweigh a month of moves.
THINK_CAP_MS = 60_000
# Custom boards, of any size, share one grid of positions: a cell is counted where it lies
# across and down its board, in tenths.
CUSTOM_GRID = 10
# The months an answer lists per level, the newest. A row keeps only these apart: the older
# months are summed into one entry, EARLIER, so that a row's size (and a read's cost) stays the
# same however many years its player has played. The totals count them all.
MONTHS_SHOWN = 24
EARLIER = "earlier"

# A month's sums (PlayerInsight.months: a list, in this order, so that a row of ten years
# stays small to read), all added game by game:
MONTH_KEYS = (
    "games",  # analysed games
    "wins",
    "moves",  # labelled reveals and chords, the first tap left out
    "deduced",
    "forced",  # forced guesses
    "avoidable",  # avoidable guesses
    "think_deduced_ms",  # the think time of deduced moves, summed, and how many
    "think_deduced_n",
    "think_guess_ms",  # of guesses (forced or avoidable)
    "think_guess_n",
    "speed_sum",  # 3BV/s of won games, summed, and how many had one
    "speed_n",
    "ioe_sum",  # IOE of won games, summed, and how many had one
    "ioe_n",
    "flips_won",  # the coin flips (docs/STATS.md, Luck, measured)
    "flips_lost",
    "expected",
)

Months = dict[str, list[float]]
_AT = {key: i for i, key in enumerate(MONTH_KEYS)}


@dataclass(frozen=True)
class Labelled:
    """One labelled move of a game: its label, the game clock since the player's move before
    it (None for the first tap, which nothing came before), and its cell."""

    label: str
    think_ms: int | None
    x: int
    y: int


@dataclass(frozen=True)
class GameShare:
    """What one analysed game adds to its bucket: its month's sums and the cells it guessed
    on (on the bucket's grid)."""

    month: str
    sums: dict[str, float]
    grid: tuple[int, int]
    cells: tuple[int, ...]  # indexes into the grid, row by row


def grid_for(level: str) -> tuple[int, int]:
    """The heat grid of a game's bucket: its level's board, or CUSTOM_GRID square.

    >>> grid_for("expert"), grid_for("custom")
    ((30, 16), (10, 10))
    """
    spec = LEVELS.get(level)
    if spec is not None:
        return spec.width, spec.height
    return CUSTOM_GRID, CUSTOM_GRID


def cell_on_grid(x: int, y: int, width: int, height: int, grid: tuple[int, int]) -> int:
    """The index of board cell (x, y) on `grid` (its own cell when the grid is the board).

    >>> cell_on_grid(49, 6, 50, 7, (10, 10)), cell_on_grid(3, 1, 9, 9, (9, 9))
    (89, 12)
    """
    gw, gh = grid
    gx = min(gw - 1, x * gw // width)
    gy = min(gh - 1, y * gh // height)
    return gy * gw + gx


def game_share(
    *,
    month: str,
    level: str,
    width: int,
    height: int,
    won: bool,
    bbbv_per_s: float | None,
    ioe: float | None,
    moves: Sequence[Labelled],
    flips: tuple[int, int, float],
) -> GameShare:
    """One analysed game's share. `moves` are its labelled moves in order (the first is the
    first tap, deduced by the rules: it is no decision and is left out); `ioe` and
    `bbbv_per_s` count for a win only; `flips` are its coin flips (won, lost, expected
    survivals)."""
    sums = dict.fromkeys(MONTH_KEYS, 0.0)
    sums["games"] = 1
    sums["wins"] = int(won)
    grid = grid_for(level)
    cells: list[int] = []
    for move in moves[1:]:
        sums["moves"] += 1
        guess = move.label in (FORCED_GUESS, AVOIDABLE_GUESS)
        if move.label == FORCED_GUESS:
            sums["forced"] += 1
        elif move.label == AVOIDABLE_GUESS:
            sums["avoidable"] += 1
        else:
            sums["deduced"] += 1
        if move.think_ms is not None:
            think = max(0, min(THINK_CAP_MS, move.think_ms))
            kind = "guess" if guess else "deduced"
            sums[f"think_{kind}_ms"] += think
            sums[f"think_{kind}_n"] += 1
        if guess:
            cells.append(cell_on_grid(move.x, move.y, width, height, grid))
    if won and bbbv_per_s is not None:
        sums["speed_sum"] += bbbv_per_s
        sums["speed_n"] += 1
    if won and ioe is not None:
        sums["ioe_sum"] += ioe
        sums["ioe_n"] += 1
    sums["flips_won"], sums["flips_lost"], sums["expected"] = flips
    return GameShare(month, sums, grid, tuple(cells))


def months_after(months: Months, share: GameShare) -> Months:
    """`months` with one game's sums added to its month; past MONTHS_SHOWN months, the oldest
    is added to EARLIER. Sums commute, so the result is the same in any order of the games:
    the newest MONTHS_SHOWN months apart, every other month in EARLIER.

    >>> a = game_share(month="2026-11", level="beginner", width=9, height=9, won=True,
    ...     bbbv_per_s=2.0, ioe=0.5, moves=[], flips=(0, 0, 0.0))
    >>> months_after(months_after({}, a), a)["2026-11"][:3]
    [2, 2, 0]
    """
    out = {**months, share.month: _added(months.get(share.month), share.sums.get)}
    apart = sorted(m for m in out if m != EARLIER)
    for oldest in apart[: max(0, len(apart) - MONTHS_SHOWN)]:
        gone = out.pop(oldest)
        out[EARLIER] = _added(out.get(EARLIER), dict(zip(MONTH_KEYS, gone, strict=True)).get)
    return out


def _added(before: list[float] | None, value: Any) -> list[float]:
    """`before` (None: nothing yet) plus the sums `value(key)` gives, in MONTH_KEYS' order."""
    start = before or [0] * len(MONTH_KEYS)
    return [_tidy(b + value(k, 0)) for b, k in zip(start, MONTH_KEYS, strict=True)]


def _tidy(v: float) -> float:
    """A sum as it is stored: a count as an integer, a sum of times or ratios to 4 decimals."""
    return int(v) if float(v).is_integer() else round(v, 4)


def heat_after(heat: Mapping[str, Any], share: GameShare) -> dict[str, Any]:
    """The heat grid with one game's guesses added (a grid of another shape starts again:
    a bucket's grid never changes, so that is only ever an empty one)."""
    width, height = share.grid
    cells = list(heat.get("cells") or [])
    if (heat.get("width"), heat.get("height")) != (width, height) or len(cells) != width * height:
        cells = [0] * (width * height)
    for i in share.cells:
        cells[i] += 1
    return {"width": width, "height": height, "cells": cells}


def fold(shares: Iterable[GameShare]) -> tuple[Months, dict[str, Any]]:
    """Every share of a bucket added up from nothing (a refold, the benchmark's seeding)."""
    months: Months = {}
    heat: dict[str, Any] = {}
    for share in shares:
        months = months_after(months, share)
        heat = heat_after(heat, share)
    return months, heat


# --------------------------------------------------------------------------- the writer


def record_game(*, user_id: int, bucket: str, share: GameShare) -> None:
    """A solo game's analysis was stored: its share joins its bucket's sums."""
    with transaction.atomic():
        row = lock_bucket_row(PlayerInsight, user_id=user_id, bucket=bucket)
        row.months = months_after(row.months or {}, share)
        row.heat = heat_after(row.heat or {}, share)
        row.save(update_fields=["months", "heat"])


def replace_bucket(*, user_id: int, bucket: str, months: Months, heat: Mapping[str, Any]) -> None:
    """A bucket's sums counted again from its games (`analyse_games --refold-all`)."""
    with transaction.atomic():
        row = lock_bucket_row(PlayerInsight, user_id=user_id, bucket=bucket)
        row.months = months
        row.heat = dict(heat)
        row.save(update_fields=["months", "heat"])


# --------------------------------------------------------------------------- the read


def _mean(total: float, n: float, digits: int) -> float | None:
    return round(total / n, digits) if n else None


def _figures(v: Sequence[float]) -> dict[str, Any]:
    """What one month's (or all months') sums say, `v` in MONTH_KEYS' order."""
    (games, wins, _moves, deduced, forced, avoidable, tdm, tdn, tgm, tgn, ss, sn, ios, ion) = v[:14]
    return {
        "games": int(games),
        "wins": int(wins),
        "deduced_moves": int(deduced),
        "forced_guesses": int(forced),
        "avoidable_guesses": int(avoidable),
        "avoidable_per_game": _mean(avoidable, games, 3),
        "avoidable_share": _mean(avoidable, forced + avoidable, 3),
        "think_deduced_ms": _mean(tdm, tdn, 0),
        "think_guess_ms": _mean(tgm, tgn, 0),
        "bbbv_per_s": _mean(ss, sn, 3),
        "ioe": _mean(ios, ion, 3),
    }


_WON, _LOST, _EXPECTED = _AT["flips_won"], _AT["flips_lost"], _AT["expected"]


def level_insights(months: Months, heat: Mapping[str, Any]) -> dict[str, Any]:
    """One bucket's answer: the totals, the newest MONTHS_SHOWN months oldest first, each
    with its luck and the luck summed up to it (older months included), and the heat grid."""
    empty = [0] * len(MONTH_KEYS)
    totals = [sum(c) for c in zip(*months.values(), strict=True)] if months else empty
    order = sorted(m for m in months if m != EARLIER)
    # the luck of the months not shown, where the running sum starts
    older = [months[m] for m in order[:-MONTHS_SHOWN]] + [months.get(EARLIER) or empty]
    running = sum(m[_WON] - m[_EXPECTED] for m in older)
    series = []
    for month in order[-MONTHS_SHOWN:]:
        v = months[month]
        luck = v[_WON] - v[_EXPECTED]
        running += luck
        series.append(
            {
                "month": month,
                **_figures(v),
                "coin_flips_won": int(v[_WON]),
                "expected_survivals": round(v[_EXPECTED], 4),
                "luck": round(luck, 4),
                "cumulative_luck": round(running, 4),
            }
        )
    width, height = int(heat.get("width") or 0), int(heat.get("height") or 0)
    cells = list(heat.get("cells") or [])
    return {
        **_figures(totals),
        "coin_flips_won": int(totals[_WON]),
        "coin_flips_lost": int(totals[_LOST]),
        "expected_survivals": round(totals[_EXPECTED], 4),
        "luck": round(totals[_WON] - totals[_EXPECTED], 4),
        "months": series,
        "heat": {
            "width": width,
            "height": height,
            "guesses": sum(cells),
            "cells": [cells[r * width : (r + 1) * width] for r in range(height)],
        },
    }


def insights_by_level(*, user_id: int, no_guess: bool = False) -> dict[str, dict[str, Any]]:
    """`GET /api/users/{name}/insights`: per bucket of one mode, from one read of at most
    seven rows (empty figures where nothing was analysed)."""
    buckets = [bucket_for(b, no_guess) for b in STATS_BUCKETS]
    with lagging_reads() as alias:  # an insight may lag, as a profile (demineur_site.db_router)
        rows = {
            level: (months, heat)
            for level, months, heat in PlayerInsight.objects.using(alias)
            .filter(user_id=user_id, level__in=buckets)
            .values_list("level", "months", "heat")
        }
    out = {}
    for bucket in buckets:
        level = base_level(bucket)
        months, heat = rows.get(bucket, ({}, {}))
        if not heat:
            width, height = grid_for(level)
            heat = {"width": width, "height": height, "cells": [0] * (width * height)}
        out[level] = level_insights(months or {}, heat)
    return out


__all__ = [
    "GameShare",
    "Labelled",
    "fold",
    "game_share",
    "insights_by_level",
    "level_insights",
    "record_game",
    "replace_bucket",
]
