"""Play first, sign up later (docs/GUESTS.md): a visitor's browser session
becomes a guest account that plays by every rule but never ranks, never holds a token, stays
off the boards and the lobby, and becomes the player's own account on sign-up."""

from __future__ import annotations

import re
from datetime import timedelta
from io import StringIO
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.core.cache import cache
from django.core.management import call_command
from django.utils import timezone
from rest_framework.settings import api_settings
from rest_framework.test import APIClient
from rest_framework.throttling import SimpleRateThrottle

from accounts.models import User
from accounts.services import guest_create
from accounts.standings.models import PersonalRecord, PlayerStats
from games.play import selectors, services
from games.play.models import Game
from tests.support.boards import win
from tests.support.http import assert_error, new_game, start
from tests.support.personas import PASSWORD
from tests.support.sockets import connected, socket

GUEST_NAME = re.compile(r"^guest-[a-z0-9]{6}$")
BOARDS = (
    "/api/leaderboards/beginner/times",
    "/api/leaderboards/beginner/speed",
    "/api/leaderboards/beginner/streaks",
    "/api/leaderboards/beginner/streaks?sort=current",
)


def _guest(client: APIClient | None = None) -> tuple[APIClient, dict[str, Any]]:
    """A browser-like client whose session is a new guest's."""
    client = client or APIClient()
    response = client.post("/api/auth/guest")
    assert response.status_code == 201, response.content
    return client, response.json()


def _won_guest_game(client: APIClient) -> dict[str, Any]:
    game = start(client, "beginner")
    assert (game["ranked"], game["unranked_reason"]) == (False, "guest")
    final = win(client, game["id"])
    assert final["state"] == "won", final
    return final


def _board_players(api: APIClient) -> set[str]:
    players: set[str] = set()
    for path in BOARDS:
        response = api.get(path)
        assert response.status_code == 200, (path, response.content)
        players |= {row["player"] for row in response.json()["results"]}
    return players


@pytest.mark.django_db
def test_a_visitor_plays_as_a_guest_by_every_rule_and_the_game_never_ranks(anon_api):
    client, who = _guest()
    assert who["kind"] == "guest" and GUEST_NAME.match(who["username"]), who
    guest = User.objects.get(pk=who["id"])
    assert not guest.has_usable_password()
    assert client.get("/api/auth/session").json() == who
    # The same session asking again is the same guest (200), not a second account.
    again = client.post("/api/auth/guest")
    assert (again.status_code, again.json()) == (200, who)
    assert User.objects.filter(kind="guest").count() == 1

    game = _won_guest_game(client)
    assert (game["ranked"], game["unranked_reason"], game["player"]) == (
        False,
        "guest",
        who["username"],
    )
    # Statistics count it; no board has it.
    beginner = client.get("/api/me").json()["stats"]["beginner"]
    assert (beginner["played"], beginner["won"], beginner["current_streak"]) == (1, 1, 1)
    assert PlayerStats.objects.get(user=guest, level="beginner").pool == "none"
    assert not PersonalRecord.objects.filter(user=guest).exists()
    assert who["username"] not in _board_players(anon_api)
    for path in BOARDS:
        rows = anon_api.get(path).json()["results"]
        assert rows == [], (path, rows)


@pytest.mark.django_db
def test_guest_names_never_collide_with_sign_up_names(anon_api):
    _, who = _guest()
    for name in (who["username"], "guest-abc123", "GUEST-zz", "Guest-me"):
        response = anon_api.post(
            "/api/auth/register", {"username": name, "password": PASSWORD}, format="json"
        )
        body = assert_error(response, 400, "invalid")
        assert body["error"]["details"]["codes"] == {"username": ["username_reserved"]}
    ok = anon_api.post(
        "/api/auth/register", {"username": "guest_star", "password": PASSWORD}, format="json"
    )
    assert ok.status_code == 201, ok.content


@pytest.mark.django_db
def test_a_signed_in_player_gets_no_guest(alice, alice_api):
    assert_error(alice_api.post("/api/auth/guest"), 409, "already_signed_in")  # a token
    browser = APIClient()
    browser.force_login(alice)  # a session
    assert_error(browser.post("/api/auth/guest"), 409, "already_signed_in")
    assert not User.objects.filter(kind="guest").exists()


@pytest.mark.django_db
def test_only_a_browser_gets_a_guest_anonymous_requests_pass_the_csrf_check():
    strict = APIClient(enforce_csrf_checks=True)
    assert_error(strict.post("/api/auth/guest"), 403, "csrf_failed")
    assert not User.objects.filter(kind="guest").exists()
    assert strict.get("/").status_code == 200  # the page sets the CSRF cookie
    token = strict.cookies["csrftoken"].value
    response = strict.post("/api/auth/guest", HTTP_X_CSRFTOKEN=token)
    assert response.status_code == 201, response.content


@pytest.mark.django_db
def test_guests_are_throttled_per_address_like_registration():
    cache.clear()
    original = SimpleRateThrottle.THROTTLE_RATES
    SimpleRateThrottle.THROTTLE_RATES = {**api_settings.DEFAULT_THROTTLE_RATES, "auth": "2/min"}
    try:
        _guest()
        _guest()
        response = APIClient().post("/api/auth/guest")  # a fresh session, the same address
        assert_error(response, 429, "throttled")
        assert int(response["Retry-After"]) >= 1
    finally:
        SimpleRateThrottle.THROTTLE_RATES = original
        cache.clear()
    assert User.objects.filter(kind="guest").count() == 2


@pytest.mark.django_db
def test_a_guest_gets_no_api_token(anon_api):
    client, who = _guest()
    new_game(client)
    assert_error(client.post("/api/tokens", {"name": "bot"}, format="json"), 409, "guest_account")
    assert client.get("/api/tokens").json() == {"results": []}
    # Nobody can sign in as a guest or trade its name for a token: it has no password.
    for path in ("/api/auth/token", "/api/auth/session"):
        for password in ("x", PASSWORD):
            body = {"username": who["username"], "password": password}
            assert_error(anon_api.post(path, body, format="json"), 409, "guest_account")
    assert_error(client.patch("/api/me", {"kind": "bot"}, format="json"), 409, "guest_account")
    assert not User.objects.get(pk=who["id"]).tokens.exists()


@pytest.mark.django_db
def test_signing_up_from_a_guest_keeps_the_games_and_statistics_under_the_new_name(anon_api):
    client, who = _guest()
    game = _won_guest_game(client)
    response = client.post(
        "/api/auth/register",
        {"username": "gina", "password": PASSWORD, "email": "gina@example.org"},
        format="json",
    )
    assert response.status_code == 201, response.content
    assert response.json() == {"id": who["id"], "username": "gina", "kind": "human"}
    # The same account, the same session: still signed in, now as gina.
    assert client.get("/api/auth/session").json()["username"] == "gina"
    user = User.objects.get(pk=who["id"])
    assert (user.kind, user.email, user.check_password(PASSWORD)) == (
        "human",
        "gina@example.org",
        True,
    )
    assert User.objects.count() == 1

    profile = anon_api.get("/api/users/gina").json()
    assert [g["id"] for g in profile["recent_games"]] == [game["id"]]
    assert (profile["stats"]["beginner"]["played"], profile["stats"]["beginner"]["won"]) == (1, 1)
    assert_error(anon_api.get(f"/api/users/{who['username']}"), 404, "not_found")
    kept = anon_api.get(f"/api/games/{game['id']}").json()
    # Its old game stays unranked, as a guest's; its next game ranks.
    assert (kept["player"], kept["ranked"], kept["unranked_reason"]) == ("gina", False, "guest")
    assert "gina" not in _board_players(anon_api)
    token = anon_api.post(
        "/api/auth/token", {"username": "gina", "password": PASSWORD}, format="json"
    )
    assert token.status_code == 200, token.content
    nxt = start(client, "beginner")
    assert (nxt["ranked"], nxt["unranked_reason"]) == (True, None)
    final = win(client, nxt["id"])
    assert final["state"] == "won"
    assert "gina" in {r["player"] for r in anon_api.get(BOARDS[0]).json()["results"]}
    assert client.get("/api/me").json()["stats"]["beginner"]["played"] == 2


@pytest.mark.django_db
def test_a_guest_becomes_a_bot_only_before_playing():
    client, who = _guest()
    start(client, "beginner")
    refused = client.post(
        "/api/auth/register",
        {"username": "robo", "password": PASSWORD, "kind": "bot"},
        format="json",
    )
    assert_error(refused, 409, "account_has_games")
    assert User.objects.get(pk=who["id"]).kind == "guest"
    fresh, other = _guest(APIClient())
    made = fresh.post(
        "/api/auth/register",
        {"username": "robo", "password": PASSWORD, "kind": "bot"},
        format="json",
    )
    assert made.json() == {"id": other["id"], "username": "robo", "kind": "bot"}


@pytest.mark.django_db
def test_signing_in_from_a_guest_switches_accounts_and_the_games_stay_with_the_guest(alice):
    client, who = _guest()
    game = start(client, "beginner")
    response = client.post(
        "/api/auth/session", {"username": "alice", "password": PASSWORD}, format="json"
    )
    assert response.status_code == 200, response.content
    assert client.get("/api/auth/session").json()["username"] == "alice"
    assert Game.objects.get(pk=game["id"]).player_id == who["id"]
    assert User.objects.get(pk=who["id"]).kind == "guest"
    # Signed in, registering makes a new account: alice stays alice.
    made = client.post(
        "/api/auth/register", {"username": "newbie", "password": PASSWORD}, format="json"
    )
    assert made.status_code == 201 and made.json()["id"] not in (who["id"], alice.pk)
    assert User.objects.get(pk=alice.pk).username == "alice"


@pytest.mark.django_db
def test_guest_games_stay_out_of_the_lobby_list(alice):
    client, _ = _guest()
    guest_game = start(client, "beginner")
    mine = services.game_create(player=alice, level="beginner")
    services.game_move(game_id=mine.id, player=alice, action="reveal", x=4, y=4)
    assert [g.id for g in selectors.live_games(limit=30)] == [mine.id]
    # The REST list still lists it for anyone who asks: it is a public game to watch.
    listed = APIClient().get("/api/games?state=playing").json()["results"]
    assert guest_game["id"] in {g["id"] for g in listed}


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_thread_connections")
async def test_the_lobby_socket_neither_lists_nor_announces_guest_games(alice):
    guest = await database_sync_to_async(guest_create)()
    create = database_sync_to_async(services.game_create)
    move = database_sync_to_async(services.game_move)
    played = await create(player=guest, level="beginner")
    await move(game_id=played.id, player=guest, action="reveal", x=4, y=4)
    lobby = socket("/ws/live")
    snapshot = await connected(lobby)
    assert snapshot == {"type": "live", "games": []}
    await create(player=guest, level="expert")  # not announced
    hers = await create(player=alice, level="expert")
    started = await lobby.receive_json_from(timeout=3)
    assert (started["type"], started["id"], started["player"]) == (
        "game_started",
        str(hers.id),
        "alice",
    )
    await lobby.disconnect()


def _aged(user: User, days: int) -> None:
    then = timezone.now() - timedelta(days=days)
    User.objects.filter(pk=user.pk).update(date_joined=then, last_login=then)


@pytest.mark.django_db
def test_the_stale_guest_command_removes_only_idle_guests_without_games(alice):
    idle = guest_create()
    idle_untapped = guest_create()
    untapped = services.game_create(player=idle_untapped, level="beginner")
    idle_played = guest_create()
    played = services.game_create(player=idle_played, level="beginner")
    services.game_move(game_id=played.id, player=idle_played, action="reveal", x=4, y=4)
    recent = guest_create()
    for user in (idle, idle_untapped, idle_played, alice):
        _aged(user, 8)
    _aged(recent, 6)

    out = StringIO()
    call_command("remove_stale_guests", "--days", "7", stdout=out)
    text = out.getvalue()
    assert "2 stale guest account(s)" in text and "removed 2/2" in text, text
    left = set(User.objects.values_list("pk", flat=True))
    assert left == {idle_played.pk, recent.pk, alice.pk}
    assert not Game.objects.filter(pk=untapped.id).exists()
    assert Game.objects.filter(pk=played.id).exists()

    # A shorter limit takes the recent one too; nothing else.
    call_command("remove_stale_guests", "--days", "5", stdout=StringIO())
    assert set(User.objects.values_list("pk", flat=True)) == {idle_played.pk, alice.pk}
