"""Stream GETs that any page can make its visitor's browser send (games.live.streams,
games.live.guard; docs/SECURITY.md).

An `<img src=".../api/stream/game/{id}">` on any site sends a GET with neither cookie (the
session cookie is SameSite=Lax) nor Origin: an anonymous stream. Counted with the sockets of
the visitor's address, 49 of them locked the visitor's own game socket out. Now:

* a stream nobody signed in to counts in a per-address budget of its own (as large as
  WS_MAX_SOCKETS_PER_ADDRESS): such GETs can fill only that budget, never the sockets';
* a browser that says the request comes from a page of another site (Fetch Metadata:
  `Sec-Fetch-Site` cross-site or same-site, other than a top-level navigation) is refused 403
  before the socket stack, and takes no slot;
* every way API.md opens a stream still works.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.personas import SOCKET_TESTS
from tests.support.sockets import SITE_ORIGIN, connected, game_path
from tests.support.sockets import socket as ws
from tests.support.streams import StreamCall

pytestmark = SOCKET_TESTS
VISITOR = "203.0.113.40"  # the address of the victim's browser, and of the pages' GETs

IMG = [("Sec-Fetch-Site", "cross-site"), ("Sec-Fetch-Mode", "no-cors")]


def _stream(game: Any, port: int, **kwargs: Any) -> StreamCall:
    return StreamCall(f"/api/stream/game/{game.id}", client=(VISITOR, port), **kwargs)


async def _opens(comm: Any) -> bool:
    """Whether a socket opens (its `state`) rather than being refused by a cap."""
    first = await connected(comm)
    if first["type"] == "error":
        assert first["error"]["code"] == "too_many_sockets", first
        await comm.disconnect()
        return False
    assert first["type"] == "state", first
    return True


@pytest.fixture
def caps(settings: Any) -> Any:
    def set_caps(*, address: int) -> None:
        settings.WS_MAX_SOCKETS_PER_ADDRESS = address
        settings.WS_MAX_SOCKETS_PER_USER = 20
        settings.TRUSTED_PROXIES = 0

    return set_caps


async def test_cookie_less_origin_less_stream_gets_cannot_lock_the_visitors_socket_out(
    alice: Any, session_cookie: Any, alice_token: str, new_game: Any, caps: Any
) -> None:
    caps(address=2)
    game = await new_game(alice)
    # What two <img> on another site's page make the visitor's browser send (older browsers
    # send no Fetch Metadata): anonymous streams from the visitor's address.
    pages = [_stream(game, 41000 + i) for i in range(3)]
    try:
        assert [await page.open() for page in pages] == [200, 200, 429]
        refused = await pages[2].error_body()
        assert refused["error"]["code"] == "too_many_sockets"
        assert refused["error"]["details"] == {"limit": 2, "per": "address"}
        # The visitor's own sockets, signed in, from the same address: not crowded out.
        cookie = await session_cookie(alice)
        own = ws(game_path(game), origin=SITE_ORIGIN, cookie=cookie, client=(VISITOR, 42000))
        bot = ws(game_path(game), token=alice_token, client=(VISITOR, 42001))
        assert await _opens(own) and await _opens(bot)
        await own.disconnect()
        await bot.disconnect()
    finally:
        for page in pages:
            await page.close()


async def test_anonymous_sockets_and_streams_keep_separate_budgets_per_address(
    alice: Any, new_game: Any, caps: Any
) -> None:
    """An anonymous socket (a script without Origin) still counts with the sockets; an
    anonymous stream with the streams: neither crowds the other out, and each is capped."""
    caps(address=1)
    game = await new_game(alice)
    page = _stream(game, 43000)
    try:
        assert await page.open() == 200
        watcher = ws(game_path(game), client=(VISITOR, 43001))
        assert await _opens(watcher)
        assert not await _opens(ws(game_path(game), client=(VISITOR, 43002)))
        second = _stream(game, 43003)
        assert await second.open() == 429
        await second.error_body()
        await watcher.disconnect()
    finally:
        await page.close()


@pytest.mark.parametrize(
    "fetch",
    [
        [*IMG, ("Sec-Fetch-Dest", "image")],  # <img>
        [*IMG, ("Sec-Fetch-Dest", "script")],  # <script>
        [*IMG, ("Sec-Fetch-Dest", "empty")],  # fetch(url, {mode: "no-cors"})
        [("Sec-Fetch-Site", "same-site"), ("Sec-Fetch-Mode", "no-cors")],  # a sibling subdomain
        [
            ("Sec-Fetch-Site", "cross-site"),
            ("Sec-Fetch-Mode", "navigate"),
            ("Sec-Fetch-Dest", "iframe"),
        ],
    ],
    ids=["img", "script", "no-cors-fetch", "same-site-img", "iframe"],
)
async def test_a_page_of_another_site_is_refused_before_it_takes_a_slot(
    alice: Any, session_cookie: Any, new_game: Any, caps: Any, fetch: list[tuple[str, str]]
) -> None:
    caps(address=1)
    game = await new_game(alice)
    cookie = await session_cookie(alice)  # sent too when the page is same-site
    for port in (44000, 44001):  # over the cap of 1 if the first had taken a slot
        page = _stream(game, port, cookie=cookie, headers=fetch)
        assert await page.open() == 403
        body = await page.error_body()
        assert body["error"]["code"] == "forbidden"
        await page.close()
    reader = _stream(game, 44002)
    try:
        assert await reader.open() == 200
    finally:
        await reader.close()


async def test_every_way_api_md_opens_a_stream_still_works(
    alice: Any, alice_token: str, session_cookie: Any, new_game: Any, caps: Any
) -> None:
    caps(address=50)
    game = await new_game(alice)
    cookie = await session_cookie(alice)
    navigation = [
        ("Sec-Fetch-Site", "cross-site"),
        ("Sec-Fetch-Mode", "navigate"),
        ("Sec-Fetch-Dest", "document"),
    ]
    ways = {
        "anonymous": {},
        "token header": {"token": alice_token},
        "token query": {"token_query": alice_token},
        "the site's own page": {
            "cookie": cookie,
            "headers": [("Sec-Fetch-Site", "same-origin"), ("Sec-Fetch-Mode", "cors")],
        },
        "a link followed from elsewhere": {"headers": navigation},
    }
    for port, (way, kwargs) in enumerate(ways.items(), start=45000):
        stream = _stream(game, port, **kwargs)
        try:
            assert await stream.open() == 200, way
            state = await stream.frame()
            assert state["type"] == "state" and state["game"]["id"] == str(game.id), way
        finally:
            await stream.close()
    events = StreamCall("/api/stream/event", token=alice_token, client=(VISITOR, 45100))
    try:
        assert await events.open() == 200
    finally:
        await events.close()
