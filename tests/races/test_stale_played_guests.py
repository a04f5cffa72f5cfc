"""Guests who played once are not kept forever.

`manage.py remove_stale_guests` removes a guest that played but never signed up once it has
been idle for --played-days (GUEST_PLAYED_IDLE_DAYS, 30): no sign-in, no move, no race joined.
Its games and race entries go to the anonymous player first, so every game stays readable and
every race keeps its racers and places; the guest's own rows (statistics) go with it."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import AccountKind, User
from accounts.services import guest_create
from accounts.standings.models import PlayerStats
from games.play import services
from games.play.models import Game, GameState
from games.races.models import Race, Racer
from tests.support.http import assert_error
from tests.support.personas import PASSWORD, client_for
from tests.support.races import racing, tick

pytestmark = pytest.mark.django_db


def _aged(user: User, days: int) -> None:
    """The guest was last signed in, and last played, `days` days ago."""
    then = timezone.now() - timedelta(days=days)
    User.objects.filter(pk=user.pk).update(date_joined=then, last_login=then)
    Game.objects.filter(player=user).update(last_action_at=then)
    Racer.objects.filter(player=user).update(joined_at=then)


def _played_guest() -> tuple[User, Game]:
    guest = guest_create()
    game = services.game_create(player=guest, level="beginner")
    services.game_move(game_id=game.id, player=guest, action="reveal", x=4, y=4)
    services.game_resign(game_id=game.id, player=guest)
    return guest, Game.objects.get(pk=game.id)


def _remove(*args: str) -> str:
    out = StringIO()
    call_command("remove_stale_guests", *args, stdout=out)
    return out.getvalue()


def test_an_idle_guest_that_played_goes_and_its_games_stay_as_anonymous(alice: User) -> None:
    guest, game = _played_guest()
    untapped = services.game_create(player=guest, level="expert")
    assert PlayerStats.objects.filter(user=guest).exists()
    _aged(guest, 31)

    text = _remove()
    assert "1 guest account(s) that played, idle for over 30 day(s)" in text, text
    assert not User.objects.filter(pk=guest.pk).exists()
    assert not PlayerStats.objects.filter(user_id=guest.pk).exists()
    assert not Game.objects.filter(pk=untapped.id).exists()  # never played: nothing to keep
    kept = Game.objects.get(pk=game.id)
    assert (kept.state, kept.player.username) == (GameState.LOST, "guest-anonymous")
    answer = APIClient().get(f"/api/games/{game.id}")
    assert answer.status_code == 200 and answer.json()["player"] == "guest-anonymous"
    assert answer.json()["state"] == "lost"
    assert APIClient().get(f"/api/games/{game.id}/moves").status_code == 200

    anonymous = User.objects.get(username="guest-anonymous")
    assert (anonymous.kind, anonymous.is_active, anonymous.has_usable_password()) == (
        AccountKind.GUEST,
        False,
        False,
    )
    # Nobody signs up as it, and a second run leaves it alone.
    taken = APIClient().post(
        "/api/auth/register",
        {"username": "guest-anonymous", "password": PASSWORD},
        format="json",
    )
    assert_error(taken, 400, "invalid")
    _aged(anonymous, 400)
    _remove("--played-days", "1", "--days", "1")
    assert User.objects.filter(username="guest-anonymous").exists()
    assert Game.objects.get(pk=game.id).player_id == anonymous.pk


def test_a_guest_that_played_lately_or_still_plays_stays(alice: User) -> None:
    old_sign_in, _ = _played_guest()
    _aged(old_sign_in, 31)
    Game.objects.filter(player=old_sign_in).update(last_action_at=timezone.now())  # plays on
    still_playing = guest_create()
    running = services.game_create(player=still_playing, level="beginner")
    services.game_move(game_id=running.id, player=still_playing, action="reveal", x=4, y=4)
    _aged(still_playing, 31)
    recent, _ = _played_guest()
    _aged(recent, 29)

    text = _remove()
    assert "0 guest account(s) that played" in text, text
    assert User.objects.filter(pk__in=[old_sign_in.pk, still_playing.pk, recent.pk]).count() == 3
    assert not User.objects.filter(username__startswith="guest-anonymous").exists()
    # A shorter limit takes the recent one.
    _remove("--played-days", "28")
    assert not User.objects.filter(pk=recent.pk).exists()


def _guest_api() -> tuple[APIClient, User]:
    client = APIClient()
    made = client.post("/api/auth/guest")
    assert made.status_code == 201, made.content
    return client, User.objects.get(pk=made.json()["id"])


def test_a_race_keeps_every_racer_and_place_when_its_guests_go(alice: User) -> None:
    alice_api = client_for(alice)
    (one, first), (two, second) = _guest_api(), _guest_api()
    race = racing(alice_api, [one, two])
    games = {r["player"]: r["game"] for r in race["racers"]}
    for client, name in ((one, first.username), (two, second.username), (alice_api, "alice")):
        answer = client.post(f"/api/games/{games[name]}/resign", {}, format="json")
        assert answer.status_code == 200, answer.content
    tick()  # the race clock ends a race whose racers are all done
    ended = alice_api.get(f"/api/races/{race['id']}").json()
    assert ended["state"] == "finished", ended["state"]
    before = sorted((r["place"], r["state"]) for r in ended["racers"])
    for guest in (first, second):
        _aged(guest, 31)

    _remove()
    assert not User.objects.filter(pk__in=[first.pk, second.pk]).exists()
    after = alice_api.get(f"/api/races/{race['id']}").json()
    assert len(after["racers"]) == 3
    assert sorted((r["place"], r["state"]) for r in after["racers"]) == before
    names = sorted(r["player"] for r in after["racers"])
    assert names == ["alice", "guest-anonymous", "guest-anonymous-2"]
    assert Racer.objects.filter(race_id=race["id"]).count() == 3
    assert Race.objects.get(pk=race["id"]).state == "finished"
    for racer in after["racers"]:
        assert APIClient().get(f"/api/games/{racer['game']}").status_code == 200


def test_the_command_still_removes_guests_that_never_played_after_a_week(db: Any) -> None:
    idle = guest_create()
    _aged(idle, 8)
    text = _remove()
    assert "1 stale guest account(s) idle for over 7 day(s)" in text, text
    assert not User.objects.filter(pk=idle.pk).exists()
