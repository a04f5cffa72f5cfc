"""Every race rating recomputed from the raw results stored with each finished race (each
racer's place, rating pool and whether they took part), in the order the races ended, with
the rules of docs/RACES.md (Rated races) replayed, the daily limit per pair included, and each
season's ratings from the races that ended in it: what `manage.py recompute_race_ratings`
runs, and what a change of the rating model would need."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from accounts.standings import ratings, seasons
from accounts.standings.models import RaceRating, SeasonRating
from games.races import rules as race_rules
from games.races.models import Race, Racer, RaceState
from games.races.services import rate_race, rating_level


@dataclass
class _Row:
    skill: ratings.Skill = field(default_factory=ratings.Skill.new)
    races: int = 0
    wins: int = 0
    podiums: int = 0
    rated_races: int = 0
    pool: str = ""
    updated_at: datetime | None = None


@dataclass(frozen=True)
class Report:
    races: int
    ratings: int
    differences: int  # racer rating changes and rating rows that were not as recomputed


def _close(a: float | None, b: float | None) -> bool:
    return (a is None and b is None) or (a is not None and b is not None and abs(a - b) < 1e-6)


def _count(row: _Row, racer: Racer, place: int, change: Any, at: datetime) -> None:
    race_rules.count_race(row, place, rated=change is not None and change.rated)
    row.pool = racer.pool or row.pool
    row.updated_at = at
    if change is not None and change.rated:
        row.skill = change.skill


def _store(model: Any, stored: dict[Any, Any], rows: dict[Any, _Row], *, write: bool) -> int:
    """Write the recomputed `rows` of one table (RaceRating keyed by player and level,
    SeasonRating by player, level and season) over the `stored` ones; the differences."""
    differences = 0
    for key, row in rows.items():
        old = stored.pop(key, None)
        new = (row.skill.mu, row.skill.sigma, row.races, row.wins, row.podiums, row.rated_races)
        if old is not None and (
            _close(old.mu, new[0])
            and _close(old.sigma, new[1])
            and (old.races, old.wins, old.podiums, old.rated_races) == new[2:]
        ):
            continue
        differences += 1
        if write:
            names = {"player_id": key[0], "level": key[1]}
            if len(key) == 3:
                names["season"] = key[2]
            model.objects.update_or_create(
                **names,
                defaults={
                    "pool": row.pool or "none",
                    "mu": row.skill.mu,
                    "sigma": row.skill.sigma,
                    "rating": row.skill.shown,
                    "races": row.races,
                    "wins": row.wins,
                    "podiums": row.podiums,
                    "rated_races": row.rated_races,
                    "updated_at": row.updated_at or timezone.now(),
                },
            )
    differences += len(stored)
    if write and stored:
        model.objects.filter(pk__in=[r.pk for r in stored.values()]).delete()
    return differences


def recompute(*, write: bool = True, progress: Callable[[int, int], None] | None = None) -> Report:
    rows: dict[tuple[int, str], _Row] = {}
    season_rows: dict[tuple[int, str, str], _Row] = {}
    # Pairs rated against each other, per (UTC day, level), as the races are replayed.
    pairs: dict[tuple[datetime, str], Counter[frozenset[int]]] = {}
    differences = 0
    finished = list(Race.objects.filter(state=RaceState.FINISHED).order_by("ended_at", "id"))
    with transaction.atomic():
        for done, race in enumerate(finished, start=1):
            racers = list(Racer.objects.filter(race=race).order_by("joined_at", "id"))
            places = [r.place or len(racers) for r in racers]

            bucket = rating_level(race)  # the level, or its no-guess bucket

            def skill_of(racer: Racer, level: str = bucket) -> ratings.Skill:
                return rows.setdefault((racer.player_id, level), _Row()).skill

            assert race.ended_at is not None
            today = pairs.setdefault((race_rules.utc_day(race.ended_at), bucket), Counter())

            def rated_together(a: int, b: int, seen: Counter[frozenset[int]] = today) -> int:
                return seen[frozenset((a, b))]

            season = seasons.season_of(race.ended_at)

            def season_skill_of(
                racer: Racer, level: str = bucket, at: str = season
            ) -> ratings.Skill:
                return season_rows.setdefault((racer.player_id, level, at), _Row()).skill

            changes = rate_race(racers, places, skill_of, rated_together)
            seasonal = rate_race(racers, places, season_skill_of, rated_together)
            for racer, place in zip(racers, places, strict=True):
                change = changes.get(racer.pk)
                at = race.ended_at
                _count(rows.setdefault((racer.player_id, bucket), _Row()), racer, place, change, at)
                _count(
                    season_rows.setdefault((racer.player_id, bucket, season), _Row()),
                    racer,
                    place,
                    seasonal.get(racer.pk),
                    at,
                )
                before = change.before if change else None
                after = change.after if change else None
                sigma = change.skill.sigma if change else None
                if not (
                    _close(before, racer.rating_before)
                    and _close(after, racer.rating_after)
                    and _close(sigma, racer.sigma_after)
                ):
                    differences += 1
                    if write:
                        racer.rating_before, racer.rating_after = before, after
                        racer.sigma_after = sigma
                        racer.save(update_fields=["rating_before", "rating_after", "sigma_after"])
            # Those who took part and were rated: the live count's (games.races.services). A
            # racer who kept their rating had no rival who took part: no pair to count.
            rivals = [
                r.player_id
                for r in racers
                if r.took_part and r.pk in changes and changes[r.pk].rated
            ]
            today.update(race_rules.pairs_rated([rivals]))
            if progress is not None and (done % 100 == 0 or done == len(finished)):
                progress(done, len(finished))
        lasting = {(r.player_id, r.level): r for r in RaceRating.objects.select_for_update()}
        differences += _store(RaceRating, lasting, rows, write=write)
        by_season = {
            (r.player_id, r.level, r.season): r for r in SeasonRating.objects.select_for_update()
        }
        differences += _store(SeasonRating, by_season, season_rows, write=write)
    return Report(races=len(finished), ratings=len(rows), differences=differences)
