"""What anyone may see of an arena: the Arena object of API.md (Arenas) and its standings rows.
No cell ever: an arena is names, points and the ids of its races."""

from __future__ import annotations

from typing import Any

from demineur_site.formats import iso
from games.arenas.models import Arena, ArenaEntry
from games.arenas.rules import STREAK_FIRE

# A standings row's order (docs/ARENAS.md, Ties): points, then fewer races for them (the
# better performance), then whoever reached the score first, then who joined first.
STANDINGS_ORDER = ("-score", "races", "score_at", "id")


def me_dict(entry: ArenaEntry | None, *, rank: int | None = None) -> dict[str, Any] | None:
    """The viewer's `me`: null for someone who has not joined."""
    if entry is None:
        return None
    return {
        "score": entry.score,
        "race": str(entry.race_id) if entry.race_id is not None else None,
        "active": entry.active,
        "rank": rank,
        "streak": entry.streak,
        "fire": entry.streak >= STREAK_FIRE,
        "eligible_at": iso(entry.eligible_at),
    }


def arena_dict(arena: Arena, *, me: dict[str, Any] | None = None) -> dict[str, Any]:
    """The Arena of API.md; `arena.created_by` is loaded with it."""
    return {
        "id": str(arena.id),
        "code": arena.code,
        "name": arena.name,
        "level": arena.level,
        "no_guess": arena.no_guess,
        "players": arena.players,
        "private": arena.private,
        "state": arena.state,
        "starts_at": iso(arena.starts_at),
        "ends_at": iso(arena.ends_at),
        "ended_at": iso(arena.ended_at),
        "created_by": arena.created_by.username if arena.created_by is not None else None,
        "time_limit_ms": arena.time_limit_ms,
        "seq": arena.seq,
        "joined": arena.joined,
        "min_players": arena.min_players,
        "me": me,
    }


def standing_row(entry: ArenaEntry, *, rank: int) -> dict[str, Any]:
    """A standings row (API.md): `fire` says the player's next win scores double."""
    return {
        "rank": rank,
        "player": entry.player.username,
        "score": entry.score,
        "races": entry.races,
        "wins": entry.wins,
        "streak": entry.streak,
        "fire": entry.streak >= STREAK_FIRE,
        "active": entry.active,
    }
