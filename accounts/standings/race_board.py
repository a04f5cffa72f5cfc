"""The race leaderboard of a level (API.md rows `{rank, player, rating, races, wins}`): players
with at least one rated race, by rating, ties to whoever reached it first. Reads RaceRating,
which games.races.services writes when a race is rated."""

from __future__ import annotations

from typing import Any

from django.db.models import Q, QuerySet

from accounts.models import User
from accounts.standings.leaderboards import BoardPage, PageAsk, no_guess_mode, pool_of, sliced_page
from accounts.standings.models import RaceRating
from accounts.standings.records import bucket_for
from demineur_site.errors import DomainError
from games.engine import LEVELS


def race_board(*, level: str, players: str | None, mode: str | None = None) -> QuerySet[RaceRating]:
    """The rated players of a level's race board, classic (`mode` None or `classic`) or
    no-guess (the ratings of the level's no-guess bucket, `expert:ng`)."""
    if level not in LEVELS:
        raise DomainError("not_found", f"No race board for {level!r}.", {"levels": list(LEVELS)})
    key = bucket_for(level, no_guess_mode(mode))
    return (
        RaceRating.objects.filter(level=key, pool=pool_of(players), rated_races__gt=0)
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


def race_record(row: RaceRating) -> dict[str, int | None]:
    """A player's record in one level's races (serializers.RaceRecordOut): their rating, null
    before their first rated race, and their counts. A race board's row shows it, and so do
    the player's races per level (games.races.selectors.race_profile)."""
    return {
        "rating": row.rating if row.rated_races else None,
        "races": row.races,
        "wins": row.wins,
        "podiums": row.podiums,
    }


def race_board_row(row: RaceRating, *, rank: int) -> dict[str, Any]:
    # A board holds only rows with a rated race (race_board): the rating is never null here.
    return {"rank": rank, "player": row.player.username, **race_record(row)}


def race_board_me(board: QuerySet[RaceRating], viewer: User | None) -> dict[str, Any] | None:
    """The viewer's own row with its rank, or None (not signed in, or never rated here)."""
    mine = board.filter(player=viewer).first() if viewer is not None else None
    return race_board_row(mine, rank=race_board_rank(row=mine)) if mine is not None else None


def race_board_page(
    *, level: str, players: str | None, ask: PageAsk, mode: str | None = None
) -> BoardPage:
    """One page of a race board with `me`, by every board's paging rules (PageAsk.page_of)."""
    board = race_board(level=level, players=players, mode=mode)
    return sliced_page(
        board,
        ask,
        count=board.count(),
        me=race_board_me(board, ask.viewer),
        row=lambda item, rank: race_board_row(item, rank=rank),
    )
