"""Open sockets per account and per address are capped.

Over a cap the socket gets one error (429 too_many_sockets) and close 4429. With REDIS_URL the
count lives in Redis (one sorted set per account and per address), so these tests exercise
the Redis path when it is set and the process-local one otherwise; the Redis-only tests say
so when they are skipped.
"""

from __future__ import annotations

import asyncio
import os
import time

import pytest
from django.conf import settings

from tests.support.personas import SOCKET_TESTS
from tests.support.sockets import game_path
from tests.support.sockets import socket as ws

pytestmark = SOCKET_TESTS
needs_redis = pytest.mark.skipif(
    not os.environ.get("REDIS_URL"), reason="the shared count lives in Redis (REDIS_URL unset)"
)


async def accepted(comm) -> bool:
    ok, _ = await comm.connect(timeout=3)
    assert ok, "every refusal here is an accepted socket that says why"
    first = await comm.receive_json_from(timeout=3)
    if first["type"] == "error":
        assert first["error"]["code"] == "too_many_sockets", first
        assert await comm.receive_output(timeout=3) == {"type": "websocket.close", "code": 4429}
        return False
    return True


@pytest.fixture
def caps(settings):
    def set_caps(*, user: int = 20, address: int = 50, proxies: int = 0) -> None:
        settings.WS_MAX_SOCKETS_PER_USER = user
        settings.WS_MAX_SOCKETS_PER_ADDRESS = address
        settings.TRUSTED_PROXIES = proxies

    return set_caps


def test_the_defaults_are_sane():
    assert settings.WS_MAX_SOCKETS_PER_USER == 20
    assert settings.WS_MAX_SOCKETS_PER_ADDRESS == 50


async def test_an_account_over_its_cap_is_refused_4429_and_a_closed_socket_frees_its_slot(
    alice, alice_token, new_game, caps
):
    caps(user=2)
    game = await new_game(alice)
    first, second = ws(game_path(game), token=alice_token), ws("/ws/live", token=alice_token)
    assert await accepted(first) and await accepted(second)
    third = ws(game_path(game), token=alice_token)
    ok, _ = await third.connect(timeout=3)
    assert ok
    error = await third.receive_json_from(timeout=3)
    assert error["type"] == "error"
    assert error["error"] == {
        "code": "too_many_sockets",
        "message": "Too many open sockets for this user (at most 2).",
        "details": {"limit": 2, "per": "user"},
    }
    assert await third.receive_output(timeout=3) == {"type": "websocket.close", "code": 4429}
    await third.disconnect()
    await first.disconnect()
    await asyncio.sleep(0)  # let the consumer's finally release the slot
    again = ws(game_path(game), token=alice_token)
    assert await accepted(again)
    for comm in (second, again):
        await comm.disconnect()


async def test_the_cap_counts_sessions_and_tokens_of_one_account_together(
    alice, alice_token, session_cookie, new_game, caps
):
    caps(user=1)
    game = await new_game(alice)
    by_token = ws(game_path(game), token=alice_token)
    assert await accepted(by_token)
    cookie = await session_cookie(alice)
    by_session = ws(game_path(game), origin="http://testserver", cookie=cookie)
    assert not await accepted(by_session)
    await by_token.disconnect()


async def test_anonymous_sockets_are_capped_per_address_and_other_addresses_are_not_affected(
    alice, new_game, caps
):
    caps(address=2)
    game = await new_game(alice)
    here = [ws(game_path(game), client=("203.0.113.7", 40000 + i)) for i in range(3)]
    assert [await accepted(c) for c in here] == [True, True, False]
    elsewhere = ws(game_path(game), client=("203.0.113.8", 40000))
    assert await accepted(elsewhere)
    for comm in [*here[:2], elsewhere]:
        await comm.disconnect()


async def test_x_forwarded_for_is_ignored_unless_trusted_proxies_says_so(alice, new_game, caps):
    caps(address=1)
    game = await new_game(alice)
    peer = ("198.51.100.1", 50000)
    first = ws(game_path(game), client=peer, headers=[("X-Forwarded-For", "192.0.2.1")])
    spoofed = ws(game_path(game), client=peer, headers=[("X-Forwarded-For", "192.0.2.2")])
    assert await accepted(first)
    assert not await accepted(spoofed)  # a different XFF is not a different address
    await first.disconnect()


async def test_behind_one_trusted_proxy_the_address_is_the_last_forwarded_hop(
    alice, new_game, caps
):
    caps(address=1, proxies=1)
    game = await new_game(alice)
    proxy = ("10.0.0.2", 50000)
    # What the client wrote (a forged first hop) is ignored; what our proxy saw is counted.
    one = ws(game_path(game), client=proxy, headers=[("X-Forwarded-For", "1.1.1.1, 192.0.2.1")])
    two = ws(game_path(game), client=proxy, headers=[("X-Forwarded-For", "1.1.1.1, 192.0.2.2")])
    same = ws(game_path(game), client=proxy, headers=[("X-Forwarded-For", "9.9.9.9, 192.0.2.1")])
    assert await accepted(one) and await accepted(two)
    assert not await accepted(same)
    for comm in (one, two):
        await comm.disconnect()


def test_ipv6_addresses_count_per_64_and_mapped_ipv4_as_ipv4(settings):
    from games.live.guard import client_address

    settings.TRUSTED_PROXIES = 0
    a = client_address({"client": ("2001:db8:1:2::1", 1)})
    b = client_address({"client": ("2001:db8:1:2:ffff::9", 1)})
    c = client_address({"client": ("2001:db8:1:3::1", 1)})
    assert a == b == "2001:db8:1:2::/64" and c != a
    assert client_address({"client": ("::ffff:192.0.2.1", 1)}) == "192.0.2.1"
    assert client_address({}) is None


@needs_redis
async def test_the_count_is_shared_through_redis_across_processes(
    alice, alice_token, new_game, caps
):
    """Two sockets alice holds on *another* server process are members of the same Redis
    set: here, with a cap of 2, she gets no third."""
    import redis.asyncio as aioredis

    from games.live.guard import slots

    caps(user=2)
    game = await new_game(alice)
    key = f"{slots._prefix()}user:{alice.pk}"
    client = aioredis.from_url(settings.REDIS_URL)
    try:
        await client.zadd(
            key, {"other-process-1": time.time() + 60, "other-process-2": time.time() + 60}
        )
        assert not await accepted(ws(game_path(game), token=alice_token))
        await client.zrem(key, "other-process-1")
        mine = ws(game_path(game), token=alice_token)
        assert await accepted(mine)
        assert await client.zcard(key) == 2
        await mine.disconnect()
        await asyncio.sleep(0)
        assert await client.zrange(key, 0, -1) == [b"other-process-2"]
    finally:
        await client.delete(key)
        await client.aclose()


@needs_redis
async def test_the_slots_of_a_crashed_process_expire_instead_of_leaking(
    alice, alice_token, new_game, caps
):
    """A process that died mid-socket never removes its members; their expiry passes and
    they stop counting, while a live socket's heartbeat keeps its own slot."""
    import redis.asyncio as aioredis

    from games.live.guard import SLOT_TTL_SECONDS, slots

    caps(user=1)
    game = await new_game(alice)
    key = f"{slots._prefix()}user:{alice.pk}"
    client = aioredis.from_url(settings.REDIS_URL)
    try:
        await client.zadd(key, {"crashed-process": time.time() - 1})  # its expiry has passed
        mine = ws(game_path(game), token=alice_token)
        assert await accepted(mine)
        assert await client.zrange(key, 0, -1) != [b"crashed-process"]
        assert await client.zscore(key, "crashed-process") is None
        # A heartbeat moves this socket's expiry forward (simulate a stale score first).
        [(member, _)] = await client.zrange(key, 0, -1, withscores=True)
        await client.zadd(key, {member: time.time() + 1})
        await slots.refresh()
        assert await client.zscore(key, member) > time.time() + SLOT_TTL_SECONDS - 10
        assert 0 < await client.ttl(key) <= SLOT_TTL_SECONDS
        await mine.disconnect()
    finally:
        await client.delete(key)
        await client.aclose()


async def test_with_redis_unreachable_the_cap_still_holds_in_this_process(
    alice, alice_token, new_game, caps, settings
):
    """Nothing listens on port 1: the shared count is out of reach, the handshake neither
    hangs nor fails open; the socket is counted in this process."""
    caps(user=1)
    settings.REDIS_URL = "redis://127.0.0.1:1/0"
    game = await new_game(alice)
    first = ws(game_path(game), token=alice_token)
    assert await accepted(first)
    assert not await accepted(ws(game_path(game), token=alice_token))
    await first.disconnect()
    again = ws(game_path(game), token=alice_token)
    assert await accepted(again)
    await again.disconnect()
