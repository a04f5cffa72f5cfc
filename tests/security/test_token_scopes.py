"""Token scopes (API.md, Token scopes and event streams; accounts.scopes): the authorization
matrix's scope dimension. Every REST row of tests/security/test_authorization_matrix.py says
here which scopes it accepts (written out, not read from accounts.scopes): the player's token
without them is 403 `missing_scope` and changes nothing; with one of them the player's answer
is the matrix's. Every URL of the API is either in accounts.scopes.REQUIRED or named public
below. Socket moves need game:play. Answers to tokens carry X-OAuth-Scopes."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.test import APIClient

from accounts import scopes
from accounts.models import KEY_PREFIX, ApiToken, User
from accounts.services import token_issue
from games.play.models import Game
from tests.security.test_authorization_matrix import REST, _world
from tests.support.personas import PASSWORD
from tests.support.sockets import game_path, socket

G, R, AR, AW = "game:play", "race:play", "account:read", "account:write"

# Each matrix row: the scopes that let a token do it (any one), or () for none needed.
NEEDS: dict[str, tuple[str, ...]] = {
    "GET game": (),
    "GET moves": (),
    "GET replay.evf": (),
    "GET probabilities": (),
    "GET games": (),
    "reveal": (G,),
    "flag": (G,),
    "chord": (G,),
    "pause": (G,),
    "resume": (G,),
    "resign": (G,),
    "create game": (G,),
    "GET me": (AR, AW),
    "PATCH me kind=bot": (AW,),
    "GET settings": (AR, AW),
    "PATCH settings": (AW,),
    "GET profile": (),
    "GET tokens": (AR, AW),
    "create token": (AW,),
    "DELETE alice's token by id": (AW,),
    "DELETE token used": (),  # a token may always revoke itself
    "GET session": (),
    "leaderboard": (),
    "bot leaderboard": (),
    "leaderboard around=me": (),
    "register": (),
    "become a guest": (),
    "token from credentials": (),
    "set email": (AW,),
    "verify email": (),
    "change password": (AW,),
    "change password, wrong current": (AW,),
    "reset request": (),
    "reset confirm": (),
    "GET sessions": (AR, AW),
    "DELETE alice's session": (AW,),
    "start TOTP": (AW,),
    "confirm TOTP": (AW,),
    "stop TOTP": (AW,),
    "close": (AW,),
    "close, wrong password": (AW,),
    "export": (AW,),
    "games export": (),
    "start the daily": (G,),
    "practise a past daily": (G,),
    "GET the daily": (),
    "daily board": (),
    "daily calendar": (),
}

# URLs that need no scope: public reads, sign-up and sign-in, links from mails, the session.
PUBLIC = {
    "api-game", "api-moves", "api-game-replay-evf", "api-user", "api-user-games-export", "api-race", "api-leaderboard",
    "api-register", "api-token", "api-guest", "api-session", "api-email-verify",
    "api-password-reset", "api-password-reset-confirm", "api-tokens-test", "api-schema",
    "api-docs", "api-arena", "api-arena-standings", "api-daily", "api-leaderboard-daily",
    "api-user-daily", "api-puzzle", "api-puzzle-daily", "api-leaderboard-puzzles",
    "api-leaderboard-puzzles-streak", "api-leaderboard-puzzles-storm", "api-user-luck",
    "api-user-insights", "api-game-probabilities",
}  # fmt: skip


def test_every_matrix_row_says_which_scopes_it_accepts() -> None:
    assert set(NEEDS) == {what for what, _, _ in REST}
    # The model's default (every scope) is the scopes module's list, in its order.
    assert ",".join(scopes.ALL) == scopes.STORED_ALL


def _names(patterns: list[Any]) -> set[str]:
    found: set[str] = set()
    for p in patterns:
        if isinstance(p, URLResolver):
            found |= _names(p.url_patterns)
        elif isinstance(p, URLPattern) and p.name and p.name.startswith("api-"):
            found.add(p.name)
    return found


def test_every_api_url_is_scoped_or_public() -> None:
    names = _names(get_resolver().url_patterns)
    unclassified = names - set(scopes.REQUIRED) - PUBLIC
    assert not unclassified, (
        f"say which scopes these need (accounts.scopes.REQUIRED): {unclassified}"
    )
    assert not set(scopes.REQUIRED) & PUBLIC


CELLS = [
    pytest.param(what, call, expected[0], kind, id=f"{what}-{kind}")
    for what, call, expected in REST
    for kind in ("no scope", "accepted", "all others")
]


@pytest.mark.django_db
@pytest.mark.parametrize(("what", "call", "player_status", "kind"), CELLS)
def test_rest_by_scope(what: str, call: Any, player_status: int, kind: str) -> None:
    world = _world()
    accepted = NEEDS[what]
    given = {"no scope": [], "accepted": list(accepted[:1]), "all others": [
        s for s in scopes.ALL if s not in accepted
    ]}[kind]  # fmt: skip
    _, key = token_issue(user=world.users["player"], name="scoped", scopes=scopes.stored(given))
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    before = Game.objects.get(pk=world.game.id).seq
    response = call(api, world)
    refused = bool(accepted) and not set(given) & set(accepted)
    if refused:
        assert response.status_code == 403, response.content
        assert response.json()["error"]["code"] == "missing_scope"
        assert response["X-Accepted-OAuth-Scopes"] == ", ".join(accepted)
        assert Game.objects.get(pk=world.game.id).seq == before
    else:
        assert response.status_code == player_status, response.content
    if accepted and response.status_code != 204:  # an endpoint that signs the token in
        assert response["X-OAuth-Scopes"] == ", ".join(s for s in scopes.ALL if s in given)


@pytest.mark.django_db
def test_tokens_are_prefixed_scoped_at_creation_and_listed(alice: User) -> None:
    api = APIClient()
    made = api.post(
        "/api/auth/token",
        {"username": "alice", "password": PASSWORD, "scopes": ["game:play", "game:play"]},
        format="json",
    )
    assert made.status_code == 200
    key = made.json()["token"]
    assert key.startswith(KEY_PREFIX)
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert api.get("/api/tokens").status_code == 403  # game:play only
    full = token_issue(user=alice)[1]  # as every token made before scopes: all four
    api.credentials(HTTP_AUTHORIZATION=f"Token {full}")
    rows = api.get("/api/tokens").json()["results"]
    assert sorted(r["scopes"] for r in rows) == [["game:play"], list(scopes.ALL)]
    created = api.post("/api/tokens", {"name": "bot", "scopes": ["race:play"]}, format="json")
    assert created.status_code == 201 and created.json()["scopes"] == ["race:play"]
    for bad in (["admin"], "game:play", [1]):
        refused = api.post("/api/tokens", {"name": "x", "scopes": bad}, format="json")
        assert refused.status_code == 400, bad
    assert ApiToken.objects.filter(user=alice).count() == 3  # the refusals made none


@pytest.mark.django_db
def test_token_test_says_what_each_key_may_do(alice: User) -> None:
    _, key = token_issue(user=alice, scopes=scopes.stored([AR]))
    answer = APIClient().post("/api/tokens/test", {"tokens": [key, "dmn_nope"]}, format="json")
    assert answer.status_code == 200
    results = answer.json()["results"]
    assert results["dmn_nope"] is None
    assert results[key]["username"] == "alice" and results[key]["scopes"] == [AR]
    assert APIClient().post("/api/tokens/test", {"tokens": []}, format="json").status_code == 400


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_thread_connections")
async def test_a_socket_move_needs_game_play(alice: User) -> None:
    from channels.db import database_sync_to_async

    from games.play import services

    def setup() -> tuple[str, str]:
        game = services.game_create(player=alice, level="beginner")
        services.game_move(game_id=game.id, player=alice, action="reveal", x=4, y=4)
        return str(game.id), token_issue(user=alice, scopes=scopes.stored([AR]))[1]

    game_id, key = await database_sync_to_async(setup)()
    ws = socket(game_path(game_id), token=key)
    connected, _ = await ws.connect()
    assert connected
    try:
        state = await ws.receive_json_from()
        assert state["type"] == "state"
        await ws.send_json_to({"action": "flag", "x": 0, "y": 0, "client_move_id": "m1"})
        error = await ws.receive_json_from()
        assert error["type"] == "error" and error["status"] == 403
        assert error["error"]["code"] == "missing_scope" and error["client_move_id"] == "m1"
    finally:
        await ws.disconnect()
    seq = await database_sync_to_async(lambda: Game.objects.get(pk=game_id).seq)()
    assert seq == 1
