"""The daily challenge's writers (RULES.md, The daily challenge; docs/DAILY.md): dealing a
day's six boards, a player's one attempt, practice of a past day, and the day's end. Games
are written by games.play.services, the board and statistics by accounts.standings.daily.

    daily_deal  ->  daily_start (one per player, level and day)  ->  daily_close (the day's end)
    daily_practice: a past day, again, unranked
    daily_tick: what the clock does without any request (deal today's, close yesterday's)
"""

from __future__ import annotations

import logging
from datetime import date, datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.locks import lock_player
from accounts.models import User
from accounts.standings import daily as daily_standings
from accounts.standings.models import DailyEntry
from demineur_site import rawsql
from demineur_site.formats import iso
from games import engine
from games.daily import rules
from games.daily.models import DailyChallenge
from games.engine import Board
from games.errors import GameError
from games.play import levels, noguess
from games.play import services as play
from games.play.models import BoardSize, Game

log = logging.getLogger(__name__)

LEVELS = tuple(engine.LEVELS)  # the six levels, in the order the API lists them
# How often the daily clock folds the day's board histograms (accounts.standings.daily.compact).
COMPACT_EVERY = timedelta(seconds=10)
_compacted_at: datetime | None = None  # this process's last fold


def check_level(level: Any) -> str:
    """A daily exists for the six levels only: anything else is 404 `not_found`."""
    return levels.level_spec(level, what="daily", in_path=True).name


# --- dealing -----------------------------------------------------------------------------------


def _layout(challenge: DailyChallenge) -> dict[str, Any]:
    """What a player's copy of a daily is dealt from (games.play.services.daily_game_deal)."""
    return {
        "day": challenge.day,
        "level": challenge.level,
        "board": bytes(challenge.board),
        "start": (challenge.start_x, challenge.start_y),
    }


def daily_deal(*, day: date, level: str) -> DailyChallenge:
    """The day's daily of `level`, dealt on first need and kept: the start cell and the
    no-guess layout come from rules.draw (the server's secret), so two servers dealing the same
    day at once deal the same board and the unique (day, level) keeps one row. Outside any
    transaction: a no-guess search can take a moment (games.play.noguess)."""
    found = DailyChallenge.objects.filter(day=day, level=level).first()
    if found is not None:
        return found
    spec = engine.LEVELS[level]
    for attempt in range(rules.DEAL_TRIES):
        rng = rules.draw(settings.DAILY_SECRET, day, level, attempt)
        x, y = rng.randrange(spec.width), rng.randrange(spec.height)
        ask = noguess.LayoutAsk(
            spec.width,
            spec.height,
            spec.mines,
            x,
            y,
            str(rng.getrandbits(64)),
            budget_s=settings.NOGUESS_BUDGET_S,
        )
        # Never in this thread: the daily clock shares its process with the sockets' loop.
        layout = noguess.layout_for(ask, in_thread=False)
        if layout is None:
            continue
        board = Board.new(spec.width, spec.height, spec.mines)
        if board.reveal(x, y, rng, layout=layout).ended:
            continue  # an opening that clears the board is no challenge: the next draw
        try:
            with transaction.atomic():
                return DailyChallenge.objects.create(
                    day=day,
                    level=level,
                    **BoardSize.of(spec),
                    board=board.encode(),
                    start_x=x,
                    start_y=y,
                    bbbv=board.bbbv(),
                    opened=board.opened_count(),
                )
        except IntegrityError:  # another process dealt it first: theirs is the same board
            return DailyChallenge.objects.get(day=day, level=level)
    raise GameError(
        "daily_unavailable", "Today's daily for this level is not ready yet: try again shortly."
    )


# --- a player's attempt ------------------------------------------------------------------------


def daily_start(*, player: User, level: Any, now: datetime | None = None) -> tuple[Game, bool]:
    """The player's daily game of today on `level`: (the game, True) when this call created
    it, already opened at the day's start cell with the clock running; (the same game, False)
    on every later call (API.md: 201, then 200). One attempt per player, level and day."""
    level = check_level(level)
    now = now or timezone.now()
    day = rules.day_of(now)
    existing = _own_game(player, day, level)
    if existing is not None:
        return existing, False
    challenge = daily_deal(day=day, level=level)
    try:
        with transaction.atomic():
            # The player's row lock (as game_create): two first calls at once are one after
            # the other, and the second finds the first's game.
            lock_player(player)
            existing = _own_game(player, day, level)
            if existing is not None:
                return existing, False
            game = play.daily_game_deal(player=player, now=now, **_layout(challenge))
            daily_standings.entry_start(
                user=player,
                day=day,
                level=level,
                game_id=game.id,
                ranked=game.ranked,
                opened=game.opened,
                started_at=now,
            )
    except IntegrityError:  # the unique (user, day, level): another request made it first
        existing = _own_game(player, day, level)
        if existing is None:
            raise
        return existing, False
    return game, True


def _own_game(player: User, day: date, level: str) -> Game | None:
    entry = DailyEntry.objects.filter(user=player, day=day, level=level).only("game_id").first()
    if entry is None:
        return None
    return Game.objects.select_related("player", "analysis").filter(pk=entry.game_id).first()


def daily_practice(*, player: User, day: date, level: Any, now: datetime | None = None) -> Game:
    """A past day's daily again, unranked `practice`: a new game each call, from the same
    opening. Refused for today or later (409 `daily_not_over`), and for a day whose end the
    server has not handled yet (its last games may still be ending)."""
    level = check_level(level)
    now = now or timezone.now()
    if day >= rules.day_of(now):
        raise GameError(
            "daily_not_over",
            "This day's daily can be practised once the day has ended.",
            {"ends_at": iso(rules.day_end(day))},
        )
    challenge = DailyChallenge.objects.filter(day=day, level=level).first()
    if challenge is None:
        raise GameError("not_found", "No daily was played on this day.")
    if challenge.closed_at is None:
        raise GameError(
            "daily_not_over", "This day's end is being handled: try again in a few seconds."
        )
    with transaction.atomic():
        return play.daily_game_deal(player=player, now=now, practice=True, **_layout(challenge))


# --- the day's end -----------------------------------------------------------------------------


def daily_close(*, day: date, level: str, now: datetime | None = None) -> bool:
    """The end of `day` for `level`, once it is over: its games still running end as lost
    (abandoned), every ranked row takes its final place, and every game of the day is
    unsealed (boards, replays and analyses become public). Idempotent: run again, it ends and
    unseals what a game started at the last instant left. Returns whether it did anything."""
    now = now or timezone.now()
    if now < rules.day_end(day):
        return False
    challenge = DailyChallenge.objects.filter(day=day, level=level).first()
    if challenge is None:
        return False
    left = Game.objects.filter(daily=day, level=level, sealed=True).exists()
    if challenge.closed_at is not None and not left:
        return False
    ended = play.daily_games_end(day=day, level=level, now=now)
    placed = daily_standings.day_close(day=day, level=level)
    play.daily_games_unseal(day=day, level=level)
    DailyChallenge.objects.filter(pk=challenge.pk, closed_at__isnull=True).update(closed_at=now)
    log.info("daily %s %s closed: %d games ended, %d placed", day, level, ended, placed)
    return True


def _clock_work(today: date) -> tuple[list[tuple[date, str]], set[str]]:
    """What the daily clock's tick has to do, in one hand-written statement (it runs every
    second in every live process; docs/PERFORMANCE.md, "The clocks"): the past dailies to
    close (`daily_close`: not closed yet, or yesterday's with a game still sealed, one started
    at the last instant), in day order, and the levels of today already dealt."""
    challenge, game = DailyChallenge._meta.db_table, Game._meta.db_table
    found = rawsql.rows(
        "default",
        f"SELECT c.day, c.level, c.day = %s FROM {challenge} c WHERE c.day = %s"
        " OR (c.day < %s AND (c.closed_at IS NULL OR (c.day = %s AND EXISTS ("
        f"SELECT 1 FROM {game} g WHERE g.daily = c.day AND g.level = c.level AND g.sealed))))"
        " ORDER BY c.day, c.level",
        [today, today, today, today - timedelta(days=1)],
    )
    to_close = [(_day(day), level) for day, level, is_today in found if not is_today]
    return to_close, {level for _, level, is_today in found if is_today}


def _day(value: date | str) -> date:
    """A date column as a date (SQLite's raw rows give its text)."""
    return value if isinstance(value, date) else date.fromisoformat(value)


def daily_tick(*, now: datetime | None = None) -> int:
    """What the server does about dailies without any request (the daily clock, docs/DAILY.md):
    close the days that have ended (yesterday's, or older ones a stopped server missed), and
    deal today's six ahead of the first player. Returns how many dailies it closed or dealt."""
    now = now or timezone.now()
    today = rules.day_of(now)
    acted = 0
    to_close, dealt = _clock_work(today)
    for day, level in to_close:
        acted += daily_close(day=day, level=level, now=now)
    global _compacted_at
    if _compacted_at is None or now - _compacted_at >= COMPACT_EVERY or now < _compacted_at:
        # The day's board histograms (accounts migration 0014): a log of deltas, folded here.
        daily_standings.compact(day=today)
        _compacted_at = now
    for level in LEVELS:
        if level not in dealt:
            try:
                daily_deal(day=today, level=level)
                acted += 1
            except GameError:
                log.warning("daily %s %s could not be dealt this tick", today, level)
    return acted
