"""What anyone may see of a race: the Race object of API.md (Races). No cell, no layout, no
board: a racer is counts only (safe cells opened, flags, state, time) until and after the end;
the boards are read through each racer's Game once the race has ended."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from django.utils import timezone

from accounts.standings import ratings
from accounts.standings.ratings import shown_rating
from demineur_site.formats import iso
from games.races import rules as race_rules
from games.races.models import DONE_RACER_STATES, Race, Racer, RacerState, RaceState


def _ms_between(start: datetime, end: datetime) -> int:
    return max(0, int((end - start).total_seconds() * 1000))


def racer_elapsed_ms(race: Race, racer: Racer, *, now: datetime) -> int:
    """A racer's clock: fixed once they are done, else the race's clock (one clock for all)."""
    if racer.elapsed_ms is not None and racer.state in DONE_RACER_STATES:
        return int(racer.elapsed_ms)
    if race.started_at is None or racer.state == RacerState.WAITING:
        return 0
    stop = race.ended_at or now
    return min(_ms_between(race.started_at, stop), race.time_limit_ms)


def racer_dict(race: Race, racer: Racer, *, now: datetime) -> dict[str, Any]:
    """A racer as everyone sees them; `racer.game` is loaded with the racer (its counts)."""
    ended = race.state == RaceState.FINISHED
    game = racer.game if racer.game_id is not None else None
    return {
        "player": racer.player.username,
        "player_kind": racer.player.kind,
        "ready": racer.ready,
        "game": str(racer.game_id) if racer.game_id is not None else None,
        "state": racer.state,
        "opened": game.opened if game is not None else 0,
        "safe_cells": race.width * race.height - race.mines,
        "flags": game.mines - game.mines_left if game is not None else 0,
        "elapsed_ms": racer_elapsed_ms(race, racer, now=now),
        "place": racer.place if ended else None,
        "took_part": racer.took_part,
        "rating_before": shown_rating(racer.rating_before) if ended else None,
        "rating_after": shown_rating(racer.rating_after) if ended else None,
        "provisional": ended and racer_provisional(racer),
    }


def racer_provisional(racer: Racer) -> bool:
    """Whether the rating a racer had after their race was still provisional (docs/RACES.md,
    Provisional ratings): false when the race did not rate them, and for a race that ended
    before the sigma was kept, until `manage.py recompute_race_ratings` fills it in."""
    return racer.sigma_after is not None and ratings.provisional(racer.sigma_after)


def would_be_rated(racers: Sequence[Racer]) -> bool:
    """Before the start: whether the race would be rated with these racers."""
    return bool(race_rules.rated_pools([r.player.board_pool for r in racers]))


def race_dict(
    race: Race, racers: Sequence[Racer], *, now: datetime | None = None
) -> dict[str, Any]:
    """The Race of API.md. `racers` are the race's Racer rows with `player` loaded, in the
    order they joined (and, once the race has ended, by place)."""
    now = now or timezone.now()
    started = race.started_at is not None
    # A racer who leaves before the start is deleted; one who leaves a running race stays, `left`.
    in_line = list(racers)
    if race.state == RaceState.FINISHED:
        in_line.sort(key=lambda r: (r.place or 99, r.joined_at))
    rated = race.rated if started else would_be_rated([r for r in in_line if r.active])
    return {
        "id": str(race.id),
        "code": race.code,
        "level": race.level,
        "width": race.width,
        "height": race.height,
        "mines": race.mines,
        "state": race.state,
        "host": race.host.username if race.host is not None else None,
        "max_players": race.max_players,
        "quick": race.quick,
        "no_guess": race.no_guess,
        "arena": str(race.arena_id) if race.arena_id is not None else None,
        "rated": rated,
        "time_limit_ms": race.time_limit_ms,
        "seq": race.seq,
        "created_at": iso(race.created_at),
        "starts_at": iso(race.starts_at),
        "started_at": iso(race.started_at),
        "ended_at": iso(race.ended_at),
        "start_cell": (
            {"x": race.start_x, "y": race.start_y} if started and race.start_x is not None else None
        ),
        "racers": [racer_dict(race, r, now=now) for r in in_line],
    }
