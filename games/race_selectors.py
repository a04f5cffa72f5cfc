"""Reads of races: one race, race lists, the race leaderboard per level, and a player's race
statistics and history for their profile. Anyone may read any race: a Race never carries a
cell (games.race_presenters)."""

from __future__ import annotations

import uuid
from typing import Any

from django.db.models import Count, Q, QuerySet

from accounts.models import BoardPool, User
from demineur_site.formats import iso

from .engine import LEVELS
from .errors import GameError
from .models import Race, Racer, RaceRating, RaceState
from .race_presenters import shown_rating
from .race_rules import normalize_code
from .selectors import parse_states

RACE_STATES = {s.value for s in RaceState}
# `?players=` as on the solo boards (API.md): humans by default, or the bots' own ratings.
PLAYERS = {"humans": BoardPool.HUMAN, "bots": BoardPool.BOT}


def parse_race_id(raw: Any) -> uuid.UUID:
    try:
        return uuid.UUID(str(raw))
    except (ValueError, TypeError, AttributeError):
        raise GameError("not_found", "No such race.") from None


def race_get(*, race_id: Any) -> Race:
    race = Race.objects.select_related("host").filter(pk=parse_race_id(race_id)).first()
    if race is None:
        raise GameError("not_found", "No such race.")
    return race


def race_list(*, state: str | None, level: str | None, code: str | None) -> QuerySet[Race]:
    qs = Race.objects.select_related("host").order_by("-created_at", "-id")
    if state is not None:
        qs = qs.filter(state__in=parse_states(state, RACE_STATES))
    if level is not None:
        if level not in LEVELS:
            raise GameError("invalid", f"Unknown level {level!r}.", {"levels": list(LEVELS)})
        qs = qs.filter(level=level)
    if code is not None:
        qs = qs.filter(code=normalize_code(code)[:12])
    return qs


def racers_by_race(races: list[Race]) -> dict[Any, list[Racer]]:
    """The racers of several races in one query, each list in joining order."""
    out: dict[Any, list[Racer]] = {r.pk: [] for r in races}
    rows = (
        Racer.objects.filter(race__in=races)
        .select_related("player", "game")
        .defer("game__board")
        .order_by("joined_at", "id")
    )
    for racer in rows:
        out[racer.race_id].append(racer)
    return out


def _pool(players: str | None) -> str:
    if players is None:
        return BoardPool.HUMAN
    pool = PLAYERS.get(players)
    if pool is None:
        raise GameError("invalid_players", "players is `humans` or `bots`.")
    return pool


def race_board(*, level: str, players: str | None) -> QuerySet[RaceRating]:
    """The race leaderboard of a level: players with at least one rated race, by rating, ties
    to whoever reached it first (API.md rows `{rank, player, rating, races, wins}`)."""
    if level not in LEVELS:
        raise GameError("not_found", f"No race board for {level!r}.", {"levels": list(LEVELS)})
    return (
        RaceRating.objects.filter(level=level, pool=_pool(players), rated_races__gt=0)
        .select_related("player")
        .order_by("-rating", "updated_at", "player_id")
    )


def race_board_rank(*, row: RaceRating) -> int:
    """The rank of one row on its board (the rows strictly ahead of it, plus one)."""
    ahead = (
        Q(rating__gt=row.rating)
        | Q(rating=row.rating, updated_at__lt=row.updated_at)
        | Q(rating=row.rating, updated_at=row.updated_at, player_id__lt=row.player_id)
    )
    board = RaceRating.objects.filter(level=row.level, pool=row.pool, rated_races__gt=0)
    return board.filter(ahead).count() + 1


def race_board_row(row: RaceRating, *, rank: int) -> dict[str, Any]:
    return {
        "rank": rank,
        "player": row.player.username,
        "rating": row.rating,
        "races": row.races,
        "wins": row.wins,
        "podiums": row.podiums,
    }


def race_profile(*, user: User, history: int = 20) -> dict[str, Any]:
    """A player's race statistics per level, their totals, and their newest finished races."""
    per_level: dict[str, dict[str, int | None]] = {
        row.level: {
            "rating": row.rating if row.rated_races else None,
            "races": row.races,
            "wins": row.wins,
            "podiums": row.podiums,
        }
        for row in RaceRating.objects.filter(player=user)
    }
    totals = {
        key: sum(int(v[key] or 0) for v in per_level.values())
        for key in ("races", "wins", "podiums")
    }
    recent = (
        Racer.objects.filter(player=user, race__state=RaceState.FINISHED)
        .select_related("race")
        .order_by("-race__ended_at")[:history]
    )
    counts = {
        row["race"]: row["n"]
        for row in Racer.objects.filter(race__in=[r.race_id for r in recent])
        .values("race")
        .annotate(n=Count("id"))
    }
    return {
        "levels": per_level,
        **totals,
        "history": [
            {
                "race": str(r.race_id),
                "code": r.race.code,
                "level": r.race.level,
                "ended_at": iso(r.race.ended_at),
                "racers": counts.get(r.race_id, 0),
                "place": r.place,
                "state": r.state,
                "elapsed_ms": r.elapsed_ms,
                "game": str(r.game_id) if r.game_id else None,
                "rated": r.rating_after is not None,
                "rating_before": shown_rating(r.rating_before),
                "rating_after": shown_rating(r.rating_after),
            }
            for r in recent
        ],
    }
