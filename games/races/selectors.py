"""Reads of races: one race, race lists, the race leaderboard per level, and a player's race
statistics and history for their profile. Anyone may read any race: a Race never carries a
cell (games.races.presenters)."""

from __future__ import annotations

import uuid
from typing import Any

from django.db.models import Count, QuerySet
from django.utils import timezone

from accounts.models import User
from accounts.standings.models import RaceRating
from accounts.standings.race_board import race_record, season_podiums
from accounts.standings.ratings import shown_rating
from demineur_site import metrics
from demineur_site.formats import iso
from games.play.selectors import filter_state_and_level, parse_id, row_by_id
from games.races.models import Race, Racer, RaceState
from games.races.presenters import racer_provisional
from games.races.rules import normalize_code

RACE_STATES = {s.value for s in RaceState}
# `?players=` as on the solo boards (API.md): humans by default, or the bots' own ratings.


def parse_race_id(raw: Any) -> uuid.UUID:
    return parse_id(raw, what="race")


def race_get(*, race_id: Any) -> Race:
    return row_by_id(Race.objects.select_related("host"), race_id, what="race")


def race_list(*, state: str | None, level: str | None, code: str | None) -> QuerySet[Race]:
    qs = Race.objects.select_related("host").order_by("-created_at", "-id")
    qs = filter_state_and_level(qs, state=state, states=RACE_STATES, level=level)
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


def race_profile(*, user: User, history: int = 20) -> dict[str, Any]:
    """A player's race statistics per level, their totals, their newest finished races, and
    their podiums of the seasons that have ended (by the server's clock)."""
    per_level = {row.level: race_record(row) for row in RaceRating.objects.filter(player=user)}
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
                "no_guess": r.race.no_guess,
                "ended_at": iso(r.race.ended_at),
                "racers": counts.get(r.race_id, 0),
                "place": r.place,
                "state": r.state,
                "elapsed_ms": r.elapsed_ms,
                "game": str(r.game_id) if r.game_id else None,
                "rated": r.rating_after is not None,
                "rating_before": shown_rating(r.rating_before),
                "rating_after": shown_rating(r.rating_after),
                "provisional": racer_provisional(r),
            }
            for r in recent
        ],
        "season_podiums": season_podiums(user=user, now=timezone.now()),
    }


def races_in_progress() -> dict[str, int]:
    """Races not finished yet, by state (open, countdown, running): read at each Prometheus
    scrape (demineur_site.metrics, registered below); every state is present."""
    live = (RaceState.OPEN, RaceState.COUNTDOWN, RaceState.RUNNING)
    counts = dict.fromkeys((str(s) for s in live), 0)
    rows = (
        Race.objects.filter(state__in=live).order_by().values_list("state").annotate(n=Count("id"))
    )
    for state, count in rows:
        counts[str(state)] = int(count)
    return counts


metrics.register_in_progress("races", races_in_progress)
