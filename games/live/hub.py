"""One membership of the channel layer per group and process, shared by every socket of the
process that follows the group (docs/LIVE.md, "The process's hub").

A game, race or arena socket follows one group of events. Channels' way gives every socket a
channel of its own in the layer and adds that channel to the group: per socket, the layer's
queue (four deques: about 3 KB), a task reading it, and the group's bookkeeping; per event and
socket, a put on that queue and a wake-up of that task. Ten thousand watchers of a hundred
games cost 30 MB and ten thousand task wake-ups an event that way (docs/PERFORMANCE.md,
Many watchers on one live process).

Here the process joins each group once, with a channel of the hub's own, and one reader task
per group hands every event to each member socket in turn (`Member.deliver`, synchronous). A
socket runs its handler at once in an eagerly started task: the usual handler (a frame
written to the transport) finishes without ever being scheduled; one that must wait (its turn
is taken by the player's own move, its client reads slowly) waits alone, its later events
kept in order behind it, while the hub goes on to the next socket.

A socket still has a channel of its own when it needs one: a signed-in socket joins its
credential's group (games.live.base), where a revocation kicks it.

Per event loop: a test's new loop gets a new hub (the layer's channels belong to a loop).
"""

from __future__ import annotations

import asyncio
import contextlib
import weakref
from typing import Any, Protocol

from channels.layers import get_channel_layer


class Member(Protocol):
    def deliver(self, message: dict[str, Any]) -> None: ...

    def lost(self, exc: Exception) -> None:
        """The group's events stopped coming (the layer failed): the member must end."""
        ...


class _Group:
    __slots__ = ("channel", "joined", "members", "reader")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.channel = ""
        self.joined: asyncio.Future[None] = loop.create_future()  # the layer's group_add done
        self.members: dict[Member, None] = {}  # in joining order
        self.reader: asyncio.Task[None] | None = None


class Hub:
    """The groups this process follows on one event loop, and their member sockets."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._groups: dict[str, _Group] = {}
        self.layer = get_channel_layer()

    def members(self, group: str) -> int:
        """How many sockets of this process follow `group` (tests, metrics)."""
        entry = self._groups.get(group)
        return len(entry.members) if entry is not None else 0

    def channel_of(self, group: str) -> str | None:
        """The hub's channel in `group`, None when this process does not follow it."""
        entry = self._groups.get(group)
        return entry.channel if entry is not None and entry.joined.done() else None

    async def join(self, group: str, member: Member) -> None:
        """From its return on, `member` gets every event sent to `group`."""
        entry = self._groups.get(group)
        if entry is None:
            # The first member joins the layer's group for the process. It is a member from
            # the start, so that others leaving meanwhile never empty (and orphan) the entry.
            entry = self._groups[group] = _Group(self._loop)
            entry.members[member] = None
            try:
                entry.channel = await self.layer.new_channel(prefix="hub.")
                await self.layer.group_add(group, entry.channel)
            except BaseException as exc:
                if self._groups.get(group) is entry:
                    del self._groups[group]
                failure = exc if isinstance(exc, Exception) else ConnectionError(group)
                entry.joined.set_exception(failure)  # to the members waiting in the next branch
                entry.joined.exception()  # retrieved here: no "never retrieved" warning
                raise
            entry.reader = self._loop.create_task(self._read(group, entry))
            entry.joined.set_result(None)
            return
        entry.members[member] = None
        try:
            await asyncio.shield(entry.joined)
        except BaseException:
            entry.members.pop(member, None)
            raise

    async def leave(self, group: str, member: Member) -> None:
        """`member` gets no more events of `group`; the last member out leaves the group.
        Leaving a group one is not in does nothing."""
        entry = self._groups.get(group)
        if entry is None or entry.members.pop(member, "absent") == "absent":
            return
        if entry.members:
            return
        del self._groups[group]
        if entry.reader is not None:
            entry.reader.cancel()
        if entry.joined.done() and entry.joined.exception() is None:
            await self.layer.group_discard(group, entry.channel)

    async def _read(self, group: str, entry: _Group) -> None:
        receive = self.layer.receive
        try:
            while True:
                message = await receive(entry.channel)
                # A copy: a member may leave (and another join) while the event goes round.
                for member in tuple(entry.members):
                    member.deliver(message)
        except Exception as exc:
            # The layer failed (Redis gone, a broken reply): no event of the group reaches
            # these members again, so none may go on as if it followed it. Each ends (its
            # client reconnects and reads a fresh snapshot); the next socket to follow the
            # group joins it anew.
            if self._groups.get(group) is entry:
                del self._groups[group]
            members, entry.members = tuple(entry.members), {}
            for member in members:
                member.lost(exc)
            with contextlib.suppress(Exception):
                await self.layer.group_discard(group, entry.channel)


_hubs: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Hub] = weakref.WeakKeyDictionary()


def hub() -> Hub:
    """The hub of the running event loop."""
    loop = asyncio.get_running_loop()
    found = _hubs.get(loop)
    if found is None:
        found = _hubs[loop] = Hub(loop)
    return found
