"""The puzzles' writers (RULES.md, Puzzles; docs/PUZZLES.md): showing a puzzle, opening its
cells, rating the first attempt, the puzzle of the day, streaks and storms, and the fair-play
hold. Puzzles themselves are kept by games.puzzles.generator.

Every action of a player on puzzles first locks that player's PuzzleRating row (made on first
need), so one player's openings, attempts and runs never interleave: two openings sent at once
are taken one after the other, and the second sees the first. A rating that moves a puzzle then
locks the puzzle's row (always in that order: the player's row, then the puzzle's).

    puzzle_show / puzzle_next / puzzle_daily  ->  puzzle_open ... (solved | failed)  ->  rated
    puzzle_retry: a later attempt, practice
    run_start (streak | storm) -> puzzle_open ... -> the run's next puzzle ... -> the run's end
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from itertools import pairwise
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Exists, F, OuterRef, QuerySet
from django.utils import timezone

from accounts.models import AccountKind, User
from accounts.standings.ratings import Skill, rate
from games.errors import GameError
from games.play.selectors import row_by_id
from games.puzzles import positions, rules
from games.puzzles.models import (
    AttemptMode,
    AttemptState,
    Puzzle,
    PuzzleAttempt,
    PuzzleOfTheDay,
    PuzzleRating,
    PuzzleRun,
    RunKind,
)

# The nearest puzzles a pick chooses among at random (so two players of one rating do not all
# get the same puzzle), from NEAREST above and NEAREST below the target.
NEAREST = 10
CHOOSE_AMONG = 5
_random = random.SystemRandom()

RATED_MODES = (AttemptMode.RATED, AttemptMode.DAILY)


def day_of(now: datetime) -> date:
    """The UTC day of `now`: the puzzle of the day and the storm's day board change at 00:00 UTC."""
    return now.astimezone(UTC).date()


def puzzle_get(puzzle_id: Any) -> Puzzle:
    return row_by_id(Puzzle.objects.all(), puzzle_id, what="puzzle")


# --- the player's row --------------------------------------------------------------------------


def rating_of(player: User) -> PuzzleRating:
    """The player's puzzle rating (a new player's when they have none yet; not stored)."""
    found = PuzzleRating.objects.filter(player=player).first()
    return found if found is not None else PuzzleRating(player=player, pool=player.board_pool)


def _lock_rating(player: User) -> PuzzleRating:
    """The player's row, made on first need and locked to the end of the transaction."""
    PuzzleRating.objects.get_or_create(player=player, defaults={"pool": player.board_pool})
    return PuzzleRating.objects.select_for_update().get(player=player)


# --- attempts ----------------------------------------------------------------------------------


def latest_attempt(player: User | None, puzzle: Puzzle) -> PuzzleAttempt | None:
    """The player's newest attempt at `puzzle` (the one a Puzzle shows), if any."""
    if player is None or not player.is_authenticated:
        return None
    return PuzzleAttempt.objects.filter(player=player, puzzle=puzzle).order_by("-pk").first()


def _is_daily(puzzle: Puzzle, now: datetime) -> bool:
    return PuzzleOfTheDay.objects.filter(day=day_of(now), puzzle=puzzle).exists()


def last_daily(puzzle: Puzzle) -> date | None:
    """The last day `puzzle` was the puzzle of the day, up to today."""
    return (
        PuzzleOfTheDay.objects.filter(puzzle=puzzle, day__lte=day_of(timezone.now()))
        .order_by("-day")
        .values_list("day", flat=True)
        .first()
    )


def _new_attempt(
    player: User,
    puzzle: Puzzle,
    now: datetime,
    *,
    mode: str | None = None,
    run: PuzzleRun | None = None,
) -> PuzzleAttempt:
    """A new attempt (under the player's lock): the first one is rated (in the modes that
    rate), any later one practice."""
    first = not PuzzleAttempt.objects.filter(player=player, puzzle=puzzle).exists()
    if mode is None:
        if not first:
            mode = AttemptMode.PRACTICE
        else:
            mode = AttemptMode.DAILY if _is_daily(puzzle, now) else AttemptMode.RATED
    return PuzzleAttempt.objects.create(
        puzzle=puzzle, player=player, mode=mode, run=run, first=first, shown_at=now
    )


def puzzle_show(
    *, puzzle: Puzzle, player: User | None, now: datetime | None = None
) -> PuzzleAttempt | None:
    """The caller's attempt to show with `puzzle`. A signed-in caller who has none gets one,
    not started (the attempt starts at its first opening), so that the time the puzzle was
    shown is known (docs/FAIRPLAY.md)."""
    if player is None or not player.is_authenticated:
        return None
    found = latest_attempt(player, puzzle)
    if found is not None:
        return found
    now = now or timezone.now()
    with transaction.atomic():
        _lock_rating(player)
        return latest_attempt(player, puzzle) or _new_attempt(player, puzzle, now)


def puzzle_retry(
    *, puzzle_id: Any, player: User, now: datetime | None = None
) -> tuple[PuzzleAttempt, bool]:
    """A new practice attempt once the last one has ended: (it, True); the attempt still in
    play: (it, False)."""
    puzzle = puzzle_get(puzzle_id)
    now = now or timezone.now()
    with transaction.atomic():
        _lock_rating(player)
        current = latest_attempt(player, puzzle)
        if (
            current is not None
            and current.state == AttemptState.PLAYING
            and (current.run is None or current.run.running)
        ):
            return current, False
        return _new_attempt(player, puzzle, now, mode=AttemptMode.PRACTICE), True


# --- opening a cell ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Opened:
    correct: bool
    attempt: PuzzleAttempt
    run: PuzzleRun | None


def current_view(puzzle: Puzzle, attempt: PuzzleAttempt | None) -> str:
    """The start position with the attempt's opened cells shown."""
    if attempt is None:
        return puzzle.view
    w = puzzle.width
    return positions.with_opened(
        puzzle.view, ((o["y"] * w + o["x"], str(o["number"])) for o in attempt.opened)
    )


def puzzle_open(
    *, puzzle_id: Any, player: User, x: int, y: int, now: datetime | None = None
) -> Opened:
    """Open (x, y) in the player's attempt at the puzzle (RULES.md, Puzzles, Solving): the
    opening must be of a cell the numbers open now prove safe (the start position, the cells
    opened since with their true numbers, and the count of mines left); any other fails the
    attempt. 404 unknown puzzle, 400 `out_of_bounds`, 409 `attempt_over` (the attempt, or its
    storm's time, is over), 409 `cell_open`."""
    puzzle = puzzle_get(puzzle_id)
    if not (0 <= x < puzzle.width and 0 <= y < puzzle.height):
        raise GameError(
            "out_of_bounds",
            f"({x}, {y}) is outside the {puzzle.width}x{puzzle.height} board.",
            {"width": puzzle.width, "height": puzzle.height},
        )
    now = now or timezone.now()
    over: GameError | None = None
    correct = False
    with transaction.atomic():
        row = _lock_rating(player)
        attempt = latest_attempt(player, puzzle) or _new_attempt(player, puzzle, now)
        attempt = PuzzleAttempt.objects.select_for_update().get(pk=attempt.pk)
        run = (
            PuzzleRun.objects.select_for_update().get(pk=attempt.run_id)
            if attempt.run_id is not None
            else None
        )
        if run is not None and _storm_expired(run, now):
            _run_end(run, row, now)  # committed: the refusal below comes after
            over = GameError("attempt_over", "The storm's time is over.", {"run": str(run.pk)})
        elif attempt.state != AttemptState.PLAYING or (run is not None and not run.running):
            raise GameError("attempt_over", "This attempt is over.", {"state": attempt.state})
        else:
            correct = _open(attempt, puzzle, run, row, player, x, y, now)
    if over is not None:
        raise over
    return Opened(correct, attempt, run)


def _open(
    attempt: PuzzleAttempt,
    puzzle: Puzzle,
    run: PuzzleRun | None,
    row: PuzzleRating,
    player: User,
    x: int,
    y: int,
    now: datetime,
) -> bool:
    """One opening in a locked attempt still in play; whether it was provably safe."""
    view = current_view(puzzle, attempt)
    cell = y * puzzle.width + x
    if view[cell] != positions.CLOSED:
        raise GameError("cell_open", "That cell is already open.", {"x": x, "y": y})
    # The proof first: the counters below lock the puzzle's row, held until the commit (a
    # popular puzzle, the day's, is not kept waiting on every solver's search).
    correct = positions.provably_safe(puzzle.width, puzzle.height, puzzle.mines, view, cell)
    _start(attempt, puzzle, run, now)
    attempt.times_ms = [*attempt.times_ms, _ms(now - attempt.shown_at)]
    if correct:
        _show(attempt, puzzle, view, cell)
        opened = {o["y"] * puzzle.width + o["x"] for o in attempt.opened}
        if set(puzzle.solution) <= opened:
            attempt.state = AttemptState.SOLVED
    else:
        attempt.state = AttemptState.FAILED
        attempt.wrong = {"x": x, "y": y, "mine": puzzle.layout[cell] == "*"}
    if attempt.state != AttemptState.PLAYING:
        attempt.ended_at = now
        _rate(attempt, puzzle, player, row, now)
    attempt.save()
    if attempt.state != AttemptState.PLAYING and run is not None:
        _run_next(run, attempt, row, now)
    row.pool = player.board_pool
    row.updated_at = now
    row.save()
    return correct


def _ms(delta: timedelta) -> int:
    return max(0, round(delta.total_seconds() * 1000))


def _start(attempt: PuzzleAttempt, puzzle: Puzzle, run: PuzzleRun | None, now: datetime) -> None:
    """The first opening starts the attempt (and its run's clock)."""
    if attempt.started_at is not None:
        return
    attempt.started_at = now
    if attempt.first:
        Puzzle.objects.filter(pk=puzzle.pk).update(plays=F("plays") + 1)
    if run is not None and run.started_at is None:
        run.started_at = now
        run.day = day_of(now)
        run.save(update_fields=["started_at", "day"])


def _show(attempt: PuzzleAttempt, puzzle: Puzzle, view: str, cell: int) -> None:
    """Open `cell` (safe) with its cascade, each cell with its true number."""
    numbers = positions.numbers(puzzle.width, puzzle.height, puzzle.layout)
    w = puzzle.width
    attempt.opened = [
        *attempt.opened,
        *(
            {"x": c % w, "y": c // w, "number": int(numbers[c])}
            for c in positions.open_cell(puzzle.width, puzzle.height, puzzle.layout, view, cell)
        ),
    ]


# --- ratings -----------------------------------------------------------------------------------


def _machine_paced(attempt: PuzzleAttempt) -> bool:
    times = list(attempt.times_ms)
    gaps = [b - a for a, b in pairwise(times)]
    return rules.machine_paced(
        times[0] if times else None,
        gaps,
        min_think_ms=settings.PUZZLE_MIN_THINK_MS,
        min_gap_ms=settings.PUZZLE_MIN_GAP_MS,
    )


def _rate(
    attempt: PuzzleAttempt, puzzle: Puzzle, player: User, row: PuzzleRating, now: datetime
) -> None:
    """The end of an attempt: a first attempt in a rated mode moves the player's rating and,
    for a human in good standing, the puzzle's (a solve is a win for the solver). Bots and
    guests never move a puzzle; a machine-paced human attempt moves nothing and may hold the
    account's rating; a held or flagged account's attempts move nothing."""
    solved = attempt.state == AttemptState.SOLVED
    if attempt.first:
        Puzzle.objects.filter(pk=puzzle.pk).update(solves=F("solves") + int(solved))
    human = player.kind == AccountKind.HUMAN
    if human and _machine_paced(attempt):
        attempt.machine = True
        row.machine_attempts += 1
        if row.machine_attempts >= settings.PUZZLE_HOLD_AFTER and not row.held:
            row.held, row.held_at = True, now
    if not attempt.first or attempt.mode not in RATED_MODES:
        return
    if attempt.machine or row.held or player.flagged:
        return
    moves_puzzle = human
    if moves_puzzle:  # its rating is read and written under its row lock
        puzzle = Puzzle.objects.select_for_update().get(pk=puzzle.pk)
    mine = Skill(row.rating, row.deviation)
    theirs = Skill(puzzle.rating, puzzle.deviation)
    after_mine, after_theirs = rate([mine, theirs], places=[1, 2] if solved else [2, 1])
    attempt.rated = True
    attempt.rating_before, attempt.rating_after = mine.mu, after_mine.mu
    row.rating, row.deviation = after_mine.mu, after_mine.sigma
    row.rated_attempts += 1
    row.solved += int(solved)
    if moves_puzzle:
        attempt.puzzle_rating_before, attempt.puzzle_rating_after = theirs.mu, after_theirs.mu
        Puzzle.objects.filter(pk=puzzle.pk).update(
            rating=after_theirs.mu,
            deviation=after_theirs.sigma,
            rated_plays=F("rated_plays") + 1,
        )


def hold_clear(*, player: User) -> PuzzleRating:
    """Staff found the account's fast attempts human: its rating moves again."""
    with transaction.atomic():
        row = _lock_rating(player)
        row.held, row.held_at, row.machine_attempts = False, None, 0
        row.save()
    return row


# --- picking a puzzle --------------------------------------------------------------------------


def _untried(player: User) -> QuerySet[Puzzle]:
    tried = PuzzleAttempt.objects.filter(player=player, puzzle=OuterRef("pk"))
    return Puzzle.objects.exclude(Exists(tried))


def _nearest(puzzles: QuerySet[Puzzle], target: float) -> Puzzle | None:
    """One of the puzzles nearest `target` in rating, at random among the closest few; walks
    the rating index from the target both ways (a few rows each)."""
    above = list(puzzles.filter(rating__gte=target).order_by("rating")[:NEAREST])
    below = list(puzzles.filter(rating__lt=target).order_by("-rating")[:NEAREST])
    near = sorted(above + below, key=lambda p: abs(p.rating - target))[:CHOOSE_AMONG]
    return _random.choice(near) if near else None


def puzzle_next(
    *, player: User, theme: str | None = None, now: datetime | None = None
) -> tuple[Puzzle, PuzzleAttempt]:
    """A puzzle near the player's rating that they have not tried (API.md: GET
    /api/puzzles/next), `theme` among its themes. A rated attempt still in play comes first,
    started or not (so a hard puzzle cannot be skipped to spare the rating: it is the next one
    until it is played out). 404 `not_found` when none is left."""
    if theme is not None and not rules.valid_theme(theme):
        raise GameError("invalid", f"Unknown theme {theme!r}.", {"themes": list(positions.THEMES)})
    now = now or timezone.now()
    with transaction.atomic():
        row = _lock_rating(player)
        waiting = PuzzleAttempt.objects.filter(
            player=player, mode=AttemptMode.RATED, state=AttemptState.PLAYING, run__isnull=True
        ).select_related("puzzle")
        for attempt in waiting.order_by("-started_at", "-pk"):
            if theme is None or f",{theme}," in attempt.puzzle.themes:
                return attempt.puzzle, attempt
        # Shown and never started: not tried, and free to be picked again.
        waiting.filter(started_at__isnull=True).delete()
        puzzles = _untried(player)
        if theme is not None:
            puzzles = puzzles.filter(themes__contains=f",{theme},")
        puzzle = _nearest(puzzles, row.rating)
        if puzzle is None:
            raise GameError("not_found", "No puzzle left to try here.", {"theme": theme})
        return puzzle, _new_attempt(player, puzzle, now, mode=AttemptMode.RATED)


# --- the puzzle of the day ---------------------------------------------------------------------


def puzzle_of_the_day(*, now: datetime | None = None) -> PuzzleOfTheDay:
    """The day's puzzle, the same for everyone: drawn on the day's first request among the
    well-played puzzles not drawn before (rules.daily_anchor), else among any puzzle that needs
    more than one number, else any. 404 `not_found` while there is no puzzle at all."""
    day = day_of(now or timezone.now())
    found = PuzzleOfTheDay.objects.filter(day=day).select_related("puzzle").first()
    if found is not None:
        return found
    fresh = Puzzle.objects.exclude(pk__in=PuzzleOfTheDay.objects.values("puzzle"))
    fresh = fresh.exclude(theme=rules.SINGLE)
    well = fresh.filter(
        rated_plays__gte=rules.DAILY_MIN_PLAYS, deviation__lte=rules.PROVISIONAL_SIGMA
    )
    anchor = rules.daily_anchor(day)
    for pool in (well, fresh, Puzzle.objects.all()):
        pick = pool.filter(pk__gte=anchor).order_by("pk").first() or pool.order_by("pk").first()
        if pick is not None:
            break
    else:
        raise GameError("not_found", "There is no puzzle yet.")
    try:
        with transaction.atomic():
            return PuzzleOfTheDay.objects.create(day=day, puzzle=pick)
    except IntegrityError:  # another request drew it first: the same draw
        return PuzzleOfTheDay.objects.select_related("puzzle").get(day=day)


# --- streaks and storms ------------------------------------------------------------------------


def _storm_expired(run: PuzzleRun, now: datetime) -> bool:
    return (
        run.running
        and run.kind == RunKind.STORM
        and run.started_at is not None
        and now >= rules.storm_ends_at(run.started_at, run.failures)
    )


def _run_end(run: PuzzleRun, row: PuzzleRating, now: datetime) -> None:
    """The end of a run: its puzzle in play, if any, is over; its score is final."""
    run.running = False
    run.ended_at = now
    run.save()
    PuzzleAttempt.objects.filter(run=run, state=AttemptState.PLAYING).update(
        state=AttemptState.FAILED, ended_at=now
    )
    _best(run, row, now)
    row.save()


def _best(run: PuzzleRun, row: PuzzleRating, now: datetime) -> None:
    if run.kind == RunKind.STREAK and run.score > row.best_streak:
        row.best_streak, row.best_streak_at = run.score, now
    if run.kind == RunKind.STORM and run.score > row.best_storm:
        row.best_storm, row.best_storm_at = run.score, now


def _run_next(run: PuzzleRun, attempt: PuzzleAttempt, row: PuzzleRating, now: datetime) -> None:
    """After one of the run's puzzles: count it, then end the run (a streak's failure, a
    storm's time, nothing left to pick) or hand it its next puzzle."""
    if attempt.state == AttemptState.SOLVED:
        run.score += 1
    else:
        run.failures += 1
    run.save()
    _best(run, row, now)
    over = (run.kind == RunKind.STREAK and run.failures > 0) or _storm_expired(run, now)
    if over or not _hand_out(run, row, now):
        _run_end(run, row, now)


def _hand_out(run: PuzzleRun, row: PuzzleRating, now: datetime) -> bool:
    """Give the run its next puzzle: near the run's rising target, one the player has not
    tried if there is one, never one this run has had."""
    target = rules.run_target(run.kind, run.score + run.failures)
    had = PuzzleAttempt.objects.filter(run=run).values("puzzle")
    # Never one the player has an attempt in play at: the run's would hide it.
    busy = PuzzleAttempt.objects.filter(player=run.player, state=AttemptState.PLAYING).values(
        "puzzle"
    )
    puzzle = _nearest(_untried(run.player), target) or _nearest(
        Puzzle.objects.exclude(pk__in=had).exclude(pk__in=busy), target
    )
    if puzzle is None:
        return False
    _new_attempt(run.player, puzzle, now, mode=str(run.kind), run=run)
    return True


def run_start(*, player: User, kind: str, now: datetime | None = None) -> PuzzleRun:
    """A new streak or storm with its first puzzle; the player's running one of that kind
    ends first (its score stands). 404 `not_found` while there is no puzzle at all."""
    now = now or timezone.now()
    with transaction.atomic():
        row = _lock_rating(player)
        for old in PuzzleRun.objects.select_for_update().filter(
            player=player, kind=kind, running=True
        ):
            _run_end(old, row, now)
        run = PuzzleRun.objects.create(player=player, kind=kind, created_at=now)
        if not _hand_out(run, row, now):
            raise GameError("not_found", "There is no puzzle yet.")
        row.pool = player.board_pool
        row.save()
    return run


def run_current(*, player: User, kind: str, now: datetime | None = None) -> PuzzleRun:
    """The player's running streak or storm, else their last one (a storm whose time has run
    out is ended here first). 404 `not_found` when they never had one."""
    now = now or timezone.now()
    run = PuzzleRun.objects.filter(player=player, kind=kind).order_by("-created_at").first()
    if run is None:
        raise GameError("not_found", f"No {kind} yet: start one.")
    if _storm_expired(run, now):
        with transaction.atomic():
            row = _lock_rating(player)
            run = PuzzleRun.objects.select_for_update().get(pk=run.pk)
            if _storm_expired(run, now):
                _run_end(run, row, now)
    return run


def run_attempt(run: PuzzleRun) -> PuzzleAttempt | None:
    """The run's puzzle in play (None once it has ended)."""
    return (
        PuzzleAttempt.objects.filter(run=run, state=AttemptState.PLAYING)
        .select_related("puzzle")
        .order_by("-pk")
        .first()
    )


__all__ = [
    "Opened",
    "current_view",
    "day_of",
    "hold_clear",
    "last_daily",
    "latest_attempt",
    "puzzle_get",
    "puzzle_next",
    "puzzle_of_the_day",
    "puzzle_open",
    "puzzle_retry",
    "puzzle_show",
    "rating_of",
    "run_attempt",
    "run_current",
    "run_start",
]
