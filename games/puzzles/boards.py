"""The puzzles' boards (API.md, Puzzles; docs/PUZZLES.md, Endpoints): puzzle ratings, best streaks,
and storms (all time, or one UTC day's). Humans by default, `?players=bots` the bots' own
(accounts.standings.leaderboards.pool_of); guests, flagged, held and closed accounts are on
none. Every
board pages by the boards' one rule (PageAsk.page_of) and carries the viewer's row as `me`."""

from __future__ import annotations

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


def _ratings(players: str | None) -> QuerySet[PuzzleRating]:
    """The rows of a pool's boards: a closed account (inactive) is on none (API.md: `close`
    takes an account off every board); its row stays for a reopening."""
    return PuzzleRating.objects.filter(
        pool=pool_of(players), held=False, player__is_active=True
    ).select_related("player")


def _rank(rows: QuerySet[Any], ahead: Q) -> int:
    return rows.filter(ahead).count() + 1


# --- ratings -----------------------------------------------------------------------------------


def _rating_row(item: PuzzleRating, rank: int) -> dict[str, Any]:
    return {
        "rank": rank,
        "player": item.player.username,
        "rating": shown_rating(item.rating),
        "solved": item.solved,
        "provisional": rules.provisional(item.deviation),
    }


def rating_board_page(*, players: str | None, ask: PageAsk) -> BoardPage:
    """Players with a rated attempt, by rating; ties to whoever got there first."""
    rows = (
        _ratings(players)
        .filter(rated_attempts__gt=0)
        .order_by("-rating", "updated_at", "player_id")
    )
    mine = rows.filter(player=ask.viewer).first() if ask.viewer is not None else None
    me = None
    if mine is not None:
        ahead = (
            Q(rating__gt=mine.rating)
            | Q(rating=mine.rating, updated_at__lt=mine.updated_at)
            | Q(rating=mine.rating, updated_at=mine.updated_at, player_id__lt=mine.player_id)
        )
        me = _rating_row(mine, _rank(rows, ahead))
    return sliced_page(rows, ask, count=rows.count(), me=me, row=_rating_row)


# --- streaks -----------------------------------------------------------------------------------


def _streak_row(item: PuzzleRating, rank: int) -> dict[str, Any]:
    return {
        "rank": rank,
        "player": item.player.username,
        "best_streak": item.best_streak,
        "achieved_at": iso(item.best_streak_at),
    }


def streak_board_page(*, players: str | None, ask: PageAsk) -> BoardPage:
    rows = (
        _ratings(players)
        .filter(best_streak__gt=0)
        .order_by("-best_streak", "best_streak_at", "player_id")
    )
    mine = rows.filter(player=ask.viewer).first() if ask.viewer is not None else None
    me = None
    if mine is not None:
        ahead = (
            Q(best_streak__gt=mine.best_streak)
            | Q(best_streak=mine.best_streak, best_streak_at__lt=mine.best_streak_at)
            | Q(
                best_streak=mine.best_streak,
                best_streak_at=mine.best_streak_at,
                player_id__lt=mine.player_id,
            )
        )
        me = _streak_row(mine, _rank(rows, ahead))
    return sliced_page(rows, ask, count=rows.count(), me=me, row=_streak_row)


# --- storms ------------------------------------------------------------------------------------


def check_period(period: str | None) -> str:
    if period is None:
        return "all"
    if period not in PERIODS:
        raise DomainError(
            "invalid_period", f"Unknown period {period!r}.", {"periods": list(PERIODS)}
        )
    return period


def _storm_all_row(item: PuzzleRating, rank: int) -> dict[str, Any]:
    return {
        "rank": rank,
        "player": item.player.username,
        "score": item.best_storm,
        "achieved_at": iso(item.best_storm_at),
    }


def _storm_day_row(item: PuzzleRun, rank: int) -> dict[str, Any]:
    return {
        "rank": rank,
        "player": item.player.username,
        "score": item.score,
        "achieved_at": iso(item.started_at),
    }


def storm_board_page(
    *, players: str | None, ask: PageAsk, period: str | None, day: date
) -> BoardPage:
    """Best storm scores: each player's best of all time, or of one UTC day (from the day's
    storms, running ones included: a score only grows while its time runs)."""
    if check_period(period) == "all":
        rows = (
            _ratings(players)
            .filter(best_storm__gt=0)
            .order_by("-best_storm", "best_storm_at", "player_id")
        )
        mine = rows.filter(player=ask.viewer).first() if ask.viewer is not None else None
        me = None
        if mine is not None:
            ahead = (
                Q(best_storm__gt=mine.best_storm)
                | Q(best_storm=mine.best_storm, best_storm_at__lt=mine.best_storm_at)
                | Q(
                    best_storm=mine.best_storm,
                    best_storm_at=mine.best_storm_at,
                    player_id__lt=mine.player_id,
                )
            )
            me = _storm_all_row(mine, _rank(rows, ahead))
        return sliced_page(rows, ask, count=rows.count(), me=me, row=_storm_all_row)
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
        .order_by("-score", "started_at", "player_id")
    )
    best = runs.filter(player=ask.viewer).first() if ask.viewer is not None else None
    me = None
    if best is not None:
        ahead = (
            Q(score__gt=best.score)
            | Q(score=best.score, started_at__lt=best.started_at)
            | Q(score=best.score, started_at=best.started_at, player_id__lt=best.player_id)
        )
        me = _storm_day_row(best, _rank(runs, ahead))
    return sliced_page(runs, ask, count=runs.count(), me=me, row=_storm_day_row)
