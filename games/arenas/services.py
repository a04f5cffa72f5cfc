"""The only writers of arenas (RULES.md and API.md, Arenas; docs/ARENAS.md). Like the race
services: keyword-only arguments, one transaction per action, row locks, events after the
commit.

    arena_create -> (scheduled) -> the clock starts it at `starts_at` -> running:
        arena_join / arena_leave; each tick of the race clock (arena_clock_tick) puts the
        racers whose game is over back in the pool and forms races of 2-8 from it
        (games.arenas.rules.pair; games.races.services.arena_race_create), until
        PAIRING_STOP_MS before the end; each race's end scores it (arena_race_ended, in the
        race's own transaction) -> `ends_at`: no new race; the arena finishes once its last
        race has ended (at the latest the level's time limit after `ends_at`) -> finished.

Locks, always in this order: the player's user row, then game rows, then race rows (the race
services' order), then the arena row, then its entries. A race's end already holds its games
and its race when it scores the arena; the pairing tick holds the arena and creates new races
only (rows nobody else holds).
"""

from __future__ import annotations

import hashlib
import logging
from datetime import UTC, datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.db.models import Exists, F, OuterRef
from django.utils import timezone

from accounts.locks import lock_player
from accounts.models import AccountKind, User
from accounts.standings import ratings
from accounts.standings.models import RaceRating
from accounts.standings.records import bucket_for
from demineur_site import rawsql
from games import engine
from games.arenas import events as arena_events
from games.arenas import rules
from games.arenas.models import Arena, ArenaEntry, ArenaPlayers, ArenaResult, ArenaState
from games.arenas.presenters import arena_dict
from games.arenas.selectors import first_page, standings
from games.errors import GameError
from games.play import levels
from games.play.models import EndReason
from games.play.selectors import row_by_id
from games.races import rules as race_rules
from games.races import services as races
from games.races.models import ACTIVE_RACE_STATES, Race, Racer, RacerState, RaceState

log = logging.getLogger(__name__)

# Not finished yet: listed, and counted by the caps on open arenas (rules.MAX_OPEN_ARENAS...).
OPEN_ARENA_STATES = (ArenaState.SCHEDULED, ArenaState.RUNNING)
# What a refused name is told (rules.name_problem's reasons).
NAME_REFUSALS = {
    "bidi": "The name holds a character that reorders the text around it (a bidirectional "
    "control).",
    "control": "The name holds a control character.",
    "blank": "The name has nothing to see: only invisible characters and spaces.",
}
# How far ahead a player may schedule an arena.
MAX_AHEAD = timedelta(days=30)
# A `starts_at` this little in the past is taken as "now" (clocks differ).
START_GRACE = timedelta(seconds=60)


# --- reading helpers --------------------------------------------------------------------------


def _publish_standings(arena: Arena, kind: str = "standings", *, race: Race | None = None) -> None:
    """Take the arena's next seq and publish `kind` with the Arena and the first page (and the
    race whose end brought them), after the commit."""
    arena.seq += 1
    arena.save(update_fields=["seq", "state", "joined", "ended_at", "deadline"])
    body = arena_dict(arena)
    event = arena_events.standings_event(
        kind, arena=body, standings=first_page(arena), race=race.id if race is not None else None
    )
    arena_events.arena_on_commit(arena.id, event)


def _lock_arena(arena_id: Any) -> Arena:
    rows = Arena.objects.select_for_update(of=("self",), no_key=True).select_related("created_by")
    return row_by_id(rows, arena_id, what="arena")


def _level(level: Any) -> engine.Level:
    return levels.level_spec(level, what="arenas")


def _players_of(player: User) -> str:
    return ArenaPlayers.BOTS if player.kind == AccountKind.BOT else ArenaPlayers.HUMANS


def _check_kind(player: User, players: str) -> None:
    """Humans and bots have separate arenas (RULES.md); a guest has no rating to pair by."""
    if player.kind == AccountKind.GUEST:
        raise GameError("guest_account", "Arenas are for signed-up players: sign up first.")
    if _players_of(player) != players:
        raise GameError(
            "arena_players",
            f"This arena is for {players}: {'bots' if players == 'humans' else 'humans'} "
            "have their own arenas.",
            {"players": players},
        )


# --- creating ---------------------------------------------------------------------------------


def _new_arena(
    *,
    level: str,
    name: str,
    no_guess: bool,
    players: str,
    starts_at: datetime,
    minutes: int,
    created_by: User | None,
    private: bool = False,
    schedule: str = "",
    min_players: int = rules.MIN_PLAYERS,
    now: datetime,
) -> Arena:
    spec = _level(level)

    def slot_taken() -> bool:
        """Whether this schedule's slot exists already (another clock made it meanwhile): then
        the clash was on the slot, not on the code."""
        if not schedule:
            return False
        return Arena.objects.filter(schedule=schedule, starts_at=starts_at).exists()

    return races.create_with_code(
        lambda code: Arena.objects.create(
            code=code,
            name=name,
            level=spec.name,
            no_guess=no_guess,
            players=players,
            private=private,
            min_players=min_players,
            created_by=created_by,
            schedule=schedule,
            created_at=now,
            starts_at=starts_at,
            ends_at=starts_at + timedelta(minutes=minutes),
            deadline=starts_at,
            time_limit_ms=races.race_time_limit_ms(spec.name),
        ),
        what="arena",
        other_clash=slot_taken,
    )


def arena_create(
    *,
    player: User,
    level: Any,
    minutes: int,
    name: str | None = None,
    no_guess: bool = False,
    starts_at: datetime | None = None,
    players: str | None = None,
    private: bool = False,
    min_players: int = rules.MIN_PLAYERS,
    address: str | None = None,
) -> Arena:
    """A player's arena: `players` defaults to the creator's own kind (a human account creates
    human arenas; a bot, bot arenas) and must be it. At most MAX_OPEN_ARENAS not finished per
    account and, when the request's client `address` is given (the REST door gives it),
    MAX_OPEN_ARENAS_PER_ADDRESS per address. A name shown in every list must read as
    written: no bidirectional control, not blank (rules.name_problem)."""
    spec = _level(level)
    shown_name = (name or "").strip()
    problem = rules.name_problem(shown_name) if shown_name else None
    if problem is not None:
        raise GameError("invalid", NAME_REFUSALS[problem], {"fields": {"name": problem}})
    if not rules.MIN_MINUTES <= minutes <= rules.MAX_MINUTES:
        raise GameError("invalid", "minutes must be between 20 and 180.")
    if not rules.MIN_PLAYERS <= min_players <= rules.MAX_MIN_PLAYERS:
        raise GameError(
            "invalid",
            f"min_players must be between {rules.MIN_PLAYERS} and {rules.MAX_MIN_PLAYERS}.",
            {"fields": {"min_players": "range"}},
        )
    now = timezone.now()
    start = now if starts_at is None or starts_at < now else starts_at
    if starts_at is not None and starts_at < now - START_GRACE:
        raise GameError("invalid", "starts_at is in the past.", {"fields": {"starts_at": "past"}})
    if start > now + MAX_AHEAD:
        raise GameError(
            "invalid", "starts_at is more than 30 days ahead.", {"fields": {"starts_at": "far"}}
        )
    kind = players or _players_of(player)
    _check_kind(player, kind)
    with transaction.atomic():
        lock_player(player)
        own = Arena.objects.filter(created_by=player, state__in=OPEN_ARENA_STATES).count()
        if own >= rules.MAX_OPEN_ARENAS:
            raise GameError(
                "too_many_arenas",
                f"You already have {own} arenas scheduled or running.",
                {"max_arenas": rules.MAX_OPEN_ARENAS},
            )
        from_address = _open_from(address) if address else None
        arena = _new_arena(
            level=spec.name,
            name=shown_name or f"{player.username}'s {spec.name} arena",
            no_guess=no_guess,
            players=kind,
            starts_at=start,
            minutes=minutes,
            created_by=player,
            private=private,
            min_players=min_players,
            now=now,
        )
        if address and from_address is not None:
            _remember_open_from(address, [*from_address, str(arena.pk)])
    if start <= now:
        arena_clock_tick(now=now, pair=False)  # a "now" arena runs at once
        arena.refresh_from_db()
    return arena


# The arenas created from one address are remembered in the default cache (Redis when set,
# shared by every process, like the caps on new accounts per address), as long as one of them
# can still be open: the furthest start a player may choose plus the longest arena, and a day.
ADDRESS_MEMORY_S = int((MAX_AHEAD + timedelta(minutes=rules.MAX_MINUTES, days=1)).total_seconds())


def _address_cache_key(address: str) -> str:
    digest = hashlib.sha256(rules.address_key(address).encode()).hexdigest()
    return f"arenas:open-from:{digest}"


def _open_from(address: str) -> list[str]:
    """The arenas created from `address` that are not finished yet (ids), or 409
    `too_many_arenas` when there are MAX_OPEN_ARENAS_PER_ADDRESS of them. The cache names
    the arenas; the database says which are still open, so an arena that ended, or a creation
    rolled back, no longer counts."""
    remembered = cache.get(_address_cache_key(address)) or []
    still = Arena.objects.filter(pk__in=remembered, state__in=OPEN_ARENA_STATES)
    open_ids = [str(pk) for pk in still.values_list("pk", flat=True)]
    if len(open_ids) >= rules.MAX_OPEN_ARENAS_PER_ADDRESS:
        raise GameError(
            "too_many_arenas",
            f"{len(open_ids)} arenas created from your address are scheduled or running.",
            {"max_arenas_per_address": rules.MAX_OPEN_ARENAS_PER_ADDRESS},
        )
    return open_ids


def _remember_open_from(address: str, arena_ids: list[str]) -> None:
    cache.set(_address_cache_key(address), arena_ids, timeout=ADDRESS_MEMORY_S)


# --- joining and leaving ----------------------------------------------------------------------


def _check_free(player: User, arena: Arena) -> None:
    """One race, queue place or arena at a time (API.md: 409 already_racing): the race and
    queue checks are the race services' (a race of this very arena does not count), then no
    other arena scheduled or running."""
    races.check_not_racing(player, arena_id=arena.id)
    elsewhere = ArenaEntry.objects.filter(
        player=player, active=True, arena__state__in=(ArenaState.SCHEDULED, ArenaState.RUNNING)
    ).exclude(arena=arena)
    if elsewhere.exists():
        raise GameError("already_racing", "You are in another arena: leave it first.")


def player_in_running_arena(player: User) -> None:
    """The arena's half of "one race, queue place or arena at a time", asked by the race
    services before a player opens, joins or queues for a race (registered in games.apps)."""
    if ArenaEntry.objects.filter(
        player=player, active=True, arena__state=ArenaState.RUNNING
    ).exists():
        raise GameError("already_racing", "You are in an arena: leave it first.")


def arena_join(*, arena_id: Any, player: User) -> Arena:
    """Into the arena's pool (paired from its start). Joining again is a no-op; coming back
    after leaving keeps the points and waits REJOIN_PENALTY_MS before the next race."""
    now = timezone.now()
    with transaction.atomic():
        lock_player(player)
        arena = _lock_arena(arena_id)
        entry = ArenaEntry.objects.filter(arena=arena, player=player).first()
        if entry is not None and entry.active:
            return arena
        if arena.state == ArenaState.FINISHED or (
            arena.state == ArenaState.RUNNING
            and not rules.pairing_open(now=now, starts_at=arena.starts_at, ends_at=arena.ends_at)
        ):
            raise GameError("arena_closed", "This arena has ended.")
        _check_kind(player, arena.players)
        _check_free(player, arena)
        if entry is None:
            ArenaEntry.objects.create(
                arena=arena, player=player, joined_at=now, waiting_since=now, eligible_at=now
            )
            arena.joined += 1
        else:
            entry.active = True
            entry.eligible_at = now + timedelta(milliseconds=rules.REJOIN_PENALTY_MS)
            entry.waiting_since = now if entry.race_id is None else None
            entry.save(update_fields=["active", "eligible_at", "waiting_since"])
        _publish_standings(arena)
    return arena


def arena_leave(*, arena_id: Any, player: User) -> Arena:
    """Out of the pool: no more races (a race the player is in goes on and counts); the points
    stay. Leaving an arena one is not in is a no-op."""
    with transaction.atomic():
        lock_player(player)
        arena = _lock_arena(arena_id)
        entry = ArenaEntry.objects.filter(arena=arena, player=player, active=True).first()
        if entry is None:
            return arena
        entry.active = False
        entry.waiting_since = None
        entry.save(update_fields=["active", "waiting_since"])
        _publish_standings(arena)
    return arena


def leave_every_room(*, player: User) -> int:
    """Take `player` out of everything live they hold in races and arenas, as leaving each
    would (games.races.services.leave_every_race; then every arena pool not finished: their
    points stay). For closing an account: a closed account must not be matched, paired,
    started or waited for. Returns how many places, seats and pools it left."""
    left = races.leave_every_race(player=player)
    pools = ArenaEntry.objects.filter(player=player, active=True).exclude(
        arena__state=ArenaState.FINISHED
    )
    for arena_id in list(pools.values_list("arena_id", flat=True)):
        arena_leave(arena_id=arena_id, player=player)
        left += 1
    return left


# --- a race's end -----------------------------------------------------------------------------


def _result_of(row: ArenaResult) -> rules.RaceResult:
    return rules.RaceResult(
        place=row.place, takers=row.takers, took_part=row.took_part, left=row.left
    )


def _refold(entry: ArenaEntry, *, now: datetime) -> None:
    """The entry's standing from all its results in the order their races started."""
    rows = list(ArenaResult.objects.filter(entry=entry).order_by("started_at", "id"))
    folded = rules.standing([_result_of(r) for r in rows])
    changed = [r for r, p in zip(rows, folded.points, strict=True) if r.points != p]
    for row, points in zip(rows, folded.points, strict=True):
        row.points = points
    ArenaResult.objects.bulk_update(changed, ["points"])
    if folded.score != entry.score:
        entry.score_at = now
    entry.score, entry.races, entry.wins = folded.score, folded.races, folded.wins
    entry.streak = folded.streak


def arena_race_ended(race: Race, racers: list[Racer]) -> None:
    """The race services' listener at a race's end (in its transaction): an arena race is
    scored right after the commit, in a transaction of its own (the race's end holds its games
    and, through them, its players' rows: taking the arena's lock there could wait on a
    pairing that waits on those rows). Should that fail, the next tick scores it."""
    if race.arena_id is not None:
        arena_id, race_id = race.arena_id, race.id
        transaction.on_commit(lambda: _score_safely(arena_id, race_id))


def _score_safely(arena_id: Any, race_id: Any) -> None:
    try:
        with transaction.atomic():
            arena = _lock_arena(arena_id)
            if arena.state != ArenaState.FINISHED:
                _score(arena, Race.objects.get(pk=race_id))
    except Exception:
        log.exception(
            "scoring race %s of arena %s failed; the next tick retries", race_id, arena_id
        )


def _score(arena: Arena, race: Race) -> bool:
    """Score one ended race of `arena` (held): each racer's result, their standing folded
    again, back in the pool if still in the arena, and `standings` after the commit. A race
    already scored is left alone. Returns whether it scored."""
    entries = {
        e.player_id: e
        for e in ArenaEntry.objects.select_for_update(no_key=True).filter(
            arena=arena, player_id__in=Racer.objects.filter(race=race).values("player_id")
        )
    }
    if not entries or ArenaResult.objects.filter(race=race).exists():
        return False
    racers = list(
        Racer.objects.filter(race=race).select_related("game").order_by("joined_at", "id")
    )
    now = race.ended_at or timezone.now()
    among = rules.places_among_takers([r.place or 0 for r in racers], [r.took_part for r in racers])
    takers = sum(1 for r in racers if r.took_part)
    ArenaResult.objects.bulk_create(
        [
            ArenaResult(
                entry=entries[r.player_id],
                race=race,
                started_at=race.started_at or now,
                place=place,
                takers=takers,
                took_part=r.took_part,
                # resigning is leaving (RULES.md, Races): no points, the streak ends
                left=r.state == RacerState.LEFT
                or (r.game is not None and r.game.end_reason == EndReason.RESIGNED),
            )
            for r, place in zip(racers, among, strict=True)
            if r.player_id in entries
        ]
    )
    for entry in entries.values():
        _refold(entry, now=now)
        if entry.race_id == race.id:
            entry.race, entry.last_race = None, race
            entry.waiting_since = now if entry.active else None
    ArenaEntry.objects.bulk_update(
        list(entries.values()),
        ["score", "races", "wins", "streak", "score_at", "race", "last_race", "waiting_since"],
    )
    _publish_standings(arena, race=race)
    return True


def _score_pending(arena: Arena) -> int:
    """Score the arena's ended races not scored yet (their commit's scoring failed or has not
    run yet): the tick and the end call it with the arena held."""
    scored = Exists(ArenaResult.objects.filter(race=OuterRef("pk")))
    pending = Race.objects.filter(arena=arena, state=RaceState.FINISHED).exclude(scored)
    return sum(_score(arena, race) for race in pending.order_by("ended_at"))


# --- the clock: start, pairing, end ---------------------------------------------------------


def _back_from_races(arena: Arena, *, now: datetime) -> int:
    """Entries whose race is over for them (their game ended, they left it before the start,
    or it was cancelled) wait in the pool again."""
    still = Racer.objects.filter(race=OuterRef("race"), player=OuterRef("player"), active=True)
    back = ArenaEntry.objects.filter(arena=arena, race__isnull=False).exclude(Exists(still))
    return back.update(
        last_race=F("race"),
        race=None,
        waiting_since=now,
    )


def _pool(arena: Arena, *, now: datetime) -> list[rules.Waiting]:
    # A closed (or deactivated) account is paired with nobody: it leaves the pool here,
    # whether or not closing took it out itself (leave_every_room); its points stay.
    ArenaEntry.objects.filter(arena=arena, active=True, player__is_active=False).update(
        active=False, waiting_since=None
    )
    busy = Racer.objects.filter(player=OuterRef("player"), active=True)
    entries = list(
        ArenaEntry.objects.filter(
            arena=arena,
            active=True,
            race__isnull=True,
            waiting_since__isnull=False,
            eligible_at__lte=now,
        )
        .exclude(Exists(busy))
        .values_list("player_id", "waiting_since", "score", "last_race_id")
    )
    if len(entries) < race_rules.MIN_RACERS:
        return []
    ids = [e[0] for e in entries]
    key = bucket_for(arena.level, arena.no_guess)
    mu = dict(
        RaceRating.objects.filter(player_id__in=ids, level=key).values_list("player_id", "mu")
    )
    last: dict[Any, set[int]] = {}
    for race_id, player_id in Racer.objects.filter(
        race_id__in={e[3] for e in entries if e[3] is not None}
    ).values_list("race_id", "player_id"):
        last.setdefault(race_id, set()).add(player_id)
    return [
        rules.Waiting(
            player_id=pid,
            since=since,
            score=score,
            rating=mu.get(pid, ratings.MU),
            last_race=frozenset(last.get(last_id, ())),
        )
        for pid, since, score, last_id in entries
        if since is not None
    ]


def _pair_arena(arena_id: Any, *, now: datetime) -> int:
    """One running arena's turn: racers back to the pool, then races from it. Returns how
    many races formed. Another clock holding the arena skips it (SKIP LOCKED)."""
    with transaction.atomic():
        arena = (
            Arena.objects.select_for_update(skip_locked=True, no_key=True)
            .filter(pk=arena_id, state=ArenaState.RUNNING)
            .first()
        )
        if arena is None:
            return 0
        _score_pending(arena)
        _back_from_races(arena, now=now)
        if not rules.pairing_open(now=now, starts_at=arena.starts_at, ends_at=arena.ends_at):
            return 0
        pool = _pool(arena, now=now)
        if len(pool) < arena.min_players and not rules.pool_may_pair(
            waiting=len(pool),
            min_players=arena.min_players,
            paired_before=Race.objects.filter(arena_id=arena.id).exists(),
        ):
            return 0
        groups = rules.pair(pool, now=now)
        names = dict(
            User.objects.filter(pk__in=[p for g in groups for p in g]).values_list("pk", "username")
        )
        for group in groups:
            race = races.arena_race_create(
                arena_id=arena.id,
                level=arena.level,
                no_guess=arena.no_guess,
                player_ids=group,
                now=now,
            )
            ArenaEntry.objects.filter(arena=arena, player_id__in=group).update(
                race=race, waiting_since=None
            )
            arena.seq += 1
            event = arena_events.race_formed_event(
                seq=arena.seq, race_id=race.id, players=[names[p] for p in group]
            )
            arena_events.arena_on_commit(arena.id, event)
            body = races.race_json(race, now=now)
            for pid in group:
                arena_events.player_arena_on_commit(
                    pid, "arena_race", arena=str(arena.id), race=body
                )
        if groups:
            arena.save(update_fields=["seq"])
        return len(groups)


def _start(arena_id: Any, *, now: datetime) -> bool:
    with transaction.atomic():
        arena = _lock_arena(arena_id)
        if arena.state != ArenaState.SCHEDULED or arena.starts_at > now:
            return False
        arena.state = ArenaState.RUNNING
        arena.deadline = arena.ends_at
        _publish_standings(arena)
    return True


def last_instant(arena: Arena) -> datetime:
    """The latest a race of the arena may end and count: a race formed just before pairing
    stopped ends within its countdown and the level's time limit after `ends_at`."""
    return arena.ends_at + timedelta(milliseconds=arena.time_limit_ms + race_rules.COUNTDOWN_MS)


def arena_finish(*, arena_id: Any, now: datetime) -> bool:
    """The end: once `ends_at` has passed and no race of the arena is still on (or at
    `last_instant`, whatever is still on no longer counts), the final ranks are fixed, every
    player is out of the pool, and `ended` carries the final standings."""
    with transaction.atomic():
        arena = _lock_arena(arena_id)
        if arena.state != ArenaState.RUNNING or arena.ends_at > now:
            return False
        racing = Race.objects.filter(arena=arena, state__in=ACTIVE_RACE_STATES).exists()
        if racing and now < last_instant(arena):
            return False
        _score_pending(arena)
        entries = list(standings(arena))
        rank = 0
        for entry in entries:
            if entry.races:
                rank += 1
                entry.final_rank = rank
            entry.active, entry.waiting_since = False, None
        ArenaEntry.objects.bulk_update(entries, ["final_rank", "active", "waiting_since"])
        arena.state = ArenaState.FINISHED
        arena.ended_at, arena.deadline = now, None
        _publish_standings(arena, "ended")
        body = arena_dict(arena)
        for entry in entries:
            arena_events.player_arena_on_commit(entry.player_id, "arena_end", arena=body)
    return True


_last_schedule: datetime | None = None
SCHEDULE_EVERY = timedelta(seconds=30)


def _clock_work(now: datetime) -> tuple[list[tuple[Any, str]], list[Any]]:
    """What a tick has to do, in one hand-written statement (the race clock runs it ten times
    a second in every live process; docs/PERFORMANCE.md, "The clocks"): the arenas whose
    deadline has come, (id, state), and the running arenas whose turn (`_pair_arena`) has
    something to do: an ended race to score (`_score_pending`), a racer whose race is over
    for them (`_back_from_races`), or enough players waiting to form a race (`_pool`, which
    also leaves out a player busy elsewhere: a superset here, never a miss). A running arena
    with none of the three is not locked at all."""
    arena, entry, race = Arena._meta.db_table, ArenaEntry._meta.db_table, Race._meta.db_table
    result, racer = ArenaResult._meta.db_table, Racer._meta.db_table
    found = rawsql.rows(
        "default",
        f"SELECT a.id, a.state, a.deadline <= %s FROM {arena} a"
        " WHERE (a.state IN (%s, %s) AND a.deadline <= %s) OR (a.state = %s AND ("
        f" EXISTS (SELECT 1 FROM {race} r WHERE r.arena_id = a.id AND r.state = %s"
        f" AND NOT EXISTS (SELECT 1 FROM {result} x WHERE x.race_id = r.id))"
        f" OR EXISTS (SELECT 1 FROM {entry} e WHERE e.arena_id = a.id AND e.race_id IS NOT NULL"
        f" AND NOT EXISTS (SELECT 1 FROM {racer} k WHERE k.race_id = e.race_id"
        " AND k.player_id = e.player_id AND k.active))"
        f" OR (SELECT count(*) FROM {entry} e WHERE e.arena_id = a.id AND e.active"
        " AND e.race_id IS NULL AND e.waiting_since IS NOT NULL AND e.eligible_at <= %s) >= %s))",
        [
            now,
            ArenaState.SCHEDULED.value,
            ArenaState.RUNNING.value,
            now,
            ArenaState.RUNNING.value,
            RaceState.FINISHED.value,
            now,
            race_rules.MIN_RACERS,
        ],
    )
    due = [(arena_id, state) for arena_id, state, is_due in found if is_due]
    turns = [arena_id for arena_id, state, _ in found if state == ArenaState.RUNNING]
    return due, turns


def arena_clock_tick(now: datetime | None = None, *, pair: bool = True) -> int:
    """Everything due by `now` (games.races.services.race_clock_tick calls it on every tick,
    wired by games.apps): the server's schedule, arenas that start or end, and the pairing of
    every running arena. Returns how many arenas started or ended and races formed."""
    global _last_schedule
    now = now or timezone.now()
    acted = 0
    if settings.ARENA_SCHEDULE and (
        _last_schedule is None or not 0 <= (now - _last_schedule).total_seconds() < 30
    ):
        _last_schedule = now
        acted += schedule_arenas(now=now)
    due, turns = _clock_work(now)
    for arena_id, state in due:
        if state == ArenaState.SCHEDULED:
            if _start(arena_id, now=now):
                acted += 1
                turns.append(arena_id)  # its first pairing in the same tick
        else:
            acted += arena_finish(arena_id=arena_id, now=now)
    if pair:
        for arena_id in turns:
            try:
                acted += _pair_arena(arena_id, now=now)
            except IntegrityError:  # a player joined a race meanwhile: the next tick retries
                log.warning("pairing arena %s clashed; retrying at the next tick", arena_id)
    return acted


# --- the server's schedule (docs/ARENAS.md, Scheduled arenas) --------------------------------


def _slot_name(level: str, every_min: int, no_guess: bool) -> str:
    period = {60: "Hourly", 1440: "Daily", 10080: "Weekly"}.get(every_min, f"Every {every_min} min")
    return f"{period} {level.title()}{' no-guess' if no_guess else ''}"


def schedule_arenas(*, now: datetime | None = None) -> int:
    """Make sure the next arena of each of the server's schedules (ARENA_SCHEDULE) exists, as
    a scheduled arena anyone can see and join. Slots start at whole multiples of their period
    from midnight UTC; a slot already made (by this or another clock) is left as it is.
    Returns how many arenas it created."""
    now = now or timezone.now()
    made = 0
    midnight = now.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    for level, every_minutes, minutes, no_guess, players in settings.ARENA_SCHEDULE:
        period = timedelta(minutes=every_minutes)
        slots = -(-(now - midnight) // period)  # the next slot at or after now
        starts_at = midnight + slots * period
        key = f"{bucket_for(level, no_guess)}:{every_minutes}:{minutes}:{players}"
        if Arena.objects.filter(schedule=key, starts_at=starts_at).exists():
            continue
        try:
            _new_arena(
                level=level,
                name=_slot_name(level, every_minutes, no_guess),
                no_guess=no_guess,
                players=players,
                starts_at=starts_at,
                minutes=minutes,
                created_by=None,
                schedule=key,
                now=now,
            )
            made += 1
        except IntegrityError:
            continue  # another clock made it first
    return made
