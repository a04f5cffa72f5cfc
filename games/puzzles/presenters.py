"""What a caller sees of puzzles: the one place a puzzle becomes JSON, and so the one place that
must not leak (RULES.md, Puzzles, Nothing leaks). Before the caller's attempt has ended, a
Puzzle shows the start position, the cells the caller opened and their numbers, and nothing
else of the layout: `solution` and `source_game` are null, the layout never leaves at all."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db.models import Count, Q
from django.utils import timezone

from accounts.models import User
from accounts.standings.ratings import shown_rating
from demineur_site.formats import iso
from games.puzzles import positions, rules
from games.puzzles.models import AttemptState, Puzzle, PuzzleAttempt, PuzzleRun, RunKind
from games.puzzles.services import current_view, last_daily, rating_of, run_attempt

HISTORY = 100  # rated attempts on the dashboard's chart


def attempt_dict(attempt: PuzzleAttempt) -> dict[str, Any]:
    ended = attempt.state != AttemptState.PLAYING
    return {
        "state": attempt.state,
        "mode": attempt.mode,
        "rated": attempt.rated,
        "opened": [{"x": o["x"], "y": o["y"], "number": o["number"]} for o in attempt.opened],
        "wrong": attempt.wrong if ended else None,
        "rating_before": shown_rating(attempt.rating_before),
        "rating_after": shown_rating(attempt.rating_after),
        "started_at": iso(attempt.started_at),
        "ended_at": iso(attempt.ended_at),
    }


def puzzle_dict(puzzle: Puzzle, attempt: PuzzleAttempt | None) -> dict[str, Any]:
    """API.md's Puzzle, with the caller's `attempt` (None: none, or not signed in)."""
    ended = attempt is not None and attempt.state != AttemptState.PLAYING
    w = puzzle.width
    daily = last_daily(puzzle)
    return {
        "id": str(puzzle.id),
        "level": puzzle.level,
        "width": w,
        "height": puzzle.height,
        "mines_left": puzzle.mines,
        "board": positions.rows_of(w, current_view(puzzle, attempt)),
        "rating": shown_rating(puzzle.rating),
        "provisional": rules.provisional(puzzle.deviation),
        "plays": puzzle.plays,
        "themes": rules.themes_of(puzzle.themes),
        "daily": daily.isoformat() if daily is not None else None,
        "attempt": attempt_dict(attempt) if attempt is not None else None,
        "solution": [{"x": c % w, "y": c // w} for c in puzzle.solution] if ended else None,
        "depth": puzzle.depth if ended else None,
        "source_game": str(puzzle.source_game_id)
        if ended and puzzle.source_game_id is not None
        else None,
    }


def run_dict(run: PuzzleRun, *, now: datetime | None = None) -> dict[str, Any]:
    """A streak or a storm, with the puzzle in play (None once the run has ended)."""
    now = now or timezone.now()
    storm = run.kind == RunKind.STORM
    ends_at = (
        rules.storm_ends_at(run.started_at, run.failures)
        if storm and run.started_at is not None
        else None
    )
    if ends_at is not None and not run.running and run.ended_at is not None:
        ends_at = min(ends_at, run.ended_at)
    current = run_attempt(run) if run.running else None
    row = rating_of(run.player)
    history = PuzzleAttempt.objects.filter(run=run).order_by("pk").values_list("puzzle_id", "state")
    return {
        "id": str(run.id),
        "kind": run.kind,
        "state": "running" if run.running else "ended",
        "score": run.score,
        "failures": run.failures,
        "best": row.best_storm if storm else row.best_streak,
        "created_at": iso(run.created_at),
        "started_at": iso(run.started_at),
        "ended_at": iso(run.ended_at),
        "ends_at": iso(ends_at) if storm else None,
        "time_left_ms": (
            max(0, round((ends_at - now).total_seconds() * 1000))
            if run.running and ends_at is not None
            else (
                round(rules.STORM_DURATION.total_seconds() * 1000)
                if storm and run.running
                else None
            )
        ),
        "penalty_ms": round(rules.STORM_PENALTY.total_seconds() * 1000) if storm else None,
        "puzzle": puzzle_dict(current.puzzle, current) if current is not None else None,
        "puzzles": [
            {"id": str(pid), "state": state}
            for pid, state in history
            if state != AttemptState.PLAYING
        ],
    }


def dashboard_dict(player: User) -> dict[str, Any]:
    """The player's puzzle rating, bests, and attempts and solves per theme (their started
    attempts: a puzzle counts in each of its themes)."""
    row = rating_of(player)
    per_theme: dict[str, dict[str, int]] = {
        t: {"attempts": 0, "solved": 0} for t in positions.THEMES
    }
    rows = (
        PuzzleAttempt.objects.filter(player=player, started_at__isnull=False)
        .exclude(state=AttemptState.PLAYING)
        .values("puzzle__themes")
        .annotate(attempts=Count("pk"), solved=Count("pk", filter=Q(state=AttemptState.SOLVED)))
    )
    for item in rows:
        for theme in rules.themes_of(item["puzzle__themes"]):
            per_theme[theme]["attempts"] += item["attempts"]
            per_theme[theme]["solved"] += item["solved"]
    history = list(
        PuzzleAttempt.objects.filter(player=player, rated=True)
        .order_by("-ended_at", "-pk")
        .values_list("ended_at", "rating_after")[:HISTORY]
    )
    history.reverse()
    return {
        "rating": shown_rating(row.rating),
        "provisional": rules.provisional(row.deviation),
        "held": row.held,
        "rated_attempts": row.rated_attempts,
        "solved": row.solved,
        "best_streak": row.best_streak,
        "best_storm": row.best_storm,
        "themes": [
            {
                "theme": theme,
                "attempts": counts["attempts"],
                "solved": counts["solved"],
                "accuracy": round(counts["solved"] / counts["attempts"], 4)
                if counts["attempts"]
                else None,
            }
            for theme, counts in per_theme.items()
        ],
        "history": [{"at": iso(at), "rating": shown_rating(r)} for at, r in history],
    }


def personal_export(player: User) -> dict[str, Any]:
    """The player's puzzles in their personal-data export (docs/ACCOUNTS.md, Your data): the
    dashboard, and every attempt as the caller of `GET /api/puzzles/{id}` sees it (an attempt
    still being played shows nothing of the puzzle's answer)."""
    attempts = PuzzleAttempt.objects.filter(player=player).order_by("shown_at", "pk")
    return {
        **dashboard_dict(player),
        "attempts": [{"puzzle": str(a.puzzle_id), **attempt_dict(a)} for a in attempts],
    }
