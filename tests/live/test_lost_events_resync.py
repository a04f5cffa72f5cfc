"""Live events lost on their way to Redis are caught up (demineur_site.publish).

On a loaded machine a publish was not acknowledged in its half second: the publisher's breaker
then dropped the next second of events, a race's `ended` among them, while Redis itself never
went away. The race page's sockets heard nothing more (the lost event was the feed's last, so
no `seq` gap showed it) and the sockets' own Redis watch saw no outage: the page said "running"
for good. Now the publisher remembers each group that lost an event and, once it can publish
again, tells it: its sockets, in whatever process, re-read and send a fresh `state`; a lost
kick is sent again.

The breaker is opened the way a failed publish opens it (`failed`); Redis and the sockets are
the real ones."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from channels.db import database_sync_to_async
from django.conf import settings
from rest_framework.test import APIClient

from demineur_site import publish
from tests.support.personas import SOCKET_TESTS
from tests.support.sockets import connected, game_path, rest_move, socket, until_closed

pytestmark = [
    *SOCKET_TESTS,
    pytest.mark.skipif(
        not settings.REDIS_URL,
        reason="the in-memory channel layer (no REDIS_URL) hands events over in the process: "
        "it has no breaker and drops nothing",
    ),
]

WAIT = 10  # seconds: a bound on each wait (the resync comes after RETRY_SECONDS)


@pytest.fixture
def breaker_opened() -> Iterator[None]:
    """The publisher's breaker as one publish left it that was not acknowledged in time;
    closed again, and its recovery finished, after the test."""
    publish._breaker.failed(TimeoutError("not acknowledged in time"), "lost-events-test", None)
    try:
        yield
    finally:
        publish._breaker.succeeded()
        for _ in range(100):  # a bound, not a speed check: the recovery tells what is left
            if not publish._breaker.recovering:
                break
            publish.flush()
            time.sleep(0.1)


async def test_a_dropped_move_reaches_the_watchers_as_a_fresh_state(
    alice, new_game, breaker_opened
) -> None:
    game = await new_game(alice, "expert")  # one reveal cannot end it
    watcher = socket(game_path(game))
    lobby = socket("/ws/live")
    assert (await connected(watcher))["type"] == "state"
    assert (await connected(lobby))["type"] == "live"
    await rest_move(alice, game, "reveal", 4, 4)  # its events are dropped by the open breaker
    state = await watcher.receive_json_from(timeout=WAIT)
    assert state["type"] == "state"
    assert state["seq"] == 1 and state["game"]["state"] in ("playing", "lost")
    live = await lobby.receive_json_from(timeout=WAIT)
    assert live["type"] == "live"
    assert str(game.id) in {g["id"] for g in live["games"]}  # the game it missed starting
    await watcher.disconnect()
    await lobby.disconnect()


async def test_a_dropped_kick_is_sent_again(alice, alice_token, new_game, breaker_opened) -> None:
    game = await new_game(alice)
    player = socket(game_path(game), token=alice_token)
    assert (await connected(player))["type"] == "state"

    def revoke() -> int:
        api = APIClient()
        api.credentials(HTTP_AUTHORIZATION=f"Token {alice_token}")
        return api.delete("/api/auth/token").status_code

    assert await database_sync_to_async(revoke)() == 204  # its kick is dropped, then resent
    error = await player.receive_json_from(timeout=WAIT)  # nothing was sent on the socket
    assert error["type"] == "error" and error["error"]["code"] == "authentication_failed"
    _, code = await until_closed(player)
    assert code == 4401
