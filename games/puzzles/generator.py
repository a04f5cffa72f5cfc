"""Puzzles from finished games (RULES.md, Puzzles; docs/PUZZLES.md, The generator).

`candidates` (pure) replays a game's moves on its layout with the engine and, before each of
the player's reveals and chords, looks at what the player saw (the numbers; flags are not part
of a puzzle). A position is a candidate when the move after it was an avoidable guess (the
analysis's label: a provably safe cell was there and the player missed it), or when the move
opened a cell that no single number proves (a deduction of more than one number). A candidate
is kept when its answer is exact (games.puzzles.positions.safe_cells), small enough to solve
by hand, not trivial, and not the same deduction as the position kept just before it; the
store then refuses a position already kept from any game (its key, up to symmetry).

`generate_for_game` runs it for one stored game, off the request path: the analysis worker
calls it after each game it analyses (games.apps registers it with games.play.analysis_jobs
.on_analysed, so games.play never imports this room), and `manage.py backfill_puzzles` walks
the games stored before. Games still sealed (a race or a daily still being played) are never
read; the analysis worker never hands one over either.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, transaction

from games.engine import Board
from games.play.analysis import AVOIDABLE_GUESS, FORCED_GUESS, MoveIn
from games.play.analysis_jobs import unread_games
from games.play.models import ENDED_STATES, BoardSize, Game, GameAnalysis, Move
from games.puzzles import positions, rules
from games.puzzles.models import Puzzle, PuzzleSource

log = logging.getLogger(__name__)

# A solution bigger than this is a chore, not a puzzle.
MAX_SOLUTION = 12
# Puzzles one game may give: the rest of its moments are left to other games.
MAX_PER_GAME = 5
# Positions of one game whose answer is computed: bounds a long game's cost to the worker.
MAX_JUDGED = 60

ORIGIN_GUESS = "avoidable_guess"  # the player guessed with a provably safe cell on the board
ORIGIN_DEDUCTION = "deduction"  # the player deduced a cell no single number proves
ORIGIN_LAST = "last_position"  # a game without a move log: the position before its losing tap


@dataclass(frozen=True)
class PuzzleSpec:
    """A position worth keeping, and everything a Puzzle row needs of it."""

    width: int
    height: int
    mines: int
    view: str
    solution: tuple[int, ...]
    themes: tuple[str, ...]
    depth: int
    key: str
    seq: int  # the source game's move that came after the position (0: none recorded)
    origin: str


def _player_view(board: Board) -> str:
    """What the player saw, as a puzzle shows it: flags taken off, nothing of the layout."""
    return "".join(board.render(layout=False)).replace("F", positions.CLOSED)


def single_safe(width: int, height: int, view: str, cell: int) -> bool:
    """Whether one number around `cell` proves it safe once the obvious mines around that
    number are counted (a number with exactly as many closed neighbours as its value): the
    deduction a player makes without thinking, checked locally."""
    nbrs = positions.neighbours(width, height)

    def closed(i: int) -> list[int]:
        return [j for j in nbrs[i] if view[j] == positions.CLOSED]

    def obvious_mine(c: int) -> bool:
        return any(view[n] in "12345678" and len(closed(n)) == int(view[n]) for n in nbrs[c])

    for b in nbrs[cell]:
        if view[b] in "12345678":
            around = closed(b)
            if sum(1 for c in around if obvious_mine(c)) == int(view[b]) and not obvious_mine(cell):
                return True
    return False


def judge(
    width: int,
    height: int,
    mines: int,
    view: str,
    *,
    seq: int,
    origin: str,
    after: frozenset[int] = frozenset(),
) -> PuzzleSpec | None:
    """The puzzle a position makes, or None: no exact answer, nothing safe, too many cells,
    the same deduction as the position kept just before (its answer shares a cell with
    `after`), a proof past the budgets, or trivial. The cheap refusals come first."""
    safe = positions.safe_cells(width, height, mines, view)
    if not safe or len(safe) > MAX_SOLUTION or safe & after:
        return None
    found = positions.classify(width, height, mines, view, safe)
    if found is None or found.trivial:
        return None
    return spec_of(width, height, mines, view, safe, found, seq=seq, origin=origin)


def spec_of(
    width: int,
    height: int,
    mines: int,
    view: str,
    safe: frozenset[int],
    found: positions.Classification,
    *,
    seq: int,
    origin: str,
) -> PuzzleSpec:
    """The spec of a position whose safe cells are `safe`, proved as `found` says."""
    return PuzzleSpec(
        width=width,
        height=height,
        mines=mines,
        view=view,
        solution=tuple(sorted(safe)),
        themes=found.themes,
        depth=found.depth,
        key=positions.canonical_key(width, height, mines, view),
        seq=seq,
        origin=origin,
    )


def candidates(
    *,
    width: int,
    height: int,
    layout: Sequence[str],
    moves: Iterable[MoveIn],
    labels: dict[int, str] | None = None,
    server_moves: int = 0,
    limit: int = MAX_PER_GAME,
) -> list[PuzzleSpec]:
    """The puzzles of one game: `layout` in engine ASCII (`*` a mine), `moves` as stored,
    `labels` the analysis's label of each reveal and chord by seq (None: not analysed; every
    move no single number explains is then looked at, and the exact answer decides)."""
    board = Board.from_ascii(["".join("*" if ch in "*MX" else "." for ch in row) for row in layout])
    mines = board.mines
    kept: list[PuzzleSpec] = []
    keys: set[str] = set()
    last: frozenset[int] = frozenset()
    opened_any = False
    judged = 0
    for index, move in enumerate(moves):
        if board.ended or len(kept) >= limit or judged >= MAX_JUDGED:
            break
        if move.x is None or move.y is None or not (0 <= move.x < width and 0 <= move.y < height):
            continue
        if move.action == "flag":
            if board.render(layout=False)[move.y][move.x] in "#F":
                board.flag(move.x, move.y, move.flagged)
            continue
        if move.action not in ("reveal", "chord"):
            continue
        view = _player_view(board)
        cell = move.y * width + move.x
        spec = None
        label = labels.get(move.seq) if labels is not None else None
        origin = None
        if not opened_any or index < server_moves:
            pass  # the first tap (safe by the rules) or the server's opening: nothing to find
        elif label == AVOIDABLE_GUESS:
            origin = ORIGIN_GUESS
        elif (
            move.action == "reveal"
            and label != FORCED_GUESS
            and view[cell] == positions.CLOSED
            and not single_safe(width, height, view, cell)
        ):
            origin = ORIGIN_DEDUCTION
        if origin is not None:
            judged += 1
            spec = judge(width, height, mines, view, seq=move.seq, origin=origin, after=last)
        if spec is not None and spec.key not in keys:
            kept.append(spec)
            keys.add(spec.key)
            last = frozenset(spec.solution)
        if move.action == "reveal":
            board.reveal(move.x, move.y)
        elif view[cell] != positions.CLOSED:  # a chord on a closed cell was never accepted
            board.chord(move.x, move.y)
        opened_any = opened_any or board.opened_count() > 0
    return kept


def last_position(board: Board) -> PuzzleSpec | None:
    """A lost game without a move log (a seeded demo game): the position before its losing
    tap, when that tap opened one mine and nothing else (then it is exactly what the player
    saw before it)."""
    view = _player_view(board)
    if board.status != "lost" or view.count("X") != 1:
        return None
    return judge(
        board.width, board.height, board.mines, view.replace("X", "#"), seq=0, origin=ORIGIN_LAST
    )


# --------------------------------------------------------------------------- the store


def _source_moves(game: Game) -> list[MoveIn]:
    return [
        MoveIn(seq, action, x, y, flagged)
        for seq, action, x, y, flagged in Move.objects.filter(game_id=game.pk)
        .order_by("seq")
        .values_list("seq", "action", "x", "y", "flagged")
    ]


def _labels(game: Game) -> dict[int, str] | None:
    found = GameAnalysis.objects.filter(game_id=game.pk).values_list("moves", flat=True).first()
    if found is None:
        return None
    return {int(m["seq"]): str(m["label"]) for m in found}


def specs_for_game(game: Game) -> list[PuzzleSpec]:
    """The puzzles one stored, ended, unsealed game gives (nothing written)."""
    board = Board.decode(bytes(game.board))
    moves = _source_moves(game)
    if not moves:
        spec = last_position(board)
        return [spec] if spec is not None else []
    return candidates(
        width=game.width,
        height=game.height,
        layout=board.to_ascii(),
        moves=moves,
        labels=_labels(game),
        server_moves=1 if game.server_opened else 0,
    )


def mines_text(rows: Iterable[str]) -> str:
    """A Puzzle's `layout` from a board's engine ASCII: `*` a mine (hidden, flagged, or the
    one that lost), `.` a safe cell."""
    return "".join("*" if ch in "*MX" else "." for row in rows for ch in row)


def store(
    spec: PuzzleSpec,
    *,
    level: str,
    layout: str,
    source_game: Game | None = None,
    rating: float | None = None,
) -> Puzzle:
    """The Puzzle row of a kept position, at the starting rating its themes, depth and size
    give (`rating`: another mean, the deviation kept)."""
    mu, sigma = rules.starting_rating(spec.themes, spec.depth, len(spec.solution))
    return Puzzle.objects.create(
        level=level,
        **BoardSize.of(spec),
        view=spec.view,
        layout=layout,
        solution=list(spec.solution),
        themes=rules.themes_text(spec.themes),
        theme=spec.themes[-1],
        depth=spec.depth,
        rating=mu if rating is None else rating,
        deviation=sigma,
        key=spec.key,
        source_game=source_game,
        source_seq=spec.seq,
        origin=spec.origin,
    )


def generate_for_game(game_id: Any) -> int:
    """Keep the puzzles of one ended game, once: how many new puzzles it gave. A sealed
    game (its race or its day still running), an unended one, or one already mined gives
    none."""
    game = (
        Game.objects.filter(pk=game_id, state__in=ENDED_STATES, sealed=False)
        .exclude(puzzle_source__isnull=False)
        .first()
    )
    if game is None:
        return 0
    started = time.perf_counter()
    specs = specs_for_game(game)
    layout = mines_text(Board.decode(bytes(game.board)).to_ascii())
    made = 0
    with transaction.atomic():
        try:
            with transaction.atomic():
                PuzzleSource.objects.create(
                    game=game,
                    level=game.level,
                    candidates=len(specs),
                    compute_ms=round((time.perf_counter() - started) * 1000),
                )
        except IntegrityError:  # another worker mined it meanwhile
            return 0
        taken = set(
            Puzzle.objects.filter(key__in=[s.key for s in specs]).values_list("key", flat=True)
        )
        for spec in specs:
            if spec.key in taken:
                continue
            try:
                with transaction.atomic():
                    store(spec, level=game.level, layout=layout, source_game=game)
            except IntegrityError:  # the same position kept from another game meanwhile
                continue
            made += 1
        PuzzleSource.objects.filter(game=game).update(puzzles=made)
    return made


def after_analysis(game_id: Any) -> None:
    """The analysis worker's hook (games.apps): a failure here never undoes the analysis."""
    try:
        generate_for_game(game_id)
    except Exception:
        log.exception("puzzles of game %s failed", game_id)


def backlog() -> Any:
    """Every ended, unsealed game not mined yet, oldest end first (`manage.py backfill_puzzles`)."""
    return unread_games("puzzle_source")


__all__ = [
    "MAX_JUDGED",
    "MAX_PER_GAME",
    "MAX_SOLUTION",
    "PuzzleSpec",
    "after_analysis",
    "backlog",
    "candidates",
    "generate_for_game",
    "judge",
    "last_position",
    "mines_text",
    "single_safe",
    "spec_of",
    "specs_for_game",
    "store",
]
