"""RULES.md, Fair play: bots are declared, play under the same rules, and rank only on the
bot boards (`?players=bots`), never beside humans."""

from __future__ import annotations

from rest_framework.test import APIClient

from accounts.models import User
from tests.support.boards import win
from tests.support.fairplay import board, players_on
from tests.support.http import assert_error, post, start
from tests.support.personas import PASSWORD, client_for


def test_register_as_a_bot(anon_api: APIClient) -> None:
    response = anon_api.post(
        "/api/auth/register",
        {"username": "solver", "password": PASSWORD, "kind": "bot"},
        format="json",
    )
    assert response.status_code == 201
    assert response.json()["kind"] == "bot"
    assert User.objects.get(username="solver").kind == "bot"
    assert anon_api.get("/api/users/solver").json()["kind"] == "bot"


def test_register_defaults_to_human_and_refuses_other_kinds(anon_api: APIClient) -> None:
    ok = anon_api.post(
        "/api/auth/register",
        {"username": "hum", "password": PASSWORD},
        format="json",
    )
    assert ok.json()["kind"] == "human"
    for i, kind in enumerate(("guest", "admin", 1, None, ["bot"], {"a": 1})):
        response = anon_api.post(
            "/api/auth/register",
            {"username": f"x{i}", "password": PASSWORD, "kind": kind},
            format="json",
        )
        assert_error(response, 400, "invalid")
    assert User.objects.count() == 1


def test_a_bots_win_ranks_only_on_the_bot_boards(
    robo_api: APIClient, alice_api: APIClient, anon_api: APIClient
) -> None:
    bot_game = win(robo_api, start(robo_api, "beginner")["id"])
    human_game = win(alice_api, start(alice_api, "beginner")["id"])
    assert bot_game["ranked"] is True and bot_game["unranked_reason"] is None
    for kind in ("times", "speed", "streaks"):
        humans = board(anon_api, "beginner", kind)
        bots = board(anon_api, "beginner", kind, players="bots")
        assert "robo" not in players_on(humans)
        assert players_on(bots) == ["robo"]
        if kind != "speed" or human_game["result_stats"]["bbbv_per_s"] is not None:
            assert players_on(humans) == ["alice"]
    explicit = board(anon_api, "beginner", "times", players="humans")
    assert players_on(explicit) == ["alice"]


def test_players_must_be_humans_or_bots(anon_api: APIClient) -> None:
    for value in ("all", "both", "", "BOTS"):
        response = anon_api.get(f"/api/leaderboards/beginner/times?players={value}")
        assert_error(response, 400, "invalid_players")


def test_the_bot_board_shows_the_bots_own_row(robo_api: APIClient) -> None:
    win(robo_api, start(robo_api, "beginner")["id"])
    assert board(robo_api, "beginner", "times", players="bots")["me"]["player"] == "robo"
    assert board(robo_api, "beginner", "times")["me"] is None


def test_patch_me_declares_a_bot_before_the_first_game(alice: User, alice_api: APIClient) -> None:
    # An untapped game was never played: it does not stop the change.
    alice_api.post("/api/games", {"level": "beginner"}, format="json")
    response = alice_api.patch("/api/me", {"kind": "bot"}, format="json")
    assert response.status_code == 200
    assert response.json()["kind"] == "bot"
    alice.refresh_from_db()
    assert alice.kind == "bot"
    back = alice_api.patch("/api/me", {"kind": "human"}, format="json")
    assert back.status_code == 200 and back.json()["kind"] == "human"


def test_patch_me_is_refused_once_the_account_has_played(alice: User, alice_api: APIClient) -> None:
    start(alice_api, "beginner")
    assert_error(
        alice_api.patch("/api/me", {"kind": "bot"}, format="json"), 409, "account_has_games"
    )
    alice.refresh_from_db()
    assert alice.kind == "human"
    # Asking for the kind it already has changes nothing and is fine.
    assert alice_api.patch("/api/me", {"kind": "human"}, format="json").status_code == 200


def test_patch_me_refuses_bad_input_and_anonymous(
    alice_api: APIClient, anon_api: APIClient
) -> None:
    for body in ({"kind": "guest"}, {"kind": "robot"}, {"kind": 1}, {"kind": None}):
        assert_error(alice_api.patch("/api/me", body, format="json"), 400, "invalid")
    assert_error(
        anon_api.patch("/api/me", {"kind": "bot"}, format="json"), 401, "not_authenticated"
    )


def test_a_bot_is_marked_on_its_profile_and_in_the_lobby_shape(robo: User) -> None:
    from games.play.models import Game
    from games.play.presenters import lobby_game_dict

    api = client_for(robo)
    game = start(api, "beginner")
    assert api.get("/api/me").json()["kind"] == "bot"
    lobby = lobby_game_dict(Game.objects.get(pk=game["id"]), player=robo)
    assert lobby["player_kind"] == "bot"


def test_a_bot_may_not_pause_its_way_either(robo_api: APIClient, anon_api: APIClient) -> None:
    game = start(robo_api, "beginner")
    post(robo_api, game["id"], "pause")
    post(robo_api, game["id"], "resume")
    final = win(robo_api, game["id"])
    assert final["unranked_reason"] == "paused"
    assert players_on(board(anon_api, "beginner", "times", players="bots")) == []
