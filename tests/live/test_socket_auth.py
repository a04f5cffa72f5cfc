"""Who may connect and who may move (games.live.auth): alice plays with a token or her session,
bob watches, a foreign page is refused, and a bot with only a token plays a whole game."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async

from accounts.models import User
from accounts.services import token_issue
from tests.support.personas import PASSWORD, SOCKET_TESTS
from tests.support.sockets import (
    SITE_ORIGIN,
    connected,
    game_path,
    leaks,
    next_of,
    play_to_the_end,
    socket,
)

pytestmark = SOCKET_TESTS


async def first_move_is_accepted(comm) -> None:
    state = await connected(comm)
    assert state["type"] == "state"
    await comm.send_json_to({"action": "reveal", "x": 4, "y": 4})
    move = await next_of(comm, "move")
    assert move["seq"] == 1
    await comm.disconnect()


async def test_alice_plays_with_her_token_in_the_header(alice, alice_token, new_game):
    game = await new_game(alice)
    await first_move_is_accepted(socket(game_path(game), token=alice_token))


async def test_alice_plays_with_her_token_in_the_query(alice, alice_token, new_game):
    game = await new_game(alice)
    await first_move_is_accepted(socket(game_path(game), token_query=alice_token))


async def test_alice_plays_with_her_session_cookie_from_the_site(alice, session_cookie, new_game):
    game = await new_game(alice)
    cookie = await session_cookie(alice)
    await first_move_is_accepted(socket(game_path(game), origin=SITE_ORIGIN, cookie=cookie))


async def test_a_token_needs_no_origin_and_ignores_a_foreign_one(alice, alice_token, new_game):
    game = await new_game(alice)
    comm = socket(game_path(game), token=alice_token, origin="https://elsewhere.example")
    await first_move_is_accepted(comm)


async def test_a_session_cookie_without_origin_is_only_an_anonymous_watcher(
    alice, session_cookie, new_game
):
    game = await new_game(alice)
    comm = socket(game_path(game), cookie=await session_cookie(alice))
    assert (await connected(comm))["type"] == "state"
    await comm.send_json_to({"action": "reveal", "x": 4, "y": 4})
    assert (await next_of(comm, "error"))["error"]["code"] == "not_authenticated"
    await comm.disconnect()


@pytest.mark.parametrize(
    "origin",
    ["https://evil.example", "null", "http://testserver.evil.example", "file://", "testserver"],
)
async def test_a_page_of_another_site_is_refused_at_the_handshake(
    alice, session_cookie, new_game, origin
):
    game = await new_game(alice)
    comm = socket(game_path(game), origin=origin, cookie=await session_cookie(alice))
    accepted, code = await comm.connect(timeout=3)
    assert not accepted
    assert code == 4403


async def test_a_page_of_another_site_cannot_even_watch_or_follow_the_lobby(db):
    comm = socket("/ws/live", origin="https://evil.example")
    accepted, _ = await comm.connect(timeout=3)
    assert not accepted


@pytest.mark.parametrize("where", ["header", "query"])
async def test_an_unknown_token_is_told_why_and_closed_4401(alice, new_game, where):
    game = await new_game(alice)
    key = "not-a-real-token"
    comm = (
        socket(game_path(game), token=key)
        if where == "header"
        else socket(game_path(game), token_query=key)
    )
    error = await connected(comm)
    assert error["type"] == "error"
    assert error["error"]["code"] == "authentication_failed"
    assert await comm.receive_output(timeout=3) == {"type": "websocket.close", "code": 4401}


async def test_the_token_of_a_deactivated_player_is_refused(alice, alice_token, new_game):
    game = await new_game(alice)
    alice.is_active = False
    await database_sync_to_async(alice.save)()
    error = await connected(socket(game_path(game), token=alice_token))
    assert error["error"]["code"] == "authentication_failed"


async def test_bob_signed_in_with_his_session_watches_but_cannot_move(
    alice, bob, session_cookie, new_game
):
    game = await new_game(alice)
    comm = socket(game_path(game), origin=SITE_ORIGIN, cookie=await session_cookie(bob))
    assert (await connected(comm))["type"] == "state"
    await comm.send_json_to({"action": "reveal", "x": 4, "y": 4})
    assert (await next_of(comm, "error"))["error"]["code"] == "not_your_game"
    await comm.disconnect()


async def test_a_bot_with_only_an_api_token_plays_a_whole_game_over_the_socket(new_game, db):
    bot = await database_sync_to_async(User.objects.create_user)(
        username="robot", password=PASSWORD
    )
    _, key = await database_sync_to_async(token_issue)(user=bot)
    game = await new_game(bot, "intermediate")
    comm = socket(game_path(game), token_query=key)
    assert (await connected(comm))["seq"] == 0
    played = await play_to_the_end(comm, game)
    assert played[-1]["type"] == "ended"
    assert played[-1]["game"]["state"] == "won"
    assert [problem for m in played for problem in leaks(m)] == []
    await comm.disconnect()
