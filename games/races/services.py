"""The only writers of races (RULES.md and API.md, Races; docs/RACES.md). Like games.play.services:
keyword-only arguments, one transaction per action, row locks, events after the commit.

    race_create -> race_join / race_ready / race_leave -> race_start (host) or all ready
        -> countdown (3 s) -> race_begin (the race clock) -> racers play their Games
        -> race_end (every racer done, or the time limit: the race clock) -> places, ratings
    queue_join / queue_leave: quick match; race_clock_tick forms races from the queue

Locks, always in this order (never the other way round, so no two transactions can wait on
each other): the player's user row, then game rows (by id), then the race row, then racers.
The race clock (games.races.clock) calls race_clock_tick about ten times a second: nothing
here waits for a request to start or end a race, and every deadline is stored (Race.deadline),
so a restarted server picks up where it was.

Over 400 lines on purpose: it is the single writer of races, and every action shares the one
lock order above and one way to number and publish (`_bump`); the pure rules are in
games.races.rules, the reads in games.races.selectors.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, TypeVar

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Model
from django.utils import timezone

from accounts.locks import lock_player
from accounts.models import AccountKind, User
from accounts.standings import ratings, seasons
from accounts.standings.models import RaceRating, SeasonRating
from accounts.standings.records import base_level, bucket_for
from demineur_site import rawsql
from games import engine
from games.errors import GameError
from games.play import events as play_events
from games.play import levels, services
from games.play.models import Action, BoardSize, Game, GameState, Move
from games.play.selectors import row_by_id
from games.races import events as race_events
from games.races import rules as race_rules
from games.races.models import (
    ACTIVE_RACE_STATES,
    Race,
    RaceQueueEntry,
    Racer,
    RacerState,
    RaceState,
)
from games.races.presenters import race_dict

log = logging.getLogger(__name__)

# The row create_with_code makes under a fresh code: a Race, or an Arena (games.arenas).
CodedRow = TypeVar("CodedRow", bound=Model)


# --- reading helpers shared with games.races.selectors ------------------------------------------


def racers_of(race: Race) -> list[Racer]:
    return list(
        Racer.objects.filter(race=race)
        .select_related("player", "game")
        .defer("game__board")
        .order_by("joined_at", "id")
    )


def race_json(race: Race, *, now: datetime | None = None) -> dict[str, Any]:
    return race_dict(race, racers_of(race), now=now)


STREAM_KINDS = {"started": "race_start", "ended": "race_end"}

# What the rooms above races hang on a race's end and on the clock's tick (games.apps wires
# them: games.arenas scores an arena race at its end and pairs its pools on each tick), so
# that races never imports them (docs/ARCHITECTURE.md, The rooms).
RaceEndListener = Callable[[Race, list[Racer]], None]
TickListener = Callable[[datetime], int]
# A room above races that keeps a player busy (an arena they are in): raises GameError
# `already_racing` when `player` may not enter a race or a queue now.
BusyCheck = Callable[[User], None]
_end_listeners: list[RaceEndListener] = []
_tick_listeners: list[TickListener] = []
_busy_checks: list[BusyCheck] = []


def on_race_end(listener: RaceEndListener) -> None:
    """Call `listener(race, racers)` in the transaction that ends a race, once its places,
    `took_part` and ratings are stored (a listener that needs other rows' locks defers its work
    to the commit: this transaction holds the race's games and their players' rows)."""
    if listener not in _end_listeners:
        _end_listeners.append(listener)


def on_clock_tick(listener: TickListener) -> None:
    """Call `listener(now)` at the end of every tick of the race clock."""
    if listener not in _tick_listeners:
        _tick_listeners.append(listener)


def on_busy_check(check: BusyCheck) -> None:
    """Call `check(player)` before a player opens, joins or queues for a race: the rooms
    above races say there whether the player is busy with them (an arena)."""
    if check not in _busy_checks:
        _busy_checks.append(check)


def _publish(kind: str, race: Race) -> None:
    racers = racers_of(race)
    body = race_dict(race, racers)
    race_events.race_on_commit(race.id, race_events.race_event(kind, race=body))
    if kind in STREAM_KINDS:  # each racer's event stream (/api/stream/event)
        for racer in racers:
            play_events.player_on_commit(
                racer.player_id, {"type": STREAM_KINDS[kind], "race": body}
            )


def _bump(race: Race, kind: str) -> None:
    """Take the race's next seq, save it, and publish `kind` with the race as it now is."""
    race.seq += 1
    race.save()
    _publish(kind, race)


# --- checks ------------------------------------------------------------------------------------


def check_not_racing(player: User, *, arena_id: Any = None) -> None:
    """409 `already_racing` for a player in an open or running race, or waiting for a quick
    match (API.md): the race and queue half of "one race, queue place or arena at a time",
    for races and arenas alike. With `arena_id`, a race of that arena does not count (a player
    who left the arena during that race and comes back)."""
    in_race = Racer.objects.filter(player=player, active=True)
    if arena_id is not None:
        in_race = in_race.exclude(race__arena_id=arena_id)
    if in_race.exists():
        raise GameError("already_racing", "You are already in a race: finish or leave it first.")
    if RaceQueueEntry.objects.filter(player=player, race__isnull=True).exists():
        raise GameError("already_racing", "You are waiting for a quick match: leave it first.")


def _check_free(player: User) -> None:
    """A player is in at most one open or running race or queue, and in no running arena
    (API.md: 409 already_racing; the arena's half is the check games.arenas registers)."""
    check_not_racing(player)
    for check in _busy_checks:
        check(player)


def _lock_race(race_id: Any) -> Race:
    rows = Race.objects.select_for_update(of=("self",)).select_related("host")
    return row_by_id(rows, race_id, what="race")


def _level_spec(level: Any) -> engine.Level:
    return levels.level_spec(level, what="races")


# --- rooms -------------------------------------------------------------------------------------


def rating_level(race: Race) -> str:
    """The key of a race's ratings, rating pairs and quick-match queue: its level, or its
    level's no-guess bucket (accounts.standings.records.bucket_for; docs/NOGUESS.md)."""
    return bucket_for(race.level, race.no_guess)


def race_time_limit_ms(level: str) -> int:
    """The time limit of a race on `level` (a level's name), in milliseconds, from the
    RACE_TIME_LIMITS_S setting. It is fixed on a race at its creation, and on an arena, whose
    races run on its level."""
    return round(settings.RACE_TIME_LIMITS_S[level] * 1000)


# How many codes a new race or arena may draw before giving up: there are 31**6 codes (some
# 887 million), so one clash is rare and ten in a row would mean something else is wrong.
CODE_TRIES = 10


def create_with_code(
    create: Callable[[str], CodedRow],
    *,
    what: str,
    other_clash: Callable[[], bool] | None = None,
) -> CodedRow:
    """The row `create(code)` makes under a fresh code (games.races.rules.new_code: races and
    arenas draw their codes alike). Each try runs in an atomic block of its own (a savepoint
    inside the caller's transaction), and an IntegrityError there is taken for a code already
    in use: another code is drawn, up to CODE_TRIES times, then RuntimeError "could not draw
    a free <what> code". When `other_clash()`, asked after such an error, says another unique
    constraint failed instead, the error is raised as it is."""
    for _ in range(CODE_TRIES):
        try:
            with transaction.atomic():
                return create(race_rules.new_code())
        except IntegrityError:
            if other_clash is not None and other_clash():
                raise
    raise RuntimeError(f"could not draw a free {what} code")


def _new_race(
    *,
    level: str,
    host: User,
    max_players: int,
    now: datetime,
    quick: bool,
    no_guess: bool = False,
    arena_id: Any = None,
) -> Race:
    spec = _level_spec(level)
    created_by = None if quick else host
    return create_with_code(
        lambda code: Race.objects.create(
            code=code,
            level=spec.name,
            **BoardSize.of(spec),
            host=host,
            created_by=created_by,
            max_players=max_players,
            quick=quick,
            no_guess=no_guess,
            arena_id=arena_id,
            time_limit_ms=race_time_limit_ms(spec.name),
            created_at=now,
            deadline=now + timedelta(milliseconds=race_rules.OPEN_ROOM_MS),
        ),
        what="race",
    )


def race_create(
    *,
    player: User,
    level: Any,
    max_players: int = race_rules.MAX_RACERS,
    no_guess: bool = False,
) -> Race:
    """A new open race; its creator is its host and first racer. A no-guess race deals a
    no-guess layout and rates in its level's no-guess ratings."""
    _level_spec(level)
    if not race_rules.MIN_RACERS <= max_players <= race_rules.MAX_RACERS:
        raise GameError("invalid", "max_players must be between 2 and 8.")
    now = timezone.now()
    with transaction.atomic():
        lock_player(player)
        _check_free(player)
        _check_open_rooms(player)
        race = _new_race(
            level=level,
            host=player,
            max_players=max_players,
            now=now,
            quick=False,
            no_guess=no_guess,
        )
        Racer.objects.create(race=race, player=player, joined_at=now)
        _bump(race, "joined")
    return race


def _check_open_rooms(player: User) -> None:
    """An account keeps at most MAX_OPEN_ROOMS rooms it opened waiting to start: a room stays
    listed after its creator leaves while someone waits in it (docs/RACES.md, Rooms)."""
    waiting = Race.objects.filter(
        created_by=player, state__in=(RaceState.OPEN, RaceState.COUNTDOWN)
    ).count()
    if waiting >= race_rules.MAX_OPEN_ROOMS:
        raise GameError(
            "too_many_rooms",
            f"You already have {waiting} rooms waiting to start: start or leave one first.",
            {"max_open_rooms": race_rules.MAX_OPEN_ROOMS},
        )


def race_join(*, race_id: Any, player: User) -> Race:
    now = timezone.now()
    with transaction.atomic():
        lock_player(player)
        race = _lock_race(race_id)
        if Racer.objects.filter(race=race, player=player, active=True).exists():
            return race  # already in: joining again changes nothing
        if race.state != RaceState.OPEN:
            raise GameError("race_closed", "This race has started or ended.")
        if Racer.objects.filter(race=race).count() >= race.max_players:
            raise GameError("race_full", "This race is full.", {"max_players": race.max_players})
        _check_free(player)
        Racer.objects.create(race=race, player=player, joined_at=now)
        _bump(race, "joined")
    return race


def _own_racer(race: Race, player: User) -> Racer:
    racer = Racer.objects.filter(race=race, player=player).select_related("game").first()
    if racer is None or not racer.active:
        raise GameError("not_in_race", "You are not racing in this race.")
    return racer


def race_leave(*, race_id: Any, player: User) -> Race:
    """Before the start: out of the room (the next racer to have joined becomes host; a room
    left empty is cancelled; a countdown left with one racer stops). Running: the racer's game
    ends as lost and they are `left` (RULES.md, Races)."""
    now = timezone.now()
    with transaction.atomic():
        lock_player(player)
        race = row_by_id(Race.objects.only("id", "state"), race_id, what="race")
        if race.state == RaceState.RUNNING:
            return _leave_running(race_id=race.id, player=player, now=now)
        race = _lock_race(race.id)
        if race.state not in (RaceState.OPEN, RaceState.COUNTDOWN):
            raise GameError("race_closed", "This race has ended.")
        racer = _own_racer(race, player)
        racer.delete()
        left = racers_of(race)
        if not left:
            race.state = RaceState.CANCELLED
            race.ended_at, race.deadline, race.starts_at = now, None, None
        else:
            if race.host_id == player.pk:
                race.host = left[0].player
            if race.state == RaceState.COUNTDOWN and len(left) < race_rules.MIN_RACERS:
                if race.arena_id is not None:  # an arena's race is no room: it is called off
                    Racer.objects.filter(race=race).update(active=False)
                    race.state = RaceState.CANCELLED
                    race.ended_at, race.deadline, race.starts_at = now, None, None
                else:
                    _reopen(race)
        _bump(race, "left")
    return race


def _leave_running(*, race_id: Any, player: User, now: datetime) -> Race:
    racer = Racer.objects.filter(race_id=race_id, player=player, active=True).first()
    if racer is None or racer.game_id is None:
        raise GameError("not_in_race", "You are not racing in this race.")
    game = Game.objects.select_for_update().select_related("player").get(pk=racer.game_id)
    services.race_game_end(game, now=now)  # takes the race's seq: progress, finished
    return Race.objects.get(pk=race_id)


def race_ready(*, race_id: Any, player: User, ready: bool = True) -> Race:
    """Mark yourself ready (or not). Once every racer, at least two, is ready, the countdown
    starts by itself."""
    now = timezone.now()
    with transaction.atomic():
        lock_player(player)
        race = _lock_race(race_id)
        if race.state != RaceState.OPEN:
            raise GameError("race_closed", "This race has started or ended.")
        racer = _own_racer(race, player)
        if racer.ready != ready:
            racer.ready = ready
            racer.save(update_fields=["ready"])
            _bump(race, "ready")
        racers = racers_of(race)
        if len(racers) >= race_rules.MIN_RACERS and all(r.ready for r in racers):
            _countdown(race, now=now)
    return race


def race_start(*, race_id: Any, player: User) -> Race:
    """The host starts the countdown (at least two racers, ready or not). On a race already
    counting down (every racer was ready, or quick match) it is an accepted no-op (API.md)."""
    now = timezone.now()
    with transaction.atomic():
        race = _lock_race(race_id)
        if race.host_id != player.pk:
            raise GameError("not_race_host", "Only the race's host can start it.")
        if race.state == RaceState.COUNTDOWN:
            return race
        if race.state != RaceState.OPEN:
            raise GameError("race_closed", "This race has started or ended.")
        if Racer.objects.filter(race=race).count() < race_rules.MIN_RACERS:
            raise GameError("race_needs_players", "A race needs at least two racers.")
        _countdown(race, now=now)
    return race


def _reopen(race: Race) -> None:
    """A countdown left with one racer: the room is open again, until its room deadline."""
    race.state, race.starts_at = RaceState.OPEN, None
    race.deadline = race.created_at + timedelta(milliseconds=race_rules.OPEN_ROOM_MS)


def race_expire(*, race_id: Any, now: datetime | None = None) -> bool:
    """Cancel a room still open OPEN_ROOM_MS after its creation (the race clock calls it):
    its racers are free again. Returns whether it was cancelled."""
    now = now or timezone.now()
    with transaction.atomic():
        race = _lock_race(race_id)
        if race.state != RaceState.OPEN or race.deadline is None or race.deadline > now:
            return False
        Racer.objects.filter(race=race).update(active=False)
        race.state = RaceState.CANCELLED
        race.ended_at, race.deadline = now, None
        _bump(race, "left")
    return True


def _countdown(race: Race, *, now: datetime) -> None:
    race.state = RaceState.COUNTDOWN
    race.starts_at = now + timedelta(milliseconds=race_rules.COUNTDOWN_MS)
    race.deadline = race.starts_at
    _bump(race, "countdown")


# --- the start ---------------------------------------------------------------------------------


def _race_rng(race: Race) -> random.Random:
    """The race's one layout (games.play.services.layout_rng), seeded per race code in tests."""
    return services.layout_rng(race.width, race.height, race.mines, scope=f":race:{race.code}")


def race_begin(*, race_id: Any, now: datetime | None = None) -> bool:
    """The end of the countdown (the race clock calls it): one layout placed around a start
    cell the server chooses, opened for every racer as their first move (seq 1), every clock
    started at this instant. Returns whether the race started."""
    now = now or timezone.now()
    with transaction.atomic():
        race = _lock_race(race_id)
        if race.state != RaceState.COUNTDOWN or race.starts_at is None or race.starts_at > now:
            return False
        racers = racers_of(race)
        if len(racers) < race_rules.MIN_RACERS:  # cannot happen: leaving reopens the room
            _reopen(race)
            _bump(race, "left")
            return False
        pools = [r.player.board_pool for r in racers]
        race.rated = bool(race_rules.rated_pools(pools))
        dealt = services.deal_opened_games(
            [r.player for r in racers],
            level=race.level,
            width=race.width,
            height=race.height,
            mines=race.mines,
            rng=_race_rng(race),
            now=now,
            race=race,
            no_guess=race.no_guess,
        )
        games, won_at_once, (x, y) = dealt.games, dealt.won_at_once, dealt.opening
        for racer, game, pool in zip(racers, games, pools, strict=True):
            racer.game = game
            racer.pool = pool
            racer.state = RacerState.WON if won_at_once else RacerState.RACING
            if won_at_once:
                racer.elapsed_ms, racer.active = 0, False
        Racer.objects.bulk_update(racers, ["game", "pool", "state", "elapsed_ms", "active"])
        race.state = RaceState.RUNNING
        race.racing = 0 if won_at_once else len(racers)
        race.started_at = now
        race.start_x, race.start_y = x, y
        race.deadline = now if won_at_once else now + timedelta(milliseconds=race.time_limit_ms)
        _bump(race, "started")
    return True


# --- the end -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Rated:
    """A racer's rating in a finished race: `before` and `after` as shown on the Race, and the
    skill to store. `rated` is False for a racer who keeps their rating because no rival took
    part (RULES.md, Races): both are shown, equal, but the race is not a rated race of theirs
    (`rated_races`, the board and the pair limit count only rated ones)."""

    before: float
    after: float
    skill: ratings.Skill
    rated: bool = True


def _places(racers: list[Racer]) -> list[int]:
    return race_rules.places(
        [
            race_rules.Result(
                won=r.state == RacerState.WON,
                elapsed_ms=int(r.elapsed_ms or 0),
                opened=r.game.opened if r.game is not None else 0,
                lasted_ms=int(r.elapsed_ms or 0),
            )
            for r in racers
        ]
    )


PairCount = Callable[[int, int], int]


def rate_race(
    racers: list[Racer], places: list[int], skill_of: Any, rated_together: PairCount
) -> dict[int, _Rated]:
    """The rating changes of one finished race: each rated pool among itself, by place, as
    games.races.rules.rating_plan says (only racers who took part gain; the others can only
    lose; the daily limit per pair; a racer with no rival who took part keeps their rating,
    `rated=False`). `skill_of(racer)` gives a racer's skill before the race,
    `rated_together(a, b)` how often the two players were rated against each other today.
    Keyed by racer id."""
    changes: dict[int, _Rated] = {}
    for pool in race_rules.rated_pools([r.pool for r in racers]):
        members = [(r, p) for r, p in zip(racers, places, strict=True) if r.pool == pool]
        plan = race_rules.rating_plan(
            [race_rules.Entrant(r.player_id, p, r.took_part) for r, p in members],
            rated_together=rated_together,
        )
        rivals = [members[i] for i in plan.rivals]
        before = [skill_of(r) for r, _ in rivals]
        # Places among the rated members only (a bot between two humans does not count).
        after = ratings.rate(before, places=race_rules.ranks([p for _, p in rivals]))
        for (racer, _), b, a in zip(rivals, before, after, strict=True):
            changes[racer.pk] = _Rated(before=b.mu, after=a.mu, skill=a)
        field = [members[i] for i in plan.against]
        for i in plan.losers:
            racer, place = members[i]
            mine = skill_of(racer)
            skills = [*(skill_of(r) for r, _ in field), mine]
            lost = ratings.rate(skills, places=race_rules.ranks([*(p for _, p in field), place]))
            if lost[-1].mu < mine.mu:  # never a gain for a racer who did not take part
                changes[racer.pk] = _Rated(before=mine.mu, after=lost[-1].mu, skill=lost[-1])
        for i in plan.kept:
            racer, _ = members[i]
            mine = skill_of(racer)
            changes[racer.pk] = _Rated(before=mine.mu, after=mine.mu, skill=mine, rated=False)
    return changes


def _skill(row: RaceRating | SeasonRating) -> ratings.Skill:
    return ratings.Skill(row.mu, row.sigma)


def _pairs_today(race: Race, racers: list[Racer], now: datetime) -> PairCount:
    """How often two of these racers were rated against each other on this level since the
    start of the UTC day (games.races.rules.PAIR_RATED_PER_DAY). A racer who kept their
    rating (shown, `_Rated.rated` False) took part alone in their pool: any other racer of that
    race who took part is of another pool, and a pair across pools is never rated."""
    ids = [r.player_id for r in racers if r.took_part]
    if len(ids) < race_rules.MIN_RACERS:
        return lambda a, b: 0
    earlier = (
        Racer.objects.filter(
            player_id__in=ids,
            took_part=True,
            rating_after__isnull=False,
            race__level=race.level,
            race__no_guess=race.no_guess,
            race__state=RaceState.FINISHED,
            race__ended_at__gte=race_rules.utc_day(now),
        )
        .exclude(race=race)
        .values_list("race_id", "player_id")
    )
    by_race: dict[Any, list[int]] = {}
    for race_id, player_id in earlier:
        by_race.setdefault(race_id, []).append(player_id)
    counts = race_rules.pairs_rated(by_race.values())
    return lambda a, b: counts[frozenset((a, b))]


def _took_part(racers: list[Racer]) -> None:
    """Mark the racers who revealed or chorded at least once after the server's opening."""
    moved = set(
        Move.objects.filter(
            game_id__in=[r.game_id for r in racers if r.game_id is not None],
            seq__gt=1,
            action__in=(Action.REVEAL, Action.CHORD),
        )
        .values_list("game_id", flat=True)
        .distinct()
    )
    for racer in racers:
        racer.took_part = racer.game_id in moved


def _new_rating(pool: str, now: datetime) -> dict[str, Any]:
    return {
        "pool": pool,
        "mu": ratings.MU,
        "sigma": ratings.SIGMA,
        "rating": ratings.shown_rating(ratings.MU),
        "updated_at": now,
    }


def _rating_row(player_id: int, level: str, pool: str, now: datetime) -> RaceRating:
    row, _ = RaceRating.objects.select_for_update().get_or_create(
        player_id=player_id, level=level, defaults=_new_rating(pool, now)
    )
    return row


def _season_row(player_id: int, level: str, pool: str, now: datetime) -> SeasonRating:
    """The player's rating of the season holding `now` (the server's clock as the race is
    rated): a new season's row starts fresh, at the new player's rating."""
    row, _ = SeasonRating.objects.select_for_update().get_or_create(
        player_id=player_id,
        season=seasons.season_of(now),
        level=level,
        defaults=_new_rating(pool, now),
    )
    return row


def _store_rating(
    row: RaceRating | SeasonRating, racer: Racer, place: int, change: _Rated | None, now: datetime
) -> None:
    race_rules.count_race(row, place, rated=change is not None and change.rated)
    if change is not None and change.rated:
        row.mu, row.sigma = change.skill.mu, change.skill.sigma
        row.rating = change.skill.shown
    if racer.pool:
        row.pool = racer.pool
    row.updated_at = now
    row.save()


def race_end(*, race_id: Any, now: datetime | None = None) -> bool:
    """End a running race that is due: every racer done, or its time limit reached (the racers
    still racing lose, their time the limit). Places, statistics and ratings are stored in this
    transaction, and every board becomes public. Returns whether the race ended."""
    now = now or timezone.now()
    try:
        with transaction.atomic():
            return _race_end(race_id=race_id, now=now)
    except Exception:
        # Called after a move's commit too: a failure here must not fail the move. The race
        # keeps its deadline, so the race clock tries again at its next tick.
        log.exception("ending race %s failed; the race clock will retry", race_id)
        return False


def _race_end(*, race_id: Any, now: datetime) -> bool:
    games = list(
        Game.objects.select_for_update()
        .select_related("player")
        .filter(race_id=race_id)
        .order_by("id")
    )
    race = _lock_race(race_id)
    if race.state != RaceState.RUNNING or race.started_at is None:
        return False
    time_up = now >= race.started_at + timedelta(milliseconds=race.time_limit_ms)
    running = [g for g in games if g.state in (GameState.PLAYING, GameState.PAUSED)]
    if running and not time_up:
        return False
    for game in running:
        services.race_game_end(game, now=now, time_limit_ms=race.time_limit_ms)
    race.refresh_from_db()
    racers = racers_of(race)
    places = _places(racers)
    _took_part(racers)
    key = rating_level(race)
    rows = {r.player_id: _rating_row(r.player_id, key, r.pool, now) for r in racers}
    season = {r.player_id: _season_row(r.player_id, key, r.pool, now) for r in racers}
    pairs = _pairs_today(race, racers, now)
    rated = rate_race(racers, places, lambda r: _skill(rows[r.player_id]), pairs)
    # The season's ratings move by the same rules and places, from the season's skills.
    seasonal = rate_race(racers, places, lambda r: _skill(season[r.player_id]), pairs)
    for racer, place in zip(racers, places, strict=True):
        racer.place = place
        racer.active = False
        change = rated.get(racer.pk)
        if change is not None:
            racer.rating_before, racer.rating_after = change.before, change.after
            racer.sigma_after = change.skill.sigma
        _store_rating(rows[racer.player_id], racer, place, change, now)
        _store_rating(season[racer.player_id], racer, place, seasonal.get(racer.pk), now)
    Racer.objects.bulk_update(
        racers, ["place", "active", "rating_before", "rating_after", "sigma_after", "took_part"]
    )
    services.race_games_unseal(race_id=race.pk)
    RaceQueueEntry.objects.filter(race=race).delete()
    race.state = RaceState.FINISHED
    race.ended_at = now
    race.deadline = None
    _bump(race, "ended")
    for listener in _end_listeners:
        listener(race, racers)
    return True


# --- quick match -------------------------------------------------------------------------------


def _rating_for(player: User, level: str) -> float:
    row = RaceRating.objects.filter(player=player, level=level).only("mu").first()
    return row.mu if row is not None else ratings.MU


def queue_join(*, player: User, level: Any, no_guess: bool = False) -> dict[str, Any]:
    """Wait for a quick match on `level` (docs/RACES.md, Quick match); a no-guess quick match
    has its own queue per level (the entry's `level` is the no-guess bucket, `expert:ng`)."""
    spec = _level_spec(level)
    key = bucket_for(spec.name, no_guess)
    if player.kind == AccountKind.GUEST:
        # Quick match pairs by rating, and a guest has none: a player matched with one would
        # race unrated (docs/RACES.md, Quick match). Rooms take guests; the queue does not.
        raise GameError("guest_account", "Quick match is for signed-up players: sign up first.")
    now = timezone.now()
    with transaction.atomic():
        lock_player(player)
        entry = RaceQueueEntry.objects.filter(player=player).first()
        if entry is not None and entry.race_id is None and entry.level == key:
            return queue_status(player=player)  # already waiting for this level and mode
        _check_free(player)
        RaceQueueEntry.objects.filter(player=player).delete()  # an old, matched place
        RaceQueueEntry.objects.create(
            player=player, level=key, rating=_rating_for(player, key), joined_at=now
        )
    _match_level(key, now=now)  # eight waiting: a race at once
    return queue_status(player=player)


def queue_leave(*, player: User) -> None:
    """Leave the queue. Once matched, the place is in a race: leave the race instead."""
    with transaction.atomic():
        lock_player(player)
        deleted, _ = RaceQueueEntry.objects.filter(player=player, race__isnull=True).delete()
    if not deleted:
        raise GameError("not_found", "You are not waiting for a quick match.")


def queue_status(*, player: User) -> dict[str, Any]:
    entry = RaceQueueEntry.objects.filter(player=player).select_related("race").first()
    if entry is None or (entry.race is not None and entry.race.state not in ACTIVE_RACE_STATES):
        raise GameError("not_found", "You are not waiting for a quick match.")
    waited = max(0, int((timezone.now() - entry.joined_at).total_seconds() * 1000))
    return {
        "state": "waiting" if entry.race is None else "matched",
        "level": base_level(entry.level),
        "no_guess": entry.level != base_level(entry.level),
        "race": race_json(entry.race) if entry.race is not None else None,
        "waited_ms": waited,
    }


def _match_level(level: str, *, now: datetime) -> int:
    """Form as many races as the queue of `level` (a level or its no-guess bucket) allows now.
    Returns how many."""
    formed = 0
    while True:
        with transaction.atomic():
            # A closed (or deactivated) account is matched with nobody: its place goes, whether
            # or not closing took it out of the queue itself (leave_every_race).
            RaceQueueEntry.objects.filter(
                level=level, race__isnull=True, player__is_active=False
            ).delete()
            entries = list(
                RaceQueueEntry.objects.select_for_update(skip_locked=True)
                .filter(level=level, race__isnull=True)
                .order_by("joined_at")[:200]
            )
            waiting = [race_rules.Waiting(e.player_id, e.rating, e.joined_at) for e in entries]
            picked = race_rules.pick_match(waiting, now=now)
            if picked is None:
                return formed
            chosen = {e.player_id: e for e in entries if e.player_id in set(picked)}
            host = User.objects.get(pk=picked[0])
            race = _new_race(
                level=base_level(level),
                host=host,
                max_players=race_rules.MAX_RACERS,
                now=now,
                quick=True,
                no_guess=level != base_level(level),
            )
            Racer.objects.bulk_create(
                Racer(race=race, player_id=pid, joined_at=chosen[pid].joined_at, ready=True)
                for pid in picked
            )
            RaceQueueEntry.objects.filter(pk__in=[e.pk for e in chosen.values()]).update(race=race)
            _countdown(race, now=now)
            formed += 1


def leave_every_race(*, player: User) -> int:
    """Take `player` out of everything live in races, as leaving would: their quick-match
    place, the seat of every room not started (the next racer becomes host; an empty room is
    cancelled), and every race they still play (their game ends as lost, `left`). Closing an
    account calls it (through games.arenas.services.leave_every_room): a closed account must
    not be matched, started or waited for. Returns how many places and seats it left."""
    with transaction.atomic():
        lock_player(player)
        left, _ = RaceQueueEntry.objects.filter(player=player, race__isnull=True).delete()
    seats = Racer.objects.filter(player=player, active=True).values_list("race_id", flat=True)
    for race_id in list(seats):
        try:
            race_leave(race_id=race_id, player=player)
        except GameError:
            continue  # the race ended or started meanwhile and the seat went with it
        left += 1
    return left


def arena_race_create(
    *, arena_id: Any, level: str, no_guess: bool, player_ids: list[int], now: datetime
) -> Race:
    """A race an arena formed from its pool (games.arenas.services, in its transaction): the
    players ready, straight to the countdown, like a quick match; the first is its host."""
    joined = {pid: now + timedelta(microseconds=i) for i, pid in enumerate(player_ids)}
    race = _new_race(
        level=level,
        host=User.objects.get(pk=player_ids[0]),
        max_players=race_rules.MAX_RACERS,
        now=now,
        quick=True,
        no_guess=no_guess,
        arena_id=arena_id,
    )
    Racer.objects.bulk_create(
        Racer(race=race, player_id=pid, joined_at=joined[pid], ready=True) for pid in player_ids
    )
    _countdown(race, now=now)
    return race


# --- the race clock ----------------------------------------------------------------------------


def _clock_work(now: datetime) -> tuple[list[tuple[Any, str]], list[str]]:
    """What a tick has to do, in one hand-written statement (the clock runs it ten times a
    second in every live process; docs/PERFORMANCE.md, "The clocks"): the races whose deadline
    has come, (id, state), and the levels whose quick-match queue holds enough players."""
    race, queue = Race._meta.db_table, RaceQueueEntry._meta.db_table
    found = rawsql.rows(
        "default",
        f"SELECT id, state FROM {race} WHERE state IN (%s, %s, %s) AND deadline <= %s"
        f" UNION ALL SELECT NULL, level FROM {queue} WHERE race_id IS NULL"
        " GROUP BY level HAVING count(*) >= %s",
        [*(s.value for s in ACTIVE_RACE_STATES), now, race_rules.MIN_RACERS],
    )
    due = [(race_id, state) for race_id, state in found if race_id is not None]
    return due, [level for race_id, level in found if race_id is None]


def race_clock_tick(*, now: datetime | None = None) -> int:
    """Everything due by `now`: rooms left open too long, countdowns that end, races whose time
    is up or whose racers are all done, quick matches to form. Returns how many races it
    cancelled, started, ended or formed."""
    now = now or timezone.now()
    acted = 0
    due, levels = _clock_work(now)
    for race_id, state in due:
        if state == RaceState.OPEN:
            acted += race_expire(race_id=race_id, now=now)
        elif state == RaceState.COUNTDOWN:
            acted += race_begin(race_id=race_id, now=now)
        else:
            acted += race_end(race_id=race_id, now=now)
    for level in levels:
        acted += _match_level(level, now=now)
    for listener in _tick_listeners:
        acted += listener(now)
    return acted


def ratings_set_pool(*, player_id: int, pool: str) -> None:
    """The race boards of a closed account (pool `none`) or a reopened one (its board pool):
    the ratings themselves stay as they are (docs/ACCOUNTS.md, Closing)."""
    RaceRating.objects.filter(player_id=player_id).update(pool=pool)
    SeasonRating.objects.filter(player_id=player_id).update(pool=pool)
