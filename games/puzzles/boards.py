"""The puzzles' boards (API.md, Puzzles; docs/PUZZLES.md, Endpoints): puzzle ratings, best streaks,
and storms (all time, or one UTC day's). Humans by default, `?players=bots` the bots' own
(accounts.standings.leaderboards.pool_of); guests, flagged, held and closed accounts are on
none. Every
board pages by the boards' one rule (PageAsk.page_of) and carries the viewer's row as `me`."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Any

from django.db.models import Exists, OuterRef, Q, QuerySet

from accounts.standings.leaderboards import BoardPage, PageAsk, pool_of, sliced_page
from accounts.standings.ratings import shown_rating
from demineur_site.errors import DomainError
from demineur_site.formats import iso
from games.puzzles import rules
from games.puzzles.models import PuzzleRating, PuzzleRun, RunKind

PERIODS = ("all", "day")

Fields = Callable[[Any], dict[str, Any]]  # a board's own columns of one row (beside rank, player)


def _ratings(players: str | None) -> QuerySet[PuzzleRating]:
    """The rows of a pool's boards: a closed account (inactive) is on none (API.md: `close`
    takes an account off every board); its row stays for a reopening."""
    return PuzzleRating.objects.filter(
        pool=pool_of(players), held=False, player__is_active=True
    ).select_related("player")


def _ranked_page(
    rows: QuerySet[Any],
    ask: PageAsk,
    *,
    score: str,
    at: str,
    fields: Fields | None = None,
    named: str = "score",
) -> BoardPage:
    """A board's page of `rows`: the highest `score` first, ties to whoever reached it first
    (`at`), then to the lower player id; the viewer's rank counts the rows ahead by that
    same order, so `me` and the page always agree. Each line: its rank, its player, then
    `fields`, or on a board of bests the best (`score`, named `named`) and when it was made."""

    def line(item: Any, rank: int) -> dict[str, Any]:
        own = (
            fields(item)
            if fields is not None
            else {named: getattr(item, score), "achieved_at": iso(getattr(item, at))}
        )
        return {"rank": rank, "player": item.player.username, **own}

    rows = rows.order_by(f"-{score}", at, "player_id")
    mine = rows.filter(player=ask.viewer).first() if ask.viewer is not None else None
    me = None
    if mine is not None:
        best, when = getattr(mine, score), getattr(mine, at)
        ahead = (
            Q(**{f"{score}__gt": best})
            | Q(**{score: best, f"{at}__lt": when})
            | Q(**{score: best, at: when, "player_id__lt": mine.player_id})
        )
        me = line(mine, rows.filter(ahead).count() + 1)
    return sliced_page(rows, ask, count=rows.count(), me=me, row=line)


# --- ratings -----------------------------------------------------------------------------------


def _rating_fields(item: PuzzleRating) -> dict[str, Any]:
    return {
        "rating": shown_rating(item.rating),
        "solved": item.solved,
        "provisional": rules.provisional(item.deviation),
    }


def rating_board_page(*, players: str | None, ask: PageAsk) -> BoardPage:
    """Players with a rated attempt, by rating; ties to whoever got there first."""
    rows = _ratings(players).filter(rated_attempts__gt=0)
    return _ranked_page(rows, ask, score="rating", at="updated_at", fields=_rating_fields)


# --- streaks -----------------------------------------------------------------------------------


def streak_board_page(*, players: str | None, ask: PageAsk) -> BoardPage:
    rows = _ratings(players).filter(best_streak__gt=0)
    return _ranked_page(rows, ask, score="best_streak", at="best_streak_at", named="best_streak")


# --- storms ------------------------------------------------------------------------------------


def check_period(period: str | None) -> str:
    if period is None:
        return "all"
    if period not in PERIODS:
        raise DomainError(
            "invalid_period", f"Unknown period {period!r}.", {"periods": list(PERIODS)}
        )
    return period


def storm_board_page(
    *, players: str | None, ask: PageAsk, period: str | None, day: date
) -> BoardPage:
    """Best storm scores: each player's best of all time, or of one UTC day (from the day's
    storms, running ones included: a score only grows while its time runs)."""
    if check_period(period) == "all":
        rows = _ratings(players).filter(best_storm__gt=0)
        return _ranked_page(rows, ask, score="best_storm", at="best_storm_at")
    # One day: each player's best storm of the day, the earliest of equal ones.
    better = PuzzleRun.objects.filter(
        kind=RunKind.STORM, day=day, player=OuterRef("player")
    ).filter(
        Q(score__gt=OuterRef("score"))
        | Q(score=OuterRef("score"), started_at__lt=OuterRef("started_at"))
        | Q(score=OuterRef("score"), started_at=OuterRef("started_at"), pk__lt=OuterRef("pk"))
    )
    runs = (
        PuzzleRun.objects.filter(
            kind=RunKind.STORM,
            day=day,
            score__gt=0,
            player__puzzle_rating__pool=pool_of(players),
            player__puzzle_rating__held=False,
            player__is_active=True,
        )
        .exclude(Exists(better))
        .select_related("player")
    )
    return _ranked_page(runs, ask, score="score", at="started_at")
