"""Analysing ended games off the request path (docs/ANALYSIS.md, The worker).

A game's end commits first; then the analysis worker of some process (a daemon thread started
beside the race clock, :func:`start_in_process`; or `manage.py analyse_games`) picks it up:
it claims the game's row with SKIP LOCKED (so two processes never analyse one game twice),
replays it with games.play.analysis, stores a :class:`GameAnalysis`, and for a solo game
updates its player's luck statistics in the same transaction (accounts.standings.stats
.record_analysis: unlucky losses, forced guesses survived, the skill streak in end order) and
their insights (accounts.standings.insights.record_game: the game's sums of its month).

The queue is two partial indexes of games by end (games 0007): solo games from a watermark
that trails the oldest game still waiting, race games from the longest race time limit ago
(a race game waits, sealed, until its race ends). Games older than LOOKBACK when a process
starts (before this feature, or ended while no worker ran) are analysed by
`manage.py analyse_games`.

Rooms above play act on an analysed game without play importing them: a listener registered
with :func:`on_analysed` (games.apps registers the puzzles' generator) is called with the game's
id after its analysis has committed, outside that transaction; its failure is logged and undoes
nothing.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from accounts.standings import insights, stats
from accounts.standings.records import LuckMonths, bucket_for, luck_months_after
from games.play import analysis, overlays, selectors
from games.play.background import BackgroundLoop, drop_connections
from games.play.models import ENDED_STATES, SOLO, EndReason, Game, GameAnalysis, GameState, Move

log = logging.getLogger(__name__)

LOOKBACK = timedelta(hours=24)  # how far back a starting worker looks
SETTLE = timedelta(seconds=60)  # the solo watermark trails now by this much (slow commits)
DAILY_WINDOW = timedelta(hours=48)  # daily games are looked for this far back (their day's end)
BATCH = 20
IDLE_S = 1.0  # the wait between polls of an empty queue
BUSY_PAUSE_S = 0.02  # the pause between two analyses (lets request threads have the GIL)

_analysed: list[Callable[[Any], None]] = []


def on_analysed(listener: Callable[[Any], None]) -> None:
    """Call `listener(game_id)` after each analysis this process stores (once per listener)."""
    if listener not in _analysed:
        _analysed.append(listener)


def compute(game: Game) -> analysis.Analysis:
    """The analysis of an ended game, from its stored layout and moves."""
    from games.engine import Board

    layout = Board.decode(bytes(game.board)).to_ascii()
    moves = [
        analysis.MoveIn(seq, action, x, y, flagged)
        for seq, action, x, y, flagged in Move.objects.filter(game_id=game.pk)
        .order_by("seq")
        .values_list("seq", "action", "x", "y", "flagged")
    ]
    # A race or daily game's Move 1 is the server's opening, not the player's (RULES.md).
    server_moves = 1 if game.server_opened else 0
    return analysis.analyse(
        width=game.width,
        height=game.height,
        layout=layout,
        moves=moves,
        server_moves=server_moves,
    )


def analyse_game(game_id: Any, *, fold: bool = True) -> bool:
    """Analyse one ended, unsealed game and store it, once. True when this call stored it
    (False: not ended, sealed, already analysed, or being analysed by another worker).
    `fold` False leaves the skill streak to a later `refold` (the backfill)."""
    with transaction.atomic():
        game = selectors.claim_game(game_id, state__in=ENDED_STATES, analysis__isnull=True)
        if game is None:
            return False
        started = time.perf_counter()
        result = compute(game)
        luck = result.luck
        GameAnalysis.objects.create(
            game=game,
            moves=[m.as_dict() for m in result.moves],
            forced_guesses=result.forced_guesses,
            avoidable_guesses=result.avoidable_guesses,
            guesses_survived=result.guesses_survived,
            unlucky_loss=result.unlucky_loss,
            exact=result.exact,
            compute_ms=round((time.perf_counter() - started) * 1000),
            folded=False,
            coin_flips_lost=luck.coin_flips_lost,
            survival_chance=luck.survival_chance,
            expected_survivals=luck.expected_survivals,
        )
        overlays.store(game)  # the replay's probability overlay, in the same transaction
        if game.solo:  # race games count in race statistics only, dailies in the daily ones
            stats.record_analysis(
                user_id=game.player_id,
                level=game.level,
                no_guess=game.no_guess,
                unlucky_loss=result.unlucky_loss,
                guesses_survived=result.guesses_survived,
                outcomes=(lambda: skill_outcomes(game)) if fold else (lambda: (False, [])),
                coin_flips=(
                    luck_month(game.ended_at or timezone.now()),  # an ended game has one
                    (luck.coin_flips_won, luck.coin_flips_lost, luck.expected_survivals),
                ),
            )
            insights.record_game(
                user_id=game.player_id,
                bucket=bucket_for(game.level, game.no_guess),
                share=insight_share(
                    game,
                    [(m.seq, m.label) for m in result.moves],
                    _move_times(Move.objects.filter(game_id=game.pk)),
                    (luck.coin_flips_won, luck.coin_flips_lost, luck.expected_survivals),
                ),
            )
    for listener in _analysed:
        try:
            listener(game_id)
        except Exception:
            log.exception("a listener of the analysis of game %s failed", game_id)
    return True


# --------------------------------------------------------------------------- the skill streak


def _bucket_games(game: Game) -> Any:
    """The solo games of `game`'s statistics bucket (its player, level or custom, mode)."""
    from accounts.models import RANKED_LEVELS

    games = Game.objects.filter(
        SOLO, player_id=game.player_id, no_guess=game.no_guess, ended_at__isnull=False
    )
    if game.level in RANKED_LEVELS:
        return games.filter(level=game.level)
    return games.exclude(level__in=list(RANKED_LEVELS))


def _outcome(state: str, end_reason: str | None, unlucky: bool | None) -> str:
    if state == GameState.WON:
        return "win"
    return "unlucky" if unlucky and end_reason == EndReason.MINE else "loss"


def skill_outcomes(game: Game) -> tuple[bool, list[str]]:
    """What the skill streak of `game`'s bucket has to fold, under its PlayerStats row lock
    (accounts.standings.stats.record_analysis calls it): (restart, outcomes in end order).

    End order is (ended_at, id). The streak folds analysed games in that order, from the
    player's first analysed game of the bucket, up to the first game not analysed yet (it
    waits there). An analysis that lands behind the last folded game (an end that committed
    late, or the backfill) restarts the fold from the beginning."""
    games = _bucket_games(game)
    last = (
        games.filter(analysis__folded=True)
        .order_by("-ended_at", "-id")
        .values_list("ended_at", "id")
        .first()
    )
    restart = last is not None and (game.ended_at, game.id) < last
    tail = games
    if restart:
        GameAnalysis.objects.filter(game__in=games, folded=True).update(folded=False)
    elif last is not None:
        at, gid = last
        tail = games.filter(Q(ended_at__gt=at) | Q(ended_at=at, id__gt=gid))
    rows = tail.order_by("ended_at", "id").values_list(
        "id", "state", "end_reason", "analysis__unlucky_loss", "analysis__game"
    )
    outcomes: list[str] = []
    folded: list[Any] = []
    started = last is not None and not restart
    for gid, state, reason, unlucky, analysed in rows.iterator(chunk_size=500):
        if analysed is None:
            if started:
                break  # wait for this game's analysis
            continue  # before the first analysed game: not counted
        started = True
        outcomes.append(_outcome(state, reason, unlucky))
        folded.append(gid)
    if folded:
        GameAnalysis.objects.filter(game_id__in=folded).update(folded=True)
    return restart or last is None, outcomes


def luck_month(ended_at: datetime) -> str:
    """The month a game's coin flips count in (docs/STATS.md, Luck, measured): of its end, UTC."""
    return ended_at.astimezone(UTC).strftime("%Y-%m")


def _luck_months(games: Any) -> LuckMonths:
    """The coin flips of a bucket's analysed games, per month, counted again from their rows."""
    months: LuckMonths = {}
    rows = games.filter(analysis__expected_survivals__isnull=False).values_list(
        "ended_at",
        "analysis__guesses_survived",
        "analysis__coin_flips_lost",
        "analysis__expected_survivals",
    )
    for ended_at, won, lost, expected in rows.iterator(chunk_size=500):
        months = luck_months_after(months, luck_month(ended_at), (won, lost, expected))
    return months


# --------------------------------------------------------------------------- insights

# A game's moves as the insights read them: seq -> (x, y, at_ms).
MoveTimes = dict[int, tuple[int | None, int | None, int]]


def _move_times(moves: Any) -> MoveTimes:
    return {
        seq: (x, y, at_ms)
        for seq, x, y, at_ms in moves.order_by("seq").values_list("seq", "x", "y", "at_ms")
    }


def insight_share(
    game: Game,
    labels: list[tuple[int, str]],
    times: MoveTimes,
    flips: tuple[int, int, float],
) -> insights.GameShare:
    """What an analysed game adds to its player's insights (docs/STATS.md, Insights): each
    labelled move with its think time, the game clock since the move before it (any move,
    a flag too), and its cell."""
    moves: list[insights.Labelled] = []
    for seq, label in labels:
        x, y, at_ms = times.get(seq, (None, None, 0))
        before = times.get(seq - 1)
        think = at_ms - before[2] if before is not None else None
        moves.append(insights.Labelled(label, think, x or 0, y or 0))
    won = game.state == GameState.WON
    clicks = game.clicks or 0
    return insights.game_share(
        month=luck_month(game.ended_at or timezone.now()),
        level=game.level,
        width=game.width,
        height=game.height,
        won=won,
        bbbv_per_s=game.bbbv_per_s,
        ioe=(game.bbbv_solved or 0) / clicks if won and clicks else None,
        moves=moves,
        flips=flips,
    )


def _insight_shares(games: Any) -> Any:
    """The insight shares of a bucket's analysed games, read again from their stored analyses
    and moves, 500 games at a time."""
    analysed = games.filter(analysis__isnull=False).select_related("analysis").defer("board")
    chunk: list[Game] = []
    for game in analysed.order_by("ended_at", "id").iterator(chunk_size=500):
        chunk.append(game)
        if len(chunk) == 500:
            yield from _shares_of(chunk)
            chunk = []
    yield from _shares_of(chunk)


def _shares_of(chunk: list[Game]) -> Any:
    times: dict[Any, MoveTimes] = {}
    rows = Move.objects.filter(game_id__in=[g.pk for g in chunk]).values_list(
        "game_id", "seq", "x", "y", "at_ms"
    )
    for game_id, seq, x, y, at_ms in rows.iterator(chunk_size=5000):
        times.setdefault(game_id, {})[seq] = (x, y, at_ms)
    for game in chunk:
        a = game.analysis
        labels = [(int(m["seq"]), str(m["label"])) for m in a.moves or []]
        flips = (a.guesses_survived, a.coin_flips_lost, a.expected_survivals or 0.0)
        yield insight_share(game, labels, times.get(game.pk, {}), flips)


def refold(*, player_id: int, level: str, no_guess: bool) -> None:
    """Recompute one bucket's skill and luck-adjusted streaks, its coin flips per month and its
    insights from every analysed game (after a backfill)."""
    game = _bucket_games(Game(player_id=player_id, level=level, no_guess=no_guess)).first()
    if game is None:
        return
    with transaction.atomic():
        GameAnalysis.objects.filter(game__in=_bucket_games(game)).update(folded=False)

        def everything() -> tuple[bool, list[str]]:
            return skill_outcomes(game)

        stats.record_analysis(
            user_id=player_id,
            level=level,
            no_guess=no_guess,
            unlucky_loss=False,
            guesses_survived=0,
            outcomes=everything,
            luck_months=_luck_months(_bucket_games(game)),
        )
        months, heat = insights.fold(_insight_shares(_bucket_games(game)))
        insights.replace_bucket(
            user_id=player_id, bucket=bucket_for(level, no_guess), months=months, heat=heat
        )


# --------------------------------------------------------------------------- the queue


def _race_window() -> timedelta:
    limits = getattr(settings, "RACE_TIME_LIMITS_S", {}) or {}
    longest = max(limits.values(), default=3600)
    return timedelta(seconds=int(longest)) + timedelta(minutes=10)


class AnalysisWorker(BackgroundLoop):
    """Polls the queue and analyses what it finds, one game at a time."""

    stop_timeout = 5.0

    def __init__(self, *, now: datetime | None = None) -> None:
        super().__init__(name="game-analysis")
        self.solo_mark = (now or timezone.now()) - LOOKBACK
        self.failed: set[Any] = set()
        self.analysed = 0

    def pending(self, *, now: datetime | None = None, limit: int = BATCH) -> list[Any]:
        """The ids of ended games waiting for their analysis, oldest end first."""
        now = now or timezone.now()
        waiting = Game.objects.filter(analysis__isnull=True).exclude(pk__in=list(self.failed))
        solo = list(
            waiting.filter(SOLO, ended_at__gte=self.solo_mark)
            .order_by("ended_at", "id")
            .values_list("id", "ended_at")[:limit]
        )
        oldest = min([at for _, at in solo if at is not None] + [now - SETTLE])
        self.solo_mark = max(self.solo_mark, oldest)
        race = list(
            waiting.filter(race__isnull=False, sealed=False, ended_at__gte=now - _race_window())
            .order_by("ended_at", "id")
            .values_list("id", flat=True)[:limit]
        )
        # Daily games wait for their day's end (sealed until then), practice games not at all:
        # both are looked for over the last two days, a day's end being at most one day back.
        daily = list(
            waiting.filter(daily__isnull=False, sealed=False, ended_at__gte=now - DAILY_WINDOW)
            .order_by("ended_at", "id")
            .values_list("id", flat=True)[:limit]
        )
        return [gid for gid, _ in solo] + race + daily

    def run_once(self, *, now: datetime | None = None) -> int:
        """Analyse what is waiting now; how many this worker stored."""
        done = 0
        for game_id in self.pending(now=now):
            if self._stop.is_set():
                break
            try:
                if analyse_game(game_id):
                    done += 1
            except Exception:
                self.failed.add(game_id)
                log.exception("analysis of game %s failed", game_id)
            time.sleep(BUSY_PAUSE_S)
        self.analysed += done
        return done

    def run(self) -> None:
        while not self._stop.is_set():
            try:
                busy = self.run_once()
            except Exception:
                log.exception("analysis worker poll failed")
                drop_connections()
                busy = 0
            self._stop.wait(BUSY_PAUSE_S if busy else IDLE_S)
        connection.close()


def unread_games(missing: str) -> Any:
    """The ids of every ended, unsealed game with no `missing` row yet (a reverse relation of
    Game's), oldest end first: what a back-fill still has to read."""
    return (
        Game.objects.filter(state__in=ENDED_STATES, sealed=False, **{f"{missing}__isnull": True})
        .order_by("ended_at", "id")
        .values_list("id", flat=True)
    )


def backlog() -> Any:
    """Every ended, unsealed game without an analysis, oldest end first (the backfill)."""
    return unread_games("analysis")


__all__ = [
    "AnalysisWorker",
    "analyse_game",
    "backlog",
    "compute",
    "insight_share",
    "luck_month",
    "on_analysed",
    "refold",
    "skill_outcomes",
    "unread_games",
]
