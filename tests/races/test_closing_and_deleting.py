"""Closing an account (off every board and list, reopened by signing in
within ACCOUNT_REOPEN_DAYS) and deleting it (after the grace period the personal data goes,
the games stay under an anonymous name, the name is never reused), for players, bots and
guests (API.md, The account's lifecycle; docs/ACCOUNTS.md, Closing)."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import ApiToken, RetiredName, User
from accounts.standings.models import RaceRating
from games.play.models import Game
from games.races.models import Racer
from tests.support.boards import win
from tests.support.personas import PASSWORD, client_for
from tests.support.races import racing, tick

pytestmark = pytest.mark.django_db


def won_beginner(api: APIClient) -> str:
    game = api.post("/api/games", {"level": "beginner"}, format="json").json()
    assert (
        api.post(f"/api/games/{game['id']}/reveal", {"x": 4, "y": 4}, format="json").status_code
        == 200
    )
    assert win(api, game["id"])["state"] == "won"
    return str(game["id"])


def board_names() -> list[str]:
    rows = APIClient().get("/api/leaderboards/beginner/times").json()["results"]
    return [r["player"] for r in rows]


def close(api: APIClient, mode: str, password: str | None = PASSWORD) -> Any:
    body = {"mode": mode, **({"password": password} if password is not None else {})}
    return api.post("/api/me/close", body, format="json")


def sign_in(name: str) -> Any:
    return APIClient().post(
        "/api/auth/token", {"username": name, "password": PASSWORD}, format="json"
    )


def test_a_closed_account_is_off_every_board_and_list_until_it_signs_in_again(
    alice_api: APIClient, bob_api: APIClient, alice: User
) -> None:
    won_beginner(alice_api)
    won_beginner(bob_api)
    before = board_names()
    assert set(before) == {"alice", "bob"}
    wrong = close(alice_api, "close", "not my password")
    assert (wrong.status_code, wrong.json()["error"]["code"]) == (403, "wrong_password")
    assert close(alice_api, "close").status_code == 202

    assert board_names() == ["bob"]
    assert APIClient().get("/api/users/alice").status_code == 404
    assert APIClient().get("/api/games?user=alice").json()["count"] == 0
    assert alice_api.get("/api/me").status_code == 401  # its tokens stop working
    assert ApiToken.objects.filter(user=alice).exists()  # kept for a reopening

    assert sign_in("alice").status_code == 200  # within 30 days: reopened
    assert board_names() == before
    assert APIClient().get("/api/users/alice").status_code == 200
    assert alice_api.get("/api/me").json()["closed"] is False


def test_after_the_reopening_window_the_sign_in_is_refused(alice_api: APIClient) -> None:
    assert close(alice_api, "close").status_code == 202
    User.objects.filter(username="alice").update(closed_at=timezone.now() - timedelta(days=31))
    refused = sign_in("alice")  # as for any wrong sign-in: nothing says the account was there
    assert (refused.status_code, refused.json()["error"]["code"]) == (401, "invalid_credentials")
    assert APIClient().get("/api/users/alice").status_code == 404


def test_closing_signs_out_the_browser_session() -> None:
    page = Client()
    page.post("/api/auth/register", {"username": "carol", "password": PASSWORD}, "application/json")
    page.post("/api/auth/session", {"username": "carol", "password": PASSWORD}, "application/json")
    answer = page.post("/api/me/close", {"mode": "close", "password": PASSWORD}, "application/json")
    assert answer.status_code == 202
    assert page.get("/api/auth/session").status_code == 401


def test_a_guest_closes_without_a_password() -> None:
    page = Client()
    assert page.post("/api/auth/guest").status_code == 201
    name = page.get("/api/auth/session").json()["username"]
    assert page.post("/api/me/close", {"mode": "delete"}, "application/json").status_code == 202
    assert User.objects.get(username=name).delete_after is not None


def test_signing_in_during_the_grace_period_calls_the_deletion_off(
    alice_api: APIClient, alice: User
) -> None:
    assert close(alice_api, "delete").status_code == 202
    assert sign_in("alice").status_code == 200
    alice.refresh_from_db()
    assert (alice.closed_at, alice.delete_after, alice.is_active) == (None, None, True)


def test_a_deleted_account_keeps_its_games_under_an_anonymous_name(
    alice_api: APIClient, bob_api: APIClient, alice: User, bob: User
) -> None:
    alice.email, alice.email_verified = "alice@example.org", True
    alice.save()
    solo = won_beginner(alice_api)
    won_beginner(bob_api)
    race = racing(alice_api, [bob_api])
    started = Game.objects.get(pk=race["racers"][0]["game"]).started_at
    assert started is not None
    tick(started + timedelta(minutes=5))  # the time limit ends the race, rated
    bob_rating = RaceRating.objects.get(player=bob).rating

    assert close(alice_api, "delete").status_code == 202
    call_command("delete_closed_accounts", stdout=StringIO())
    assert User.objects.filter(username="alice").exists()  # still within its grace period
    User.objects.filter(pk=alice.pk).update(delete_after=timezone.now() - timedelta(seconds=1))
    out = StringIO()
    call_command("delete_closed_accounts", stdout=out)
    assert "deleted 1 account(s)" in out.getvalue()

    gone = User.objects.get(pk=alice.pk)
    assert gone.username.startswith("guest-anonymous-d")
    assert (gone.email, gone.has_usable_password(), gone.is_active) == ("", False, False)
    assert not ApiToken.objects.filter(user=gone).exists()
    assert RetiredName.objects.filter(name_key="alice").exists()
    # the games stay, under the anonymous name; the race still has both racers
    assert APIClient().get(f"/api/games/{solo}").json()["player"] == gone.username
    racers = APIClient().get(f"/api/races/{race['id']}").json()["racers"]
    assert sorted(r["player"] for r in racers) == sorted(["bob", gone.username])
    assert Racer.objects.filter(race_id=race["id"]).count() == 2
    assert RaceRating.objects.get(player=bob).rating == bob_rating
    assert board_names() == ["bob"]
    # the name is never reused, in any spelling
    for name in ("alice", "ALICE"):
        taken = APIClient().post(
            "/api/auth/register", {"username": name, "password": PASSWORD}, format="json"
        )
        assert taken.json()["error"]["details"]["codes"]["username"] == ["username_taken"]
    assert sign_in("alice").status_code == 401
    # every board and game still adds up
    verified = StringIO()
    call_command("verify_games", stdout=verified, stderr=StringIO())
    assert "0 mismatch(es)" in verified.getvalue()


def test_a_bot_closes_like_a_player(alice: User) -> None:
    robo = User.objects.create_user(username="robo", password=PASSWORD, kind="bot")
    api = client_for(robo)
    assert close(api, "delete").status_code == 202
    User.objects.filter(pk=robo.pk).update(delete_after=timezone.now())
    call_command("delete_closed_accounts", stdout=StringIO())
    assert User.objects.get(pk=robo.pk).username.startswith("guest-anonymous-d")
