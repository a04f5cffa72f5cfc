"""What a viewer may see of a day's dailies (API.md, Daily challenge): the day's six levels
with their counts and the viewer's own game, the share line, and the day's board with the
running games' cells as they stand. Nothing here shows a layout: the games' own presenter
(games.play.presenters, sealed games) decides what a board shows."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from django.utils import timezone

from accounts.models import User
from accounts.standings import daily as daily_standings
from accounts.standings.leaderboards import BoardPage, PageAsk
from accounts.standings.models import DailyEntry
from demineur_site.formats import iso
from games.daily import rules
from games.daily.models import DailyChallenge
from games.daily.services import LEVELS
from games.errors import GameError
from games.play.models import Game
from games.play.presenters import game_dict

LEVEL_NAMES = {level: level.capitalize() for level in LEVELS}


def day_dict(day: date, *, viewer: User | None, now: datetime | None = None) -> dict[str, Any]:
    """API.md's `{date, ends_at, levels: [...]}` for `day` as `viewer` may see it; each level
    with `start_cell` once the day is over, and (extensions) `over` and the viewer's `share`
    line. A day in the future, or a past day nobody was dealt, is 404. `over`: the server has
    handled the day's end (a few seconds after `ends_at`)."""
    now = now or timezone.now()
    today = rules.day_of(now)
    challenges = {c.level: c for c in DailyChallenge.objects.filter(day=day).defer("board")}
    if day > today or (day < today and not challenges):
        raise GameError("not_found", "No daily on this day.", {"today": today.isoformat()})
    # Over once the server has handled the day's end (games.daily.services.daily_close): the
    # boards are unsealed then, and only then is the start cell shown.
    over = bool(challenges) and all(c.closed_at is not None for c in challenges.values())
    counts = daily_standings.day_counts(day)
    own: dict[str, Game] = {}
    entries: dict[str, DailyEntry] = {}
    if viewer is not None and viewer.is_authenticated:
        entries = {e.level: e for e in DailyEntry.objects.filter(user=viewer, day=day)}
        games = Game.objects.select_related("player", "analysis").filter(
            pk__in=[e.game_id for e in entries.values()]
        )
        own = {g.level: g for g in games}
    levels = []
    for level in LEVELS:
        players, winners = counts.get(level, (0, 0))
        game = own.get(level)
        item: dict[str, Any] = {
            "level": level,
            "no_guess": True,
            "players": players,
            "winners": winners,
            "game": None
            if game is None
            else game_dict(
                game, player_name=game.player.username, viewer_id=viewer.pk if viewer else None
            ),
            "share": None,
            "share_facts": None,
        }
        challenge = challenges.get(level)
        if challenge is not None and challenge.closed_at is not None:
            item["start_cell"] = {"x": challenge.start_x, "y": challenge.start_y}
        entry = entries.get(level)
        if game is not None and entry is not None and game.ended:
            facts = share_facts(entry, game, viewer=viewer, players=players)
            item["share"] = rules.share_line(**facts)
            # The same facts apart, for a page to say the line in its own language.
            item["share_facts"] = {**facts, "day": facts["day"].isoformat()}
        levels.append(item)
    return {
        "date": day.isoformat(),
        "ends_at": iso(rules.day_end(day)),
        "over": over,
        "levels": levels,
    }


def share_facts(entry: DailyEntry, game: Game, *, viewer: Any, players: int) -> dict[str, Any]:
    """What the result line of the viewer's ended daily says (rules.share_line's arguments):
    their rank on their board as it stands (final once the day is over), nothing of the board."""
    rank = entry.place
    if rank is None and entry.ranked and entry.pool != "none":
        page = daily_standings.daily_board_page(
            board=daily_standings.DailyBoard(day=entry.day, level=entry.level, pool=entry.pool),
            ask=PageAsk(page=1, page_size=1, viewer=viewer),
        )
        rank = page.me["rank"] if page.me is not None else None
    return dict(
        day=entry.day,
        level_name=LEVEL_NAMES.get(entry.level, entry.level),
        won=entry.state == daily_standings.WON,
        time_ms=entry.time_ms,
        opened=entry.opened,
        safe_cells=game.width * game.height - game.mines,
        rank=rank,
        players=players,
        bbbv_per_s=entry.bbbv_per_s,
    )


def board_page_live(page: BoardPage) -> BoardPage:
    """The running games' rows show the cells opened as they stand (the row itself is written
    at the game's start and end only: a move never writes the board)."""
    running = [r["game_id"] for r in page.results if r["state"] in ("playing", "paused")]
    if page.me is not None and page.me["state"] in ("playing", "paused"):
        running.append(page.me["game_id"])
    if not running:
        return page
    opened = {
        str(game_id): cells
        for game_id, cells in Game.objects.filter(pk__in=running).values_list("id", "opened")
    }
    for row in [*page.results, *([page.me] if page.me else [])]:
        row["opened"] = opened.get(row["game_id"], row["opened"])
    return page


def calendar_rows(entries: list[DailyEntry]) -> list[dict[str, Any]]:
    return [
        {
            "date": e.day.isoformat(),
            "level": e.level,
            "state": e.state,
            "time_ms": e.time_ms,
            "opened": e.opened,
            "place": e.place,
            "ranked": e.ranked,
            "game_id": str(e.game_id),
        }
        for e in entries
    ]
