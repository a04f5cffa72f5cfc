"""The process's hub (games.live.hub): every socket of a process that follows a game shares
one membership of the channel layer, each gets every event once and in order, and a socket
that must wait holds up nobody else."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import uuid
from typing import Any

from channels.layers import get_channel_layer

from games.live.base import LeanConsumer
from games.live.hub import Hub, hub
from games.play import events
from tests.support.personas import SOCKET_TESTS
from tests.support.sockets import connected, game_path, next_of, rest_move, socket

pytestmark = SOCKET_TESTS


async def test_watchers_of_one_game_share_one_membership_and_each_gets_each_move_once(
    alice, new_game
):
    game = await new_game(alice)
    group = events.game_group(game.id)
    watchers = [socket(game_path(game)) for _ in range(3)]
    for watcher in watchers:
        assert (await connected(watcher))["seq"] == 0
    assert hub().members(group) == 3
    channel = hub().channel_of(group)
    assert channel is not None and "hub." in channel

    await rest_move(alice, game, "reveal", 4, 4)
    for watcher in watchers:
        assert (await next_of(watcher, "move"))["seq"] == 1
        assert await watcher.receive_nothing(timeout=0.1)  # once, not once per watcher

    await watchers[0].disconnect()
    assert hub().members(group) == 2
    for watcher in watchers[1:]:
        await watcher.disconnect()
    # The last one out leaves the group: the process follows the game no more.
    assert hub().members(group) == 0 and hub().channel_of(group) is None
    late = socket(game_path(game))
    assert (await connected(late))["seq"] == 1
    assert hub().channel_of(group) not in (None, channel)  # followed again, afresh
    await rest_move(alice, game, "reveal", 4, 4)  # an accepted no-op still takes a seq
    assert (await next_of(late, "move"))["seq"] == 2
    await late.disconnect()


async def test_a_refused_socket_leaves_no_member_behind(db):
    game_id = uuid.uuid4()  # joined first, then read: unknown, so refused (404, close 4404)
    group = events.game_group(game_id)
    visitor = socket(f"/ws/games/{game_id}")
    connected_, _ = await visitor.connect()
    assert connected_
    assert (await visitor.receive_json_from(timeout=3))["error"]["code"] == "not_found"
    assert hub().members(group) == 0 and hub().channel_of(group) is None
    await visitor.disconnect()


class _Recorder(LeanConsumer):
    """A socket as the hub sees it, that records the events it handles; `gate`, while unset,
    holds the first one (as a taken turn or a slow client would)."""

    def __init__(self, gate: asyncio.Event | None = None) -> None:
        super().__init__()
        self.turn = asyncio.Lock()
        self._context = contextvars.copy_context()
        self._failed = asyncio.get_running_loop().create_future()
        self.gate = gate
        self.seen: list[int] = []

    async def hub_test(self, message: dict[str, Any]) -> None:
        if self.gate is not None:
            await self.gate.wait()
        self.seen.append(message["n"])


async def test_a_socket_that_must_wait_keeps_its_events_in_order_and_holds_up_nobody(db):
    group = "hub-test-waiting"
    gate = asyncio.Event()
    slow, quick = _Recorder(gate), _Recorder()
    await hub().join(group, slow)
    await hub().join(group, quick)
    layer = get_channel_layer()
    for n in range(1, 6):
        await layer.group_send(group, {"type": "hub.test", "n": n})
    for _ in range(100):
        if len(quick.seen) == 5:
            break
        await asyncio.sleep(0.01)
    assert quick.seen == [1, 2, 3, 4, 5]  # all of them while the slow one still waits
    assert slow.seen == []
    gate.set()
    for _ in range(100):
        if len(slow.seen) == 5:
            break
        await asyncio.sleep(0.01)
    assert slow.seen == [1, 2, 3, 4, 5]
    await hub().leave(group, slow)
    await hub().leave(group, slow)  # leaving twice is nothing
    await hub().leave(group, quick)
    assert hub().members(group) == 0


async def test_a_handler_that_fails_ends_its_own_socket_only(db):
    group = "hub-test-failing"

    class Failing(_Recorder):
        async def hub_test(self, message: dict[str, Any]) -> None:
            raise RuntimeError("boom")

    failing, quick = Failing(), _Recorder()
    await hub().join(group, failing)
    await hub().join(group, quick)
    await get_channel_layer().group_send(group, {"type": "hub.test", "n": 1})
    for _ in range(100):
        if failing._failed.done() and quick.seen:
            break
        await asyncio.sleep(0.01)
    # The failure reaches the failing socket's own loop (LeanConsumer._serve ends it there).
    assert isinstance(failing._failed.exception(), RuntimeError)
    assert quick.seen == [1]
    for member in (failing, quick):
        await hub().leave(group, member)


async def test_a_socket_closing_while_the_group_is_joined_leaves_the_first_member_following(db):
    group = "hub-test-joining"
    gate = asyncio.Event()
    real = get_channel_layer()

    class SlowToJoin:
        """The real layer, whose group_add waits for `gate` (a slow Redis)."""

        def __getattr__(self, name: str) -> Any:
            return getattr(real, name)

        async def group_add(self, group: str, channel: str) -> None:
            await gate.wait()
            await real.group_add(group, channel)

    own = Hub(asyncio.get_running_loop())
    own.layer = SlowToJoin()
    first, second = _Recorder(), _Recorder()
    joining = asyncio.ensure_future(own.join(group, first))
    await asyncio.sleep(0.01)
    closing = asyncio.ensure_future(own.join(group, second))
    await asyncio.sleep(0.01)
    closing.cancel()  # the second socket goes while the group is still being joined
    with contextlib.suppress(asyncio.CancelledError):
        await closing
    await own.leave(group, second)  # its socket's end: nothing left to do
    gate.set()
    await asyncio.wait_for(joining, 3)
    assert own.members(group) == 1 and own.channel_of(group) is not None
    await real.group_send(group, {"type": "hub.test", "n": 1})
    for _ in range(100):
        if first.seen:
            break
        await asyncio.sleep(0.01)
    assert first.seen == [1] and second.seen == []
    await own.leave(group, first)
    assert own.members(group) == 0 and own.channel_of(group) is None


async def test_when_the_layer_fails_the_groups_channel_every_member_ends(db):
    group = "hub-test-lost"
    real = get_channel_layer()
    broken = asyncio.Event()

    class Breaking:
        """The real layer, whose receive fails once `broken` is set (Redis gone)."""

        def __getattr__(self, name: str) -> Any:
            return getattr(real, name)

        async def receive(self, channel: str) -> dict[str, Any]:
            waiting = asyncio.ensure_future(real.receive(channel))
            stop = asyncio.ensure_future(broken.wait())
            done, _ = await asyncio.wait((waiting, stop), return_when=asyncio.FIRST_COMPLETED)
            if waiting in done:
                stop.cancel()
                return waiting.result()
            waiting.cancel()
            raise ConnectionError("the layer is gone")

    own = Hub(asyncio.get_running_loop())
    own.layer = Breaking()
    first, second = _Recorder(), _Recorder()
    await own.join(group, first)
    await own.join(group, second)
    await real.group_send(group, {"type": "hub.test", "n": 1})
    for _ in range(100):
        if first.seen and second.seen:
            break
        await asyncio.sleep(0.01)
    assert first.seen == second.seen == [1]
    broken.set()
    for _ in range(100):
        if first._failed.done() and second._failed.done():
            break
        await asyncio.sleep(0.01)
    # Each member's own loop gets the failure (LeanConsumer._serve ends the socket with it),
    # and the process no longer claims to follow the group.
    for member in (first, second):
        assert isinstance(member._failed.exception(), ConnectionError)
    assert own.members(group) == 0 and own.channel_of(group) is None
    await own.leave(group, first)  # the sockets' ends: nothing left to do
    await own.leave(group, second)
    # A socket that follows the group afterwards joins it anew and gets its events.
    broken.clear()
    third = _Recorder()
    await own.join(group, third)
    await real.group_send(group, {"type": "hub.test", "n": 2})
    for _ in range(100):
        if third.seen:
            break
        await asyncio.sleep(0.01)
    assert third.seen == [2] and first.seen == [1]
    await own.leave(group, third)
