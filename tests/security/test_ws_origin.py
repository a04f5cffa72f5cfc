"""A session socket's Origin must be this site: scheme, host and port.

The check used to compare the host only, so a page on another port or scheme of the same
host (another service, a forgotten dev server) could open the player's socket with their
cookie (seen in Chromium: a page on another port resigned the victim's game). Allowed now:
the handshake's own origin (Host header, one of ALLOWED_HOSTS, with ws <-> http and
wss <-> https) and exactly the entries of CSRF_TRUSTED_ORIGINS.
"""

from __future__ import annotations

import pytest

from tests.support.personas import SOCKET_TESTS
from tests.support.sockets import game_path
from tests.support.sockets import socket as ws

pytestmark = SOCKET_TESTS


async def handshake(comm) -> tuple[bool, int | None]:
    accepted, code = await comm.connect(timeout=3)
    return accepted, None if accepted else code


async def player_can_resign(comm) -> None:
    state = await comm.receive_json_from(timeout=3)
    assert state["type"] == "state"
    await comm.send_json_to({"action": "reveal", "x": 4, "y": 4})
    assert (await comm.receive_json_from(timeout=3))["type"] == "move"
    await comm.disconnect()


@pytest.mark.parametrize(
    ("origin", "host", "scheme"),
    [
        ("http://testserver:8080", "testserver", None),  # same host, another port
        ("http://testserver:8000", "testserver:8001", None),
        ("https://testserver", "testserver", None),  # same host, another scheme
        ("http://testserver", "testserver", "wss"),  # a plain page on a TLS socket
        ("https://testserver:443", "testserver", "ws"),
        ("ws://testserver", "testserver", None),  # not a page's origin
        ("http://user@testserver", "testserver", None),  # user info: never a browser's
        ("http://evil.example", "evil.example", None),  # DNS rebinding: Host not ours
    ],
)
async def test_another_port_or_scheme_of_the_same_host_is_refused(
    alice, session_cookie, new_game, origin, host, scheme
):
    game = await new_game(alice)
    comm = ws(
        game_path(game), origin=origin, host=host, scheme=scheme, cookie=await session_cookie(alice)
    )
    assert await handshake(comm) == (False, 4403)


@pytest.mark.parametrize(
    ("origin", "host", "scheme"),
    [
        ("http://testserver", "testserver", None),  # no scope scheme: ws (the ASGI default)
        ("http://testserver", "testserver", "ws"),
        ("http://TestServer:80", "testserver", "ws"),  # default port, case
        ("http://localhost:8000", "localhost:8000", "ws"),
        ("https://testserver", "testserver", "wss"),
        ("https://testserver:8443", "testserver:8443", "wss"),
    ],
)
async def test_the_exact_origin_of_the_site_is_accepted(
    alice, session_cookie, new_game, origin, host, scheme
):
    game = await new_game(alice)
    comm = ws(
        game_path(game), origin=origin, host=host, scheme=scheme, cookie=await session_cookie(alice)
    )
    assert await handshake(comm) == (True, None)
    await player_can_resign(comm)


async def test_csrf_trusted_origins_are_matched_exactly(alice, session_cookie, new_game, settings):
    settings.CSRF_TRUSTED_ORIGINS = ["https://app.example", "https://*.wild.example"]
    game = await new_game(alice)
    cookie = await session_cookie(alice)
    outcomes = {}
    for origin in [
        "https://app.example",
        "https://app.example:443",
        "https://app.example:8443",
        "http://app.example",
        "https://sub.wild.example",
    ]:
        comm = ws(game_path(game), origin=origin, cookie=cookie)
        outcomes[origin] = await handshake(comm)
        await comm.disconnect()
    assert outcomes == {
        "https://app.example": (True, None),
        "https://app.example:443": (True, None),
        "https://app.example:8443": (False, 4403),
        "http://app.example": (False, 4403),
        "https://sub.wild.example": (False, 4403),  # wildcards are not honoured for sockets
    }


async def test_behind_a_trusted_proxy_x_forwarded_proto_gives_the_scheme(
    alice, session_cookie, new_game, settings
):
    game = await new_game(alice)
    cookie = await session_cookie(alice)
    tls = [("X-Forwarded-Proto", "https")]
    settings.TRUSTED_PROXIES = 0
    ignored = ws(game_path(game), origin="https://testserver", cookie=cookie, headers=tls)
    assert await handshake(ignored) == (False, 4403)
    settings.TRUSTED_PROXIES = 1
    believed = ws(game_path(game), origin="https://testserver", cookie=cookie, headers=tls)
    assert await handshake(believed) == (True, None)
    await player_can_resign(believed)
    plain = ws(game_path(game), origin="http://testserver", cookie=cookie, headers=tls)
    assert await handshake(plain) == (False, 4403)


def test_origins_are_compared_with_an_explicit_port():
    from games.live.auth import parse_origin

    assert parse_origin("http://a.example") == ("http", "a.example", 80)
    assert parse_origin("HTTPS://A.example:443") == ("https", "a.example", 443)
    assert parse_origin("http://[::1]:8000") == ("http", "::1", 8000)
    for bad in ["null", "file://", "testserver", "http://a.example:99999", "http://a/b", ""]:
        assert parse_origin(bad) is None, bad
