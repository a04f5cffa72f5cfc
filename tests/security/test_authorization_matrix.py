"""Who may do what: every REST endpoint and every socket action against five personas, each
cell's expected status written once in the tables below (docs/SECURITY.md, Authorization).

Personas: `player` owns the game under test (alice, a human who has played it); `other` is
another human (bob, no games); `anon` sends no credentials; `bot` is a declared bot account
(robo, no games); `staff` is a staff and superuser account (referee, no games). Staff have
no power over players' games through the public API: they act in the admin only.

Each cell runs on fresh data: a started Beginner game of alice's, with one API token per
persona (the REST calls authenticate with it, as a bot or a script does).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import ApiToken, SignedInSession, User
from accounts.services import token_issue
from demineur_site.api_errors import STATUS_BY_CODE
from games.play import services
from games.play.models import Game
from games.play.presenters import game_dict
from tests.support.personas import PASSWORD
from tests.support.sockets import TIMEOUT, game_path, socket

PERSONAS = ("player", "other", "anon", "bot", "staff")


@dataclass(frozen=True)
class World:
    users: dict[str, User]
    keys: dict[str, str]
    game: Game
    cell: tuple[int, int]  # a closed cell of the game
    opened: tuple[int, int]  # the first tap's cell (opened)
    alice_token_id: int


def _world() -> World:
    alice = User.objects.create_user(username="alice", password=PASSWORD)
    users = {
        "player": alice,
        "other": User.objects.create_user(username="bob", password=PASSWORD),
        "bot": User.objects.create_user(username="robo", password=PASSWORD, kind="bot"),
        "staff": User.objects.create_user(
            username="referee",
            password=PASSWORD,
            is_staff=True,
            is_superuser=True,
        ),
    }
    keys = {name: token_issue(user=user)[1] for name, user in users.items()}
    closed: list[tuple[int, int]] = []
    for _ in range(20):  # a first click may open a whole beginner board: then another game
        game = services.game_create(player=alice, level="beginner")
        services.game_move(game_id=game.id, player=alice, action="reveal", x=4, y=4)
        game.refresh_from_db()
        board = game_dict(game, player_name="alice")["board"]
        closed = [(x, y) for y, row in enumerate(board) for x, ch in enumerate(row) if ch == "#"]
        if closed:
            break
    assert closed, "twenty first clicks each opened the whole board"
    cell = closed[0]
    token_id = ApiToken.objects.filter(user=alice).values_list("pk", flat=True).first()
    assert token_id is not None
    return World(users, keys, game, cell, (4, 4), token_id)


def _client(world: World, persona: str) -> APIClient:
    client = APIClient()
    if persona != "anon":
        client.credentials(HTTP_AUTHORIZATION=f"Token {world.keys[persona]}")
    return client


Call = Callable[[APIClient, World], Any]


def _game(suffix: str, body: Callable[[World], dict[str, Any]] | None = None) -> Call:
    def call(api: APIClient, w: World) -> Any:
        return api.post(f"/api/games/{w.game.id}/{suffix}", body(w) if body else {}, format="json")

    return call


def _get(path: Callable[[World], str]) -> Call:
    return lambda api, w: api.get(path(w))


def _post(path: str, body: dict[str, Any]) -> Call:
    return lambda api, w: api.post(path, body, format="json")


# (what, call, expected status for player, other, anon, bot, staff)
REST: list[tuple[str, Call, tuple[int, int, int, int, int]]] = [
    ("GET game", _get(lambda w: f"/api/games/{w.game.id}"), (200, 200, 200, 200, 200)),
    ("GET moves", _get(lambda w: f"/api/games/{w.game.id}/moves"), (200, 200, 200, 200, 200)),
    # The world's game runs: its replay file is nobody's yet (tests/play/test_evf_export.py).
    (
        "GET replay.evf",
        _get(lambda w: f"/api/games/{w.game.id}/replay.evf"),
        (409, 409, 409, 409, 409),
    ),
    # Its probability overlay neither, to anyone (docs/ANALYSIS.md, The probability overlay).
    (
        "GET probabilities",
        _get(lambda w: f"/api/games/{w.game.id}/probabilities?step=0"),
        (409, 409, 409, 409, 409),
    ),
    ("GET games", _get(lambda w: "/api/games?state=playing"), (200, 200, 200, 200, 200)),
    (
        "reveal",
        _game("reveal", lambda w: {"x": w.cell[0], "y": w.cell[1]}),
        (200, 403, 401, 403, 403),
    ),
    ("flag", _game("flag", lambda w: {"x": w.cell[0], "y": w.cell[1]}), (200, 403, 401, 403, 403)),
    (
        "chord",
        _game("chord", lambda w: {"x": w.opened[0], "y": w.opened[1]}),
        (200, 403, 401, 403, 403),
    ),
    ("pause", _game("pause"), (200, 403, 401, 403, 403)),
    ("resume", _game("resume"), (200, 403, 401, 403, 403)),
    ("resign", _game("resign"), (200, 403, 401, 403, 403)),
    (
        "create game",
        _post("/api/games", {"level": "expert"}),
        (201, 201, 401, 201, 201),
    ),
    ("GET me", _get(lambda w: "/api/me"), (200, 200, 401, 200, 200)),
    (
        # alice has played: her kind is fixed. The others have no game yet.
        "PATCH me kind=bot",
        lambda api, w: api.patch("/api/me", {"kind": "bot"}, format="json"),
        (409, 200, 401, 200, 200),
    ),
    ("GET settings", _get(lambda w: "/api/me/settings"), (200, 200, 401, 200, 200)),
    (
        # Each persona changes only its own settings: the path names no one.
        "PATCH settings",
        lambda api, w: api.patch("/api/me/settings", {"theme": "dark"}, format="json"),
        (200, 200, 401, 200, 200),
    ),
    ("GET profile", _get(lambda w: "/api/users/alice"), (200, 200, 200, 200, 200)),
    ("GET tokens", _get(lambda w: "/api/tokens"), (200, 200, 401, 200, 200)),
    (
        "create token",
        _post("/api/tokens", {"name": "laptop"}),
        (201, 201, 401, 201, 201),
    ),
    (
        # Someone else's token id is "no such token" (404): ids are not secret, tokens are.
        "DELETE alice's token by id",
        lambda api, w: api.delete(f"/api/tokens/{w.alice_token_id}"),
        (204, 404, 401, 404, 404),
    ),
    ("DELETE token used", lambda api, w: api.delete("/api/auth/token"), (204, 204, 401, 204, 204)),
    ("GET session", _get(lambda w: "/api/auth/session"), (200, 200, 401, 200, 200)),
    (
        "leaderboard",
        _get(lambda w: "/api/leaderboards/beginner/times"),
        (200, 200, 200, 200, 200),
    ),
    (
        "bot leaderboard",
        _get(lambda w: "/api/leaderboards/beginner/times?players=bots"),
        (200, 200, 200, 200, 200),
    ),
    (
        "leaderboard around=me",
        _get(lambda w: "/api/leaderboards/beginner/speed?around=me"),
        (200, 200, 401, 200, 200),
    ),
    (
        "register",
        _post("/api/auth/register", {"username": "newcomer", "password": PASSWORD}),
        (201, 201, 201, 201, 201),
    ),
    (
        # docs/GUESTS.md: a visitor's browser session becomes a guest; a signed-in player
        # (here through a token) gets none.
        "become a guest",
        _post("/api/auth/guest", {}),
        (409, 409, 201, 409, 409),
    ),
    (
        "token from credentials",
        _post("/api/auth/token", {"username": "bob", "password": PASSWORD}),
        (200, 200, 200, 200, 200),
    ),
]


def _alice_session(w: World) -> int:
    """A browser session of alice's, as the sessions list shows it."""
    return SignedInSession.objects.create(user=w.users["player"], session_key="k" * 32).pk


# The account's lifecycle (API.md; docs/ACCOUNTS.md): each persona acts on its own account
# only; the paths name no one, but the session id names alice's.
# The daily challenge (API.md): anyone signed in may start today's; a past day's practice is
# refused while no past day was dealt (404), whoever asks; the day's overview and board are public.
REST += [
    ("start the daily", _post("/api/daily/beginner", {}), (201, 201, 401, 201, 201)),
    (
        "practise a past daily",
        _post("/api/daily/2001-01-01/beginner", {}),
        (404, 404, 401, 404, 404),
    ),
    ("GET the daily", _get(lambda w: "/api/daily"), (200,) * 5),
    ("daily board", _get(lambda w: "/api/leaderboards/beginner/daily"), (200,) * 5),
    ("daily calendar", _get(lambda w: "/api/users/alice/daily"), (200,) * 5),
]

REST += [
    ("set email", _post("/api/me/email", {"email": "x@example.org"}), (202, 202, 401, 202, 202)),
    ("verify email", _post("/api/auth/email/verify", {"token": "forged"}), (400,) * 5),
    (
        "change password",
        _post("/api/me/password", {"current_password": PASSWORD, "new_password": "a new phrase 1"}),
        (204, 204, 401, 204, 204),
    ),
    # A signed-in caller's wrong password is 403: 401 would tell it that it is signed out.
    (
        "change password, wrong current",
        _post("/api/me/password", {"current_password": "not it", "new_password": "a phrase 3"}),
        (403, 403, 401, 403, 403),
    ),
    ("reset request", _post("/api/auth/password-reset", {"email": "x@example.org"}), (202,) * 5),
    (
        "reset confirm",
        _post("/api/auth/password-reset/confirm", {"token": "1-x", "new_password": "a phrase 2"}),
        (400,) * 5,
    ),
    ("GET sessions", _get(lambda w: "/api/me/sessions"), (200, 200, 401, 200, 200)),
    (
        "DELETE alice's session",
        lambda api, w: api.delete(f"/api/me/sessions/{_alice_session(w)}"),
        (204, 404, 401, 404, 404),
    ),
    ("start TOTP", _post("/api/me/totp", {}), (201, 201, 401, 201, 201)),
    ("confirm TOTP", _post("/api/me/totp/confirm", {"code": "000000"}), (409, 409, 401, 409, 409)),
    (
        "stop TOTP",
        lambda api, w: api.delete("/api/me/totp", {"code": "000000"}, format="json"),
        (409, 409, 401, 409, 409),
    ),
    (
        "close",
        _post("/api/me/close", {"mode": "close", "password": PASSWORD}),
        (202, 202, 401, 202, 202),
    ),
    (
        "close, wrong password",
        _post("/api/me/close", {"mode": "close", "password": "not it"}),
        (403, 403, 401, 403, 403),
    ),
    ("export", _get(lambda w: "/api/me/export"), (200, 200, 401, 200, 200)),
    # public, as the games it holds are (ended ones only)
    ("games export", _get(lambda w: "/api/users/alice/games/export"), (200,) * 5),
]

REST_CELLS = [
    pytest.param(call, persona, expected[i], id=f"{what}-{persona}")
    for what, call, expected in REST
    for i, persona in enumerate(PERSONAS)
]


@pytest.mark.django_db
@pytest.mark.parametrize(("call", "persona", "status"), REST_CELLS)
def test_rest(call: Call, persona: str, status: int) -> None:
    world = _world()
    before = Game.objects.get(pk=world.game.id).seq
    response = call(_client(world, persona), world)
    assert response.status_code == status, response.content
    if status >= 400:
        body = response.json()
        assert set(body) == {"error"} and body["error"]["code"]
        # A refusal changes nothing of the game.
        assert Game.objects.get(pk=world.game.id).seq == before


# The staff view: the Django admin, signed in with a session. Anyone else is sent to the
# admin's own sign-in page.
ADMIN_PATHS = ["/admin/", "/admin/games/review/", "/admin/accounts/user/", "/admin/games/game/"]


@pytest.mark.django_db
@pytest.mark.parametrize("path", ADMIN_PATHS)
@pytest.mark.parametrize(
    ("persona", "status"),
    [("player", 302), ("other", 302), ("anon", 302), ("bot", 302), ("staff", 200)],
)
def test_admin(path: str, persona: str, status: int) -> None:
    world = _world()
    site = Client()
    if persona != "anon":
        site.force_login(world.users[persona])
    response = site.get(path)
    assert response.status_code == status
    if status == 302:
        assert response["Location"].startswith("/admin/login/")


# Socket actions on alice's game: the player's move is answered by the `move` event; anyone
# else's by a private error frame. (player, other, anon, bot, staff)
SOCKET: list[tuple[str, dict[str, Any], tuple[str | int, ...]]] = [
    ("reveal", {"action": "reveal", "x": 0, "y": 0}, ("move", 403, 401, 403, 403)),
    ("flag", {"action": "flag", "x": 0, "y": 0}, ("move", 403, 401, 403, 403)),
    ("chord", {"action": "chord", "x": 4, "y": 4}, ("move", 403, 401, 403, 403)),
    ("pause", {"action": "pause"}, ("paused", 403, 401, 403, 403)),
    ("resign", {"action": "resign"}, ("move", 403, 401, 403, 403)),
]
# A socket error frame names its code; the code has one status (games.errors, API.md).
SOCKET_STATUS = {**STATUS_BY_CODE, "not_authenticated": 401, "forbidden": 403}

SOCKET_CELLS = [
    pytest.param(message, persona, expected[i], id=f"ws-{what}-{persona}")
    for what, message, expected in SOCKET
    for i, persona in enumerate(PERSONAS)
]


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_thread_connections")
@pytest.mark.parametrize(("message", "persona", "expected"), SOCKET_CELLS)
async def test_socket(message: dict[str, Any], persona: str, expected: str | int) -> None:
    world = await database_sync_to_async(_world)()
    if message.get("x") == 0:
        message = {**message, "x": world.cell[0], "y": world.cell[1]}
    comm = socket(game_path(world.game), token=world.keys[persona] if persona != "anon" else None)
    ok, _ = await comm.connect(timeout=TIMEOUT)
    assert ok
    state = await comm.receive_json_from(timeout=TIMEOUT)
    assert state["type"] == "state"
    await comm.send_json_to(message)
    answer = await comm.receive_json_from(timeout=TIMEOUT)
    if isinstance(expected, int):
        assert answer["type"] == "error", answer
        assert SOCKET_STATUS.get(answer["error"]["code"]) == expected, answer
        seq = await database_sync_to_async(lambda: Game.objects.get(pk=world.game.id).seq)()
        assert seq == world.game.seq  # nothing was applied
    else:
        assert answer["type"] == expected, answer
    await comm.disconnect()
