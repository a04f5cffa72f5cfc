"""Fair play (RULES.md, Fair play; docs/FAIRPLAY.md): what ranks, and on which boards.

Three parts:

* **the reason a game is unranked** -- `reason_at_creation` (custom boards, flagged accounts,
  guests) and `unrank` (a pause after the first tap, a game held for review, a flagged
  account). The first reason a game gets is the one it keeps; `ranked` is true exactly while
  `unranked_reason` is null.
* **superhuman checks**, pure -- `superhuman_findings` measures a won game against the limits
  of its level (settings.FAIRPLAY_*): 3BV/s, the most moves in any one second, a run of moves
  closer together than any hand clicks, the median time between moves, and a rhythm too
  regular for a hand. `account_findings` measures the account's last wins together: a think
  time that ignores where the next move is, and a minimal number of clicks on every win.
* **staff decisions** -- `review_clear` lets a held game rank; `review_confirm` flags the
  account (`account_flag`): none of its games rank again, and its rows leave every board.
  Statistics (played, won, streaks) are never touched by any of this.
"""

from __future__ import annotations

import itertools
import math
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from accounts.models import AccountKind, BoardPool, User
from accounts.standings import daily as daily_standings
from accounts.standings import stats
from accounts.standings.models import RaceRating, SeasonRating
from games.engine import LEVELS
from games.play.models import Action, Game, GameState, Move, Review, ReviewStatus, UnrankedReason

# The moves a hand makes (the server's own actions and pause/resume are not).
HAND_ACTIONS = (Action.REVEAL, Action.FLAG, Action.CHORD)
# The window of the burst check: the most moves whose server receipt falls in one second.
BURST_WINDOW_MS = 1000
# A flurry shorter than the limit still counts when it is the whole game, from this many
# intervals on (a first tap and a double click are no evidence).
FLURRY_WHOLE_GAME_MIN = 3
# The checks that judge an account's recent wins together rather than one game: once staff
# clear a review that names one of them, it is not raised for that account again.
ACCOUNT_CHECKS = ("blind_pace", "perfect_efficiency")


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
    # A run of this many consecutive intervals under `flurry_gap_ms` is superhuman, and so is
    # a whole game (of at least FLURRY_WHOLE_GAME_MIN intervals) under it; 0 turns it off.
    flurry_gap_ms: int = 0
    flurry_run: int = 8


@dataclass(frozen=True)
class Finding:
    check: str  # bbbv_per_s | burst | flurry | rhythm | metronome | blind_pace | perfect_efficiency
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
        flurry_gap_ms=settings.FAIRPLAY_FLURRY_GAP_MS,
        flurry_run=settings.FAIRPLAY_FLURRY_RUN,
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


def longest_quick_run(intervals: Sequence[int], gap_ms: int) -> int:
    """The most consecutive intervals that are each shorter than `gap_ms`.

    >>> longest_quick_run([300, 8, 9, 7, 250, 8], 40)
    3
    """
    best = run = 0
    for gap in intervals:
        run = run + 1 if gap < gap_ms else 0
        best = max(best, run)
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
    >>> flurry = Limits(10.0, 10, 20, 60, 0.1, 20, flurry_gap_ms=40, flurry_run=8)
    >>> [f.as_dict() for f in superhuman_findings(
    ...     bbbv=9, bbbv_per_s=95.7, times_ms=list(range(0, 95, 8)), limits=flurry)]
    [{'check': 'flurry', 'value': 11, 'limit': 8}]
    """
    found: list[Finding] = []
    measurable = bbbv_per_s is not None and (bbbv or 0) >= limits.min_bbbv
    if measurable and bbbv_per_s is not None and bbbv_per_s > limits.max_bbbv_per_s:
        found.append(Finding("bbbv_per_s", round(bbbv_per_s, 3), limits.max_bbbv_per_s))
    burst = most_in_window(times_ms)
    if burst > limits.max_moves_per_second:
        found.append(Finding("burst", burst, limits.max_moves_per_second))
    intervals = [b - a for a, b in itertools.pairwise(times_ms)]
    if limits.flurry_gap_ms > 0 and len(intervals) >= FLURRY_WHOLE_GAME_MIN:
        # Moves can arrive packed after a network stall, but the page draws nothing until a
        # move is answered, so a hand cannot play far ahead blind: a long run, or a whole game,
        # received faster than any hand clicks was not clicked by one.
        needed = min(limits.flurry_run, len(intervals))
        run = longest_quick_run(intervals, limits.flurry_gap_ms)
        if run >= needed:
            found.append(Finding("flurry", run, needed))
    if len(intervals) >= limits.rhythm_min_moves:
        median = statistics.median(intervals)
        if median < limits.max_median_rhythm_ms:
            found.append(Finding("rhythm", median, limits.max_median_rhythm_ms))
        mean = statistics.fmean(intervals)
        variation = statistics.pstdev(intervals) / mean if mean > 0 else 0.0
        if variation < limits.min_rhythm_variation:
            found.append(Finding("metronome", round(variation, 4), limits.min_rhythm_variation))
    return found


# --- account checks: the last wins judged together (pure) -------------------------------------


@dataclass(frozen=True)
class AccountLimits:
    """What no human does over many wins (defaults and reasons: docs/FAIRPLAY.md)."""

    pace_wins: int  # the pace pools the moves of the account's last wins; 0 turns it off
    pace_min_intervals: int  # the pace is judged from this many pooled intervals on
    # The flattest hand protected: a rank correlation of think time and travel this low is
    # still a hand's; the pace is held only when the sample is below it by PACE_MARGIN_SE
    # standard errors (1/sqrt(n)), so more moves make the check sharper, never looser.
    min_pace_correlation: float
    perfect_wins: int  # clicks == 3BV with no flag on each of the last wins; 0 turns it off

    @property
    def wins(self) -> int:
        """How many of the account's last wins the checks read."""
        return max(self.pace_wins, self.perfect_wins)


@dataclass(frozen=True)
class Win:
    """What the account checks read of one won game."""

    clicks: int
    bbbv: int | None
    flags: int | None  # flag moves; None when not read (only read when it can matter)
    moves: Sequence[tuple[int, int, int]] = ()  # (x, y, at_ms) of its hand moves, in order


# At most this many stored moves are read for the pace (the newest wins first): enough for
# the statistic, and a bounded read at the end of a win.
ACCOUNT_MAX_MOVES = 2000
# How many standard errors below the flattest hand a pace must be to be held.
PACE_MARGIN_SE = 3.0


def pace_limit(min_correlation: float, intervals: int) -> float:
    """The correlation under which `intervals` pooled intervals are held: the flattest
    hand's, less PACE_MARGIN_SE standard errors of a correlation of that many.

    >>> round(pace_limit(0.09, 2000), 4)
    0.0229
    """
    return min_correlation - PACE_MARGIN_SE / math.sqrt(max(intervals, 1))


def account_limits() -> AccountLimits:
    return AccountLimits(
        pace_wins=settings.FAIRPLAY_PACE_WINS,
        pace_min_intervals=settings.FAIRPLAY_PACE_MIN_INTERVALS,
        min_pace_correlation=settings.FAIRPLAY_MIN_PACE_CORRELATION,
        perfect_wins=settings.FAIRPLAY_PERFECT_WINS,
    )


def pace_correlation(games: Iterable[Sequence[tuple[int, int, int]]]) -> tuple[float | None, int]:
    """Spearman's rank correlation between the time before each move and the distance (in
    cells) from the previous move's cell, pooled over the games; and how many intervals it
    had. A hand takes longer to reach a far cell (and to find the next move elsewhere) than
    the neighbour of the cell it just opened; a program that sleeps a random delay does not.
    None when it is undefined (every interval or every distance the same).

    >>> hand = [(0, 0, 0), (1, 0, 150), (1, 2, 450), (6, 2, 1100)]  # 1, 2 and 5 cells away
    >>> pace_correlation([hand])
    (1.0, 3)
    """
    gaps: list[int] = []
    travel: list[float] = []
    for moves in games:
        for (x0, y0, t0), (x1, y1, t1) in itertools.pairwise(moves):
            gaps.append(t1 - t0)
            travel.append(math.hypot(x1 - x0, y1 - y0))
    if len(gaps) < 2:
        return None, len(gaps)
    try:
        return statistics.correlation(gaps, travel, method="ranked"), len(gaps)
    except statistics.StatisticsError:  # one of them is constant
        return None, len(gaps)


def account_findings(
    *, wins: Sequence[Win], limits: AccountLimits, skip: Iterable[str] = ()
) -> list[Finding]:
    """What the account's last wins (newest first, the game being judged first) show
    together that no human does; `skip` names checks staff have cleared for this account.

    * `blind_pace`: over at least `pace_min_intervals` intervals pooled from the last
      `pace_wins` wins, the think time does not grow with the distance to the next move:
      its rank correlation is below `pace_limit` (the flattest hand's, less a margin).
    * `perfect_efficiency`: each of the last `perfect_wins` wins took exactly its 3BV in
      clicks, with no flag (the minimum there is, every time).
    """
    skipped = set(skip)
    found: list[Finding] = []
    if limits.pace_wins > 0 and "blind_pace" not in skipped:
        rho, n = pace_correlation(w.moves for w in wins[: limits.pace_wins])
        limit = pace_limit(limits.min_pace_correlation, n)
        if rho is not None and n >= limits.pace_min_intervals and rho < limit:
            found.append(Finding("blind_pace", round(rho, 4), round(limit, 4)))
    window = list(wins[: limits.perfect_wins])
    minimal = all(w.bbbv is not None and w.clicks == w.bbbv and w.flags == 0 for w in window)
    if (
        limits.perfect_wins > 0
        and "perfect_efficiency" not in skipped
        and len(window) >= limits.perfect_wins
        and minimal
    ):
        found.append(Finding("perfect_efficiency", len(window), limits.perfect_wins))
    return found


# --- at the end of a game (inside the services' transaction) ----------------------------------


def hold_if_superhuman(game: Game, *, player: User) -> Review | None:
    """Called by the services when a ranked game is won, before the statistics are written:
    a human's superhuman win is unranked as `review` and queued for staff. Bots are never
    held (their boards are their own)."""
    if not game.ranked or player.kind != AccountKind.HUMAN or game.level == "custom":
        return None
    # A daily's Move 1 is the server's opening at 0 ms, not a hand's (RULES.md, The daily).
    first_hand = 2 if game.server_opened else 1
    hand = list(
        Move.objects.filter(game=game, action__in=HAND_ACTIONS, seq__gte=first_hand)
        .order_by("seq")
        .values_list("action", "x", "y", "at_ms")
    )
    # The winning move itself is stored after the game row: its clock is the game's time.
    times = [at_ms for _, _, _, at_ms in hand] + [int(game.elapsed_ms or 0)]
    findings = superhuman_findings(
        bbbv=game.bbbv, bbbv_per_s=game.bbbv_per_s, times_ms=times, limits=limits_for(game.level)
    )
    findings += _account_findings(game, hand)
    if not findings:
        return None
    unrank(game, UnrankedReason.REVIEW)
    return Review(
        game=game,
        player_id=game.player_id,
        level=game.level,
        findings=[f.as_dict() for f in findings],
    )


HandMove = tuple[str, int | None, int | None, int]  # action, x, y, at_ms (hand moves have x, y)


def _account_findings(game: Game, hand: list[HandMove]) -> list[Finding]:
    """The account checks for the game being won (`hand`: its stored hand moves) and the
    account's previous wins on the six levels (race games are the races'). Two short reads
    by the player's recent-games index and the move index; the flags only when every win
    was minimal in clicks."""
    limits = account_limits()
    if limits.wins <= 0:
        return []
    skip = _cleared_account_checks(game.player_id)
    if all(check in skip for check in ACCOUNT_CHECKS):
        return []
    prior = list(
        Game.objects.filter(
            player_id=game.player_id, state=GameState.WON, race__isnull=True, level__in=list(LEVELS)
        )
        .exclude(pk=game.pk)
        .order_by("-ended_at")
        .values_list("id", "clicks", "bbbv", "seq")[: limits.wins - 1]
    )
    # The pace reads the newest wins' moves, up to ACCOUNT_MAX_MOVES of them.
    budget, read = ACCOUNT_MAX_MOVES - len(hand), []
    for game_id, _, _, seq in prior[: max(limits.pace_wins - 1, 0)]:
        if seq > budget:
            break
        read.append(game_id)
        budget -= seq
    moves: dict[Any, list[tuple[int, int, int]]] = {game_id: [] for game_id in read}
    for game_id, x, y, at_ms in (
        Move.objects.filter(game_id__in=read, action__in=HAND_ACTIONS)
        .order_by("game_id", "seq")
        .values_list("game_id", "x", "y", "at_ms")
    ):
        if x is not None and y is not None:
            moves[game_id].append((x, y, at_ms))
    recent = prior[: max(limits.perfect_wins - 1, 0)]
    minimal = [gid for gid, clicks, bbbv, _ in recent if clicks == bbbv]
    flagged: set[Any] = set()
    if limits.perfect_wins > 0 and len(minimal) == len(recent) and game.clicks == game.bbbv:
        flagged = set(
            Move.objects.filter(game_id__in=minimal, action=Action.FLAG)
            .values_list("game_id", flat=True)
            .distinct()
        )
    current = Win(
        clicks=game.clicks,
        bbbv=game.bbbv,
        flags=sum(1 for action, _, _, _ in hand if action == Action.FLAG),
        moves=[(x, y, t) for _, x, y, t in hand if x is not None and y is not None],
    )
    wins = [current] + [
        Win(
            clicks=clicks,
            bbbv=bbbv,
            flags=int(gid in flagged) if gid in minimal else None,
            moves=moves.get(gid, ()),
        )
        for gid, clicks, bbbv, _ in prior
    ]
    return account_findings(wins=wins, limits=limits, skip=skip)


def _cleared_account_checks(player_id: Any) -> set[str]:
    """The account checks named by a review staff cleared for this player: staff looked at
    the account and found it human, so those checks do not hold it again."""
    cleared: set[str] = set()
    for findings in Review.objects.filter(
        player_id=player_id, status=ReviewStatus.CLEARED
    ).values_list("findings", flat=True):
        for finding in findings or []:
            if isinstance(finding, dict) and finding.get("check") in ACCOUNT_CHECKS:
                cleared.add(str(finding["check"]))
    return cleared


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
        if game.daily is not None:  # a daily win ranks on its day's board, not the solo ones
            daily_standings.entry_rank(game_id=game.id, pool=game.player.board_pool)
            return _decided(review, ReviewStatus.CLEARED, staff)
        stats.record_ranked_win(
            user_id=game.player_id,
            level=game.level,
            no_guess=game.no_guess,
            pool=game.player.board_pool,
            game_id=game.id,
            elapsed_ms=int(game.elapsed_ms),
            bbbv_per_s=game.bbbv_per_s,
            ended_at=game.ended_at,
            no_flags=game.flags_placed == 0,
        )
        _decided(review, ReviewStatus.CLEARED, staff)
    return review


def _decided(review: Review, status: str, staff: User) -> Review:
    review.status = status
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
        SeasonRating.objects.filter(player=user).update(pool=BoardPool.NONE)
    return unranked


def pending_reviews() -> list[Review]:
    return list(
        Review.objects.filter(status=ReviewStatus.PENDING)
        .select_related("game", "player")
        .order_by("created_at")
    )


__all__ = [
    "ACCOUNT_CHECKS",
    "AccountLimits",
    "Finding",
    "Limits",
    "ReviewError",
    "Win",
    "account_findings",
    "account_flag",
    "account_limits",
    "hold_if_superhuman",
    "limits_for",
    "longest_quick_run",
    "most_in_window",
    "pace_correlation",
    "pace_limit",
    "pending_reviews",
    "reason_at_creation",
    "review_clear",
    "review_confirm",
    "superhuman_findings",
    "unrank",
]
