"""Fair play (RULES.md, Fair play; docs/FAIRPLAY.md): what ranks, and on which boards.

Three parts:

* **the reason a game is unranked** -- `reason_at_creation` (custom boards, flagged accounts,
  guests) and `unrank` (a pause after the first tap, a game held for review, a flagged
  account). The first reason a game gets is the one it keeps; `ranked` is true exactly while
  `unranked_reason` is null.
* **superhuman checks**, pure -- `superhuman_findings` measures a won game against the limits
  of its level (settings.FAIRPLAY_*): 3BV/s, the most moves in any one second, the median
  time between moves, and a rhythm too regular for a hand.
* **staff decisions** -- `review_clear` lets a held game rank; `review_confirm` flags the
  account (`account_flag`): none of its games rank again, and its rows leave every board.
  Statistics (played, won, streaks) are never touched by any of this.
"""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from accounts.models import AccountKind, BoardPool, RaceRating, User
from accounts.standings import stats
from games.models import Action, Game, Move, Review, ReviewStatus, UnrankedReason

# The moves a hand makes (the server's own actions and pause/resume are not).
HAND_ACTIONS = (Action.REVEAL, Action.FLAG, Action.CHORD)
# The window of the burst check: the most moves whose server receipt falls in one second.
BURST_WINDOW_MS = 1000


# --- why a game is unranked -----------------------------------------------------------------


def reason_at_creation(*, level: str, player: User) -> str | None:
    """The reason a new game is unranked from the start, or None when it may rank."""
    if level == "custom":
        return UnrankedReason.CUSTOM
    if player.kind == AccountKind.GUEST:
        return UnrankedReason.GUEST
    if player.flagged:
        return UnrankedReason.FLAGGED
    return None


def unrank(game: Game, reason: str) -> bool:
    """Unrank the game (in memory; the caller saves it). A game keeps its first reason.
    Returns whether the game was ranked until now."""
    if not game.ranked:
        return False
    game.ranked = False
    game.unranked_reason = reason
    return True


# --- superhuman checks (pure) -----------------------------------------------------------------


@dataclass(frozen=True)
class Limits:
    """What no human hand does at one level (defaults and their sources: docs/FAIRPLAY.md)."""

    max_bbbv_per_s: float
    # The 3BV/s check applies from this 3BV on: on a tiny board one lucky double click
    # gives any 3BV/s, and the clock starts at the first tap, which is free.
    min_bbbv: int
    max_moves_per_second: int
    max_median_rhythm_ms: int  # a median interval between moves below this is superhuman
    min_rhythm_variation: float  # a coefficient of variation of the intervals below this too
    rhythm_min_moves: int  # the rhythm checks need at least this many intervals


@dataclass(frozen=True)
class Finding:
    check: str  # bbbv_per_s | burst | rhythm | metronome
    value: float
    limit: float

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def limits_for(level: str) -> Limits:
    return Limits(
        max_bbbv_per_s=settings.FAIRPLAY_MAX_BBBV_PER_S[level],
        min_bbbv=settings.FAIRPLAY_MIN_BBBV[level],
        max_moves_per_second=settings.FAIRPLAY_MAX_MOVES_PER_SECOND,
        max_median_rhythm_ms=settings.FAIRPLAY_MIN_MEDIAN_INTERVAL_MS,
        min_rhythm_variation=settings.FAIRPLAY_MIN_INTERVAL_VARIATION,
        rhythm_min_moves=settings.FAIRPLAY_RHYTHM_MIN_MOVES,
    )


def most_in_window(times_ms: Sequence[int], window_ms: int = BURST_WINDOW_MS) -> int:
    """The largest number of moves whose times fall within any `window_ms` (half-open).

    >>> most_in_window([0, 100, 200, 1200, 1250])
    3
    >>> most_in_window([])
    0
    """
    best = start = 0
    for end, t in enumerate(times_ms):
        while t - times_ms[start] >= window_ms:
            start += 1
        best = max(best, end - start + 1)
    return best


def superhuman_findings(
    *, bbbv: int | None, bbbv_per_s: float | None, times_ms: Sequence[int], limits: Limits
) -> list[Finding]:
    """Everything about a won game that no human could have done; empty for a human game.
    `times_ms` is the game clock of each hand move, in order (the first tap at 0).

    >>> lim = Limits(10.0, 10, 20, 60, 0.1, 20)
    >>> superhuman_findings(bbbv=30, bbbv_per_s=4.0, times_ms=[0, 300, 800], limits=lim)
    []
    >>> [f.check for f in superhuman_findings(
    ...     bbbv=30, bbbv_per_s=12.0, times_ms=list(range(0, 2500, 40)), limits=lim)]
    ['bbbv_per_s', 'burst', 'rhythm', 'metronome']
    """
    found: list[Finding] = []
    measurable = bbbv_per_s is not None and (bbbv or 0) >= limits.min_bbbv
    if measurable and bbbv_per_s is not None and bbbv_per_s > limits.max_bbbv_per_s:
        found.append(Finding("bbbv_per_s", round(bbbv_per_s, 3), limits.max_bbbv_per_s))
    burst = most_in_window(times_ms)
    if burst > limits.max_moves_per_second:
        found.append(Finding("burst", burst, limits.max_moves_per_second))
    intervals = [b - a for a, b in itertools.pairwise(times_ms)]
    if len(intervals) >= limits.rhythm_min_moves:
        median = statistics.median(intervals)
        if median < limits.max_median_rhythm_ms:
            found.append(Finding("rhythm", median, limits.max_median_rhythm_ms))
        mean = statistics.fmean(intervals)
        variation = statistics.pstdev(intervals) / mean if mean > 0 else 0.0
        if variation < limits.min_rhythm_variation:
            found.append(Finding("metronome", round(variation, 4), limits.min_rhythm_variation))
    return found


# --- at the end of a game (inside the services' transaction) ----------------------------------


def hold_if_superhuman(game: Game, *, player: User) -> Review | None:
    """Called by the services when a ranked game is won, before the statistics are written:
    a human's superhuman win is unranked as `review` and queued for staff. Bots are never
    held (their boards are their own)."""
    if not game.ranked or player.kind != AccountKind.HUMAN or game.level == "custom":
        return None
    times = list(
        Move.objects.filter(game=game, action__in=HAND_ACTIONS)
        .order_by("seq")
        .values_list("at_ms", flat=True)
    )
    # The winning move itself is stored after the game row: its clock is the game's time.
    times.append(int(game.elapsed_ms or 0))
    findings = superhuman_findings(
        bbbv=game.bbbv, bbbv_per_s=game.bbbv_per_s, times_ms=times, limits=limits_for(game.level)
    )
    if not findings:
        return None
    unrank(game, UnrankedReason.REVIEW)
    return Review(
        game=game,
        player_id=game.player_id,
        level=game.level,
        findings=[f.as_dict() for f in findings],
    )


# --- staff decisions ----------------------------------------------------------------------------


class ReviewError(Exception):
    """A staff decision that cannot be taken (the review was decided already, ...)."""


def _lock_pending(review_id: int) -> tuple[Review, Game]:
    review = Review.objects.select_for_update().get(pk=review_id)
    if review.status != ReviewStatus.PENDING:
        raise ReviewError(f"This review was already {review.status}.")
    game = Game.objects.select_for_update().select_related("player").get(pk=review.game_id)
    return review, game


def review_clear(*, review_id: int, staff: User) -> Review:
    """Staff found the game human: it ranks, as if it had never been held."""
    with transaction.atomic():
        review, game = _lock_pending(review_id)
        if game.player.flagged or game.unranked_reason != UnrankedReason.REVIEW:
            raise ReviewError("The account is flagged: its games do not rank.")
        game.ranked = True
        game.unranked_reason = None
        game.save(update_fields=["ranked", "unranked_reason"])
        assert game.ended_at is not None and game.elapsed_ms is not None
        stats.record_ranked_win(
            user_id=game.player_id,
            level=game.level,
            pool=game.player.board_pool,
            game_id=game.id,
            elapsed_ms=int(game.elapsed_ms),
            bbbv_per_s=game.bbbv_per_s,
            ended_at=game.ended_at,
        )
        review.status = ReviewStatus.CLEARED
        review.decided_at = timezone.now()
        review.decided_by = staff
        review.save()
    return review


def review_confirm(*, review_id: int, staff: User) -> Review:
    """Staff found the game superhuman: the account is flagged."""
    with transaction.atomic():
        review, game = _lock_pending(review_id)
        account_flag(user=game.player, staff=staff)
        review.refresh_from_db()
    return review


def account_flag(*, user: User, staff: User | None = None) -> int:
    """None of the account's games rank again: every ranked or held game becomes `flagged`,
    its rows leave the boards, and its pending reviews are closed as confirmed. Statistics
    are kept. Returns how many games were unranked."""
    now = timezone.now()
    with transaction.atomic():
        locked = User.objects.select_for_update().get(pk=user.pk)
        locked.flagged = True
        locked.flagged_at = locked.flagged_at or now
        locked.save(update_fields=["flagged", "flagged_at"])
        user.flagged, user.flagged_at = locked.flagged, locked.flagged_at
        games = Game.objects.filter(player=user)
        unranked = games.filter(ranked=True).update(
            ranked=False, unranked_reason=UnrankedReason.FLAGGED
        )
        games.filter(unranked_reason=UnrankedReason.REVIEW).update(
            unranked_reason=UnrankedReason.FLAGGED
        )
        Review.objects.filter(player=user, status=ReviewStatus.PENDING).update(
            status=ReviewStatus.CONFIRMED, decided_at=now, decided_by=staff
        )
        stats.remove_from_boards(user_id=user.pk)
        # Off the race boards too; the race history stays (docs/RACES.md).
        RaceRating.objects.filter(player=user).update(pool=BoardPool.NONE)
    return unranked


def pending_reviews() -> list[Review]:
    return list(
        Review.objects.filter(status=ReviewStatus.PENDING)
        .select_related("game", "player")
        .order_by("created_at")
    )


__all__ = [
    "Finding",
    "Limits",
    "ReviewError",
    "account_flag",
    "hold_if_superhuman",
    "limits_for",
    "most_in_window",
    "pending_reviews",
    "reason_at_creation",
    "review_clear",
    "review_confirm",
    "superhuman_findings",
    "unrank",
]
