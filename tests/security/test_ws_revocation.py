"""Revoking a token or signing out closes the sockets it opened.

API.md, Fine points: "Revoking a token (or signing out) closes every socket it opened."
The revocation kicks the credential's channel-layer group after the commit (close 4401 after
one 401 authentication_failed error); each move also re-checks the credential in its
database thread, so a move sent before the close is seen is refused even if the kick is
late or lost (Redis Pub/Sub is fire-and-forget).
"""

from __future__ import annotations

from typing import Any

from channels.db import database_sync_to_async
from django.contrib.sessions.models import Session
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import ApiToken
from accounts.services import token_issue
from games.play.models import Game
from tests.support.personas import SOCKET_TESTS
from tests.support.sockets import SITE_ORIGIN, game_path, until_closed
from tests.support.sockets import socket as ws

pytestmark = SOCKET_TESTS
MOVE = {"action": "reveal", "x": 4, "y": 4}


async def opened(comm) -> dict[str, Any]:
    ok, _ = await comm.connect(timeout=3)
    assert ok
    state = await comm.receive_json_from(timeout=3)
    assert state["type"] == "state", state
    return state


async def stored_seq(game) -> int:
    return (await database_sync_to_async(Game.objects.get)(pk=game.id)).seq


def rest(method: str, path: str, *, token: str | None = None, client: Any = None) -> int:
    api = client or APIClient()
    if token is not None:
        api.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return getattr(api, method)(path).status_code


def assert_kicked(frames: list[dict[str, Any]], code: int | None) -> None:
    assert code == 4401
    assert all(f["type"] != "move" for f in frames), frames
    assert frames and frames[-1]["type"] == "error"
    assert frames[-1]["error"]["code"] == "authentication_failed"


async def assert_move_kicked(player: Any, game: Any) -> None:
    """A move sent on a socket whose credential is gone closes it and is not applied."""
    await player.send_json_to(MOVE)
    frames, code = await until_closed(player)
    assert_kicked(frames, code)
    assert await stored_seq(game) == 0


async def test_revoking_the_token_through_rest_closes_its_socket_and_refuses_the_next_move(
    alice, alice_token, new_game
):
    game = await new_game(alice)
    player = ws(game_path(game), token=alice_token)
    await opened(player)
    assert await database_sync_to_async(rest)("delete", "/api/auth/token", token=alice_token) == 204
    await player.send_json_to(MOVE)  # sent before the close is seen
    frames, code = await until_closed(player)
    assert_kicked(frames, code)
    assert await stored_seq(game) == 0


async def test_a_query_string_token_socket_is_closed_as_well(alice, alice_token, new_game):
    game = await new_game(alice)
    player = ws(game_path(game), token_query=alice_token)
    lobby = ws("/ws/live", token=alice_token)
    await opened(player)
    ok, _ = await lobby.connect(timeout=3)
    assert ok and (await lobby.receive_json_from(timeout=3))["type"] == "live"
    assert await database_sync_to_async(rest)("delete", "/api/auth/token", token=alice_token) == 204
    for comm in (player, lobby):
        frames, code = await until_closed(comm)
        assert_kicked(frames, code)


async def test_deleting_a_token_by_id_closes_only_that_tokens_sockets(alice, alice_token, new_game):
    game = await new_game(alice)
    token, other_key = await database_sync_to_async(token_issue)(user=alice, name="laptop")
    doomed = ws(game_path(game), token=other_key)
    kept = ws(game_path(game), token=alice_token)
    await opened(doomed)
    await opened(kept)
    status = await database_sync_to_async(rest)(
        "delete", f"/api/tokens/{token.pk}", token=alice_token
    )
    assert status == 204
    frames, code = await until_closed(doomed)
    assert_kicked(frames, code)
    await kept.send_json_to(MOVE)
    move = await kept.receive_json_from(timeout=3)
    assert (move["type"], move["seq"]) == ("move", 1)
    await kept.disconnect()


async def test_a_lost_kick_still_leaves_the_revoked_socket_unable_to_move(
    alice, alice_token, new_game
):
    """The token row goes without any kick being sent (as if Redis dropped it): the
    per-move check refuses the move and closes the socket."""
    game = await new_game(alice)
    player = ws(game_path(game), token=alice_token)
    await opened(player)
    await database_sync_to_async(lambda: ApiToken.objects.filter(user=alice).delete())()
    refused = ws(game_path(game), token=alice_token)  # a new socket is refused outright
    ok, _ = await refused.connect(timeout=3)
    assert ok
    assert (await refused.receive_json_from(timeout=3))["error"]["code"] == "authentication_failed"
    await refused.disconnect()
    await assert_move_kicked(player, game)


async def test_signing_out_closes_that_sessions_sockets_and_no_other(alice, new_game):
    game = await new_game(alice)

    def sign_in() -> Client:
        browser = Client()
        browser.force_login(alice)
        return browser

    leaving = await database_sync_to_async(sign_in)()
    staying = await database_sync_to_async(sign_in)()
    sockets = {}
    for name, browser in (("leaving", leaving), ("staying", staying)):
        cookie = f"sessionid={browser.cookies['sessionid'].value}"
        sockets[name] = ws(game_path(game), origin=SITE_ORIGIN, cookie=cookie)
        await opened(sockets[name])
    assert await database_sync_to_async(rest)("delete", "/api/auth/session", client=leaving) == 204
    await assert_move_kicked(sockets["leaving"], game)
    await sockets["staying"].send_json_to(MOVE)
    move = await sockets["staying"].receive_json_from(timeout=3)
    assert (move["type"], move["seq"]) == ("move", 1)
    await sockets["staying"].disconnect()


async def test_a_session_that_ended_without_a_kick_cannot_move(alice, session_cookie, new_game):
    game = await new_game(alice)
    cookie = await session_cookie(alice)
    player = ws(game_path(game), origin=SITE_ORIGIN, cookie=cookie)
    await opened(player)
    await database_sync_to_async(lambda: Session.objects.all().delete())()
    await assert_move_kicked(player, game)


async def test_a_password_change_elsewhere_ends_the_sessions_socket(
    alice, session_cookie, new_game
):
    """As over HTTP (django.contrib.auth.get_user): a session whose auth hash no longer
    matches the password is signed out."""
    game = await new_game(alice)
    player = ws(game_path(game), origin=SITE_ORIGIN, cookie=await session_cookie(alice))
    await opened(player)

    def change_password() -> None:
        alice.set_password("another correct horse")
        alice.save()

    await database_sync_to_async(change_password)()
    await assert_move_kicked(player, game)


async def test_a_session_group_name_never_carries_the_session_key(alice, session_cookie):
    from accounts.socket_credentials import session_group

    cookie = await session_cookie(alice)
    key = cookie.split("=", 1)[1]
    group = session_group(key)
    assert key not in group and group.startswith("session.") and len(group) < 100


async def test_after_the_kick_nothing_more_is_sent_on_the_closed_socket(
    alice, alice_token, new_game
):
    """Events still queued for a closed socket are dropped: a send after the close would be
    an ASGI error in a real server (and a traceback in its log)."""
    from games.play import services

    game = await new_game(alice)
    player = ws(game_path(game), token=alice_token)
    await opened(player)
    assert await database_sync_to_async(rest)("delete", "/api/auth/token", token=alice_token) == 204
    frames, code = await until_closed(player)
    assert_kicked(frames, code)
    await database_sync_to_async(services.game_move)(
        game_id=game.id, player=alice, action="reveal", x=4, y=4
    )
    assert await player.receive_nothing(timeout=0.2)
