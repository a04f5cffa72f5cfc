"""The race leaderboard of a level (API.md rows `{rank, player, rating, races, wins}`): players
with at least one rated race and a rating no longer provisional (ratings.provisional), by
rating, ties to whoever reached it first; the lasting board reads RaceRating, a season's board
(`?season=`, accounts.standings.seasons) reads that season's SeasonRating. Both are written by
games.races.services when a race is rated. Also the podiums of the seasons a player finished
in the top three of, for their profile."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db.models import Q, QuerySet

from accounts.models import BoardPool, User
from accounts.standings import ratings, seasons
from accounts.standings.leaderboards import BoardPage, PageAsk, no_guess_mode, pool_of, sliced_page
from accounts.standings.models import RaceRating, SeasonRating
from accounts.standings.records import NO_GUESS_SUFFIX, base_level, bucket_for
from demineur_site.errors import DomainError
from games.engine import LEVELS

PODIUM = 3  # the places of a season's podium
Row = RaceRating | SeasonRating


def board_season(season: str | None, *, now: datetime) -> str | None:
    """`?season=` on a race board: absent for the lasting ratings, else `current` or a season
    that has begun (`2026Q4`); anything else is 400 `invalid_season`."""
    if season is None:
        return None
    try:
        return seasons.parse_season(season, now=now)
    except seasons.InvalidSeason as exc:
        raise DomainError(
            "invalid_season",
            f"Unknown season {season!r}: `current` or a season begun, as 2026Q4.",
            {"format": "YYYYQn", "current": seasons.season_of(now)},
        ) from exc


def _ranked(rows: QuerySet[Any]) -> QuerySet[Any]:
    """The rows a board ranks: rated at least once, and no longer provisional."""
    return rows.filter(rated_races__gt=0, sigma__lt=ratings.PROVISIONAL_SIGMA)


def race_board(
    *, level: str, players: str | None, mode: str | None = None, season: str | None = None
) -> QuerySet[Any]:
    """The ranked players of a level's race board, classic (`mode` None or `classic`) or
    no-guess (the ratings of the level's no-guess bucket, `expert:ng`): the lasting ratings,
    or those of `season` (a season's name, as board_season gives it)."""
    if level not in LEVELS:
        raise DomainError("not_found", f"No race board for {level!r}.", {"levels": list(LEVELS)})
    key = bucket_for(level, no_guess_mode(mode))
    rows: QuerySet[Any] = (
        RaceRating.objects.filter(level=key, pool=pool_of(players))
        if season is None
        else SeasonRating.objects.filter(season=season, level=key, pool=pool_of(players))
    )
    return _ranked(rows).select_related("player").order_by("-rating", "updated_at", "player_id")


def race_board_rank(*, row: Row) -> int:
    """The rank of one row on its board (the rows strictly ahead of it, plus one)."""
    ahead = (
        Q(rating__gt=row.rating)
        | Q(rating=row.rating, updated_at__lt=row.updated_at)
        | Q(rating=row.rating, updated_at=row.updated_at, player_id__lt=row.player_id)
    )
    board: QuerySet[Any] = (
        SeasonRating.objects.filter(season=row.season)
        if isinstance(row, SeasonRating)
        else RaceRating.objects.all()
    )
    return _ranked(board.filter(level=row.level, pool=row.pool)).filter(ahead).count() + 1


def race_board_seasons(
    *, level: str, players: str | None, mode: str | None, now: datetime
) -> list[str]:
    """The seasons a level's race board can show, newest first: the current one, then every
    earlier season with a rating on this board."""
    current = seasons.season_of(now)
    key = bucket_for(level, no_guess_mode(mode))
    past = (
        SeasonRating.objects.filter(level=key, pool=pool_of(players), season__lt=current)
        .order_by("-season")
        .values_list("season", flat=True)
        .distinct()
    )
    return [current, *past]


def race_record(row: Row) -> dict[str, Any]:
    """A player's record in one level's races (serializers.RaceRecordOut): their rating, null
    before their first rated race, whether it is still provisional, and their counts. A race
    board's row shows it, and so do the player's races per level
    (games.races.selectors.race_profile)."""
    return {
        "rating": row.rating if row.rated_races else None,
        "provisional": ratings.provisional(row.sigma),
        "races": row.races,
        "wins": row.wins,
        "podiums": row.podiums,
    }


def race_board_row(row: Row, *, rank: int) -> dict[str, Any]:
    # A board holds only rows with a rated race (race_board): the rating is never null here.
    return {"rank": rank, "player": row.player.username, **race_record(row)}


def race_board_me(board: QuerySet[Any], viewer: User | None) -> dict[str, Any] | None:
    """The viewer's own row with its rank, or None (not signed in, or not ranked here: never
    rated, or still provisional)."""
    mine = board.filter(player=viewer).first() if viewer is not None else None
    return race_board_row(mine, rank=race_board_rank(row=mine)) if mine is not None else None


def season_podiums(*, user: User, now: datetime) -> list[dict[str, Any]]:
    """The podiums of the seasons that have ended (before the one holding `now`) where the
    player finished in the top three of a level's board, newest season first: `{season, level,
    no_guess, rank, rating}`. A flagged account's ratings are on no board, so it has none."""
    rows = _ranked(
        SeasonRating.objects.filter(player=user, season__lt=seasons.season_of(now)).exclude(
            pool=BoardPool.NONE
        )
    ).order_by("-season", "level")
    out = []
    for row in rows:
        rank = race_board_rank(row=row)
        if rank <= PODIUM:
            out.append(
                {
                    "season": row.season,
                    "level": base_level(row.level),
                    "no_guess": row.level.endswith(NO_GUESS_SUFFIX),
                    "rank": rank,
                    "rating": row.rating,
                }
            )
    return out


def race_board_page(
    *,
    level: str,
    players: str | None,
    ask: PageAsk,
    mode: str | None = None,
    season: str | None = None,
) -> BoardPage:
    """One page of a race board with `me`, by every board's paging rules (PageAsk.page_of)."""
    board = race_board(level=level, players=players, mode=mode, season=season)
    return sliced_page(
        board,
        ask,
        count=board.count(),
        me=race_board_me(board, ask.viewer),
        row=lambda item, rank: race_board_row(item, rank=rank),
    )
