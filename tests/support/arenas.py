"""Arena helpers (docs/ARENAS.md): players join an arena through the API, the race clock is
driven by the tests with a controlled `now` (tests/support/races.py's `tick`, which runs the
arenas' tick too), and the racers play their race games through the Games endpoints. The
hidden layouts: tests/support/boards.py."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import User
from games.arenas.models import Arena
from games.races.models import Race
from tests.support.boards import board_of, mine_cell, safe_closed, win
from tests.support.personas import client_for
from tests.support.races import tick


def new_arena(api: APIClient, **body: Any) -> dict[str, Any]:
    """A 20-minute Beginner arena starting now (unless `body` says otherwise)."""
    answer = api.post("/api/arenas", {"level": "beginner", "minutes": 20, **body}, format="json")
    assert answer.status_code == 201, answer.content
    return dict(answer.json())


def bots(n: int, prefix: str = "bot") -> list[tuple[User, APIClient]]:
    """`n` bot accounts, each with an API client of its own."""
    made = []
    for i in range(n):
        user = User.objects.create_user(username=f"{prefix}{i:02d}", password=None, kind="bot")
        made.append((user, client_for(user)))
    return made


def arena_races(arena_id: str, state: str | None = None) -> list[Race]:
    qs = Race.objects.filter(arena_id=arena_id).order_by("created_at", "id")
    return list(qs.filter(state=state) if state else qs)


def start_countdowns(arena_id: str, at: datetime | None = None) -> list[dict[str, Any]]:
    """End the countdown of every arena race counting down: each starts at `at` (default
    now). Returns the started races as the API shows them."""
    at = at or timezone.now()
    counting = Race.objects.filter(arena_id=arena_id, state="countdown")
    ids = [str(r.pk) for r in counting]
    counting.update(starts_at=at, deadline=at)
    tick(at)
    return [APIClient().get(f"/api/races/{i}").json() for i in ids]


def race_of(arena_id: str, *apis: APIClient) -> dict[str, Any]:
    """Every one of `apis` joins the arena, the pool pairs them into one race and its countdown
    ends now. Returns that race as the API shows it."""
    for api in apis:
        api.post(f"/api/arenas/{arena_id}/join")
    tick(later(0.2))
    (race,) = start_countdowns(arena_id)
    return race


def alice_beats_bob(race: dict[str, Any], alice_api: APIClient, bob_api: APIClient) -> None:
    """alice clears her game, bob moves once then hits a mine: the race is over a second on."""
    clear(alice_api, game_of(race, "alice"))
    lose(bob_api, game_of(race, "bob"), moves=2)
    tick(later(1))


def end_arena(arena_id: str) -> None:
    """Move the arena's end a second ahead and let the clock pass it."""
    end = later(1)
    Arena.objects.filter(pk=arena_id).update(ends_at=end, deadline=end)
    tick(end + timedelta(seconds=1))


def game_of(race: dict[str, Any], player: str) -> str:
    return str(next(r["game"] for r in race["racers"] if r["player"] == player))


def clear(api: APIClient, game_id: str) -> None:
    assert win(api, game_id)["state"] == "won"


def lose(api: APIClient, game_id: str, *, moves: int = 1) -> None:
    """Open `moves - 1` safe cells (a move of their own: the racer took part), then a mine."""
    for x, y in safe_closed(game_id)[: moves - 1]:
        api.post(f"/api/games/{game_id}/reveal", {"x": x, "y": y}, format="json")
    x, y = mine_cell(board_of(game_id))
    answer = api.post(f"/api/games/{game_id}/reveal", {"x": x, "y": y}, format="json")
    assert answer.json()["game"]["state"] == "lost", answer.content


def standings(arena_id: str) -> dict[str, dict[str, Any]]:
    rows = APIClient().get(f"/api/arenas/{arena_id}/standings").json()["results"]
    return {r["player"]: r for r in rows}


def end_of(arena_id: str) -> datetime:
    return Arena.objects.get(pk=arena_id).ends_at


def later(seconds: float) -> datetime:
    return timezone.now() + timedelta(seconds=seconds)
