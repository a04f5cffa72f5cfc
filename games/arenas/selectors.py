"""Reads of arenas: one arena, lists, the standings with their pages and `me`, and a player's
arena record for their profile. Anyone may read any arena and its standings (API.md); a
private arena is listed only to whoever asks by its code."""

from __future__ import annotations

import uuid
from typing import Any

from django.db.models import Count, Min, Q, QuerySet

from accounts.models import User
from accounts.standings.leaderboards import BoardPage, PageAsk, sliced_page
from games.arenas.models import Arena, ArenaEntry, ArenaState
from games.arenas.presenters import STANDINGS_ORDER, arena_dict, me_dict, standing_row
from games.play.selectors import filter_state_and_level, parse_id, row_by_id
from games.races.rules import normalize_code

ARENA_STATES = {s.value for s in ArenaState}
FIRST_PAGE = 50  # the rows a socket frame carries (the REST pages' default size)


def parse_arena_id(raw: Any) -> uuid.UUID:
    return parse_id(raw, what="arena")


def arena_get(*, arena_id: Any) -> Arena:
    return row_by_id(Arena.objects.select_related("created_by"), arena_id, what="arena")


def arena_list(*, state: str | None, level: str | None, code: str | None) -> QuerySet[Arena]:
    """Arenas, the next to start first (then the newest); private ones only by `code`."""
    qs = Arena.objects.select_related("created_by").order_by("starts_at", "id")
    qs = qs.filter(code=normalize_code(code)[:12]) if code is not None else qs.filter(private=False)
    return filter_state_and_level(qs, state=state, states=ARENA_STATES, level=level)


def standings(arena: Arena) -> QuerySet[ArenaEntry]:
    return (
        ArenaEntry.objects.filter(arena=arena).select_related("player").order_by(*STANDINGS_ORDER)
    )


def entry_rank(entry: ArenaEntry) -> int:
    """The rank of one entry: the entries strictly ahead of it in STANDINGS_ORDER, plus one."""
    ahead = (
        Q(score__gt=entry.score)
        | Q(score=entry.score, races__lt=entry.races)
        | Q(score=entry.score, races=entry.races, score_at__lt=entry.score_at)
        | Q(score=entry.score, races=entry.races, score_at=entry.score_at, id__lt=entry.id)
    )
    return ArenaEntry.objects.filter(arena_id=entry.arena_id).filter(ahead).count() + 1


def first_page(arena: Arena, size: int = FIRST_PAGE) -> list[dict[str, Any]]:
    return [standing_row(e, rank=i + 1) for i, e in enumerate(standings(arena)[:size])]


def entry_of(arena: Arena, viewer: User | None) -> ArenaEntry | None:
    if viewer is None or not viewer.is_authenticated:
        return None
    return ArenaEntry.objects.filter(arena=arena, player=viewer).first()


def arena_json(arena: Arena, *, viewer: User | None = None) -> dict[str, Any]:
    """The Arena with the viewer's `me` (null for someone who has not joined)."""
    entry = entry_of(arena, viewer)
    me = me_dict(entry, rank=entry_rank(entry) if entry is not None else None)
    return arena_dict(arena, me=me)


def standings_page(*, arena: Arena, ask: PageAsk) -> BoardPage:
    """One page of an arena's standings with `me`, by every board's paging rules
    (PageAsk.page_of)."""
    entry = entry_of(arena, ask.viewer)
    return sliced_page(
        standings(arena),
        ask,
        count=arena.joined,
        me=standing_row(entry, rank=entry_rank(entry)) if entry is not None else None,
        row=lambda item, rank: standing_row(item, rank=rank),
    )


def arena_profile(*, user: User) -> dict[str, Any]:
    """A player's arenas for their profile: arenas played (finished, with a race at least),
    podiums (final ranks 1-3) and their best final rank (null before any)."""
    done = ArenaEntry.objects.filter(
        player=user, arena__state=ArenaState.FINISHED, final_rank__isnull=False
    )
    agg = done.aggregate(
        played=Count("id"), podiums=Count("id", filter=Q(final_rank__lte=3)), best=Min("final_rank")
    )
    return {"played": agg["played"], "podiums": agg["podiums"], "best_rank": agg["best"]}
