"""Limits at the WebSocket edge: open sockets per account and per address, frame sizes, and the
rate of a player's messages.

**Messages per socket** (WS_MESSAGES_PER_SECOND, default 50; WS_MESSAGES_BURST, default 100):
a :class:`TokenBucket` per connection; past it each message gets 429 ``throttled`` with
``details.retry_after``, and nothing is stored.

**Sockets per account and per address** (WS_MAX_SOCKETS_PER_USER, default 20;
WS_MAX_SOCKETS_PER_ADDRESS, default 50; 0 turns a cap off). Over a cap the socket is accepted,
gets one ``error`` (429 ``too_many_sockets``, ``details.limit`` and ``details.per`` =
"user" | "address") and is closed with code 4429, so a bot can read why.

* With REDIS_URL (with REDIS_URLS: its first host, which also holds the cache) the count holds across every server process: one Redis sorted set per
  account and per address, whose members are the open sockets and whose scores are the time
  each expires. A connect drops expired members, adds itself and counts, in one MULTI; over
  the cap it removes itself again. A disconnect removes the member. While a socket is open,
  one heartbeat task per process pushes its expiry forward every HEARTBEAT_SECONDS. A
  crashed process stops its heartbeats, so its sockets stop counting after SLOT_TTL_SECONDS:
  no slot leaks forever (each key also expires SLOT_TTL_SECONDS after its last write).
  If Redis cannot be reached the socket is counted in this process only (logged).
* Without REDIS_URL the count is per process (development, tests).

**Streams nobody signed in to** (an NDJSON stream, games.live.streams, with no token and no
session) count per address in a budget of their own, as large as WS_MAX_SOCKETS_PER_ADDRESS,
instead of in that address's socket count. Any page of any site can make its visitor's browser
send such a GET (an `<img>` sends neither cookie nor Origin): counted with the sockets, a page
could fill its visitor's per-address cap and lock their own game socket out. In a budget of
their own, such GETs can only crowd each other.

**The address** is the connection's peer (``scope["client"]``, which uvicorn's own
``--proxy-headers`` / ``--forwarded-allow-ips`` may already have rewritten). An
``X-Forwarded-For`` header is believed only when TRUSTED_PROXIES > 0: the address is then the
TRUSTED_PROXIES-th entry from the right (the one our outermost trusted proxy saw). IPv6
addresses count per /64 (one host usually holds a whole /64).
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import time
import uuid
import weakref
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings

from demineur_site import metrics

log = logging.getLogger(__name__)

SLOT_TTL_SECONDS = 90
HEARTBEAT_SECONDS = 30
CLOSE_TOO_MANY_SOCKETS = 4429
DEFAULT_MAX_FRAME_BYTES = 4096


def max_frame_bytes() -> int:
    """The largest text or binary frame a consumer reads (a move is under 200 bytes)."""
    return int(getattr(settings, "WS_MAX_FRAME_BYTES", DEFAULT_MAX_FRAME_BYTES))


def frame_too_large(text: str | None, data: bytes | None, limit: int) -> bool:
    """Whether a client frame is over `limit` bytes (a text frame counts its UTF-8 bytes; the
    cheap length check comes first, so a huge frame is never encoded)."""
    if text is not None:
        return len(text) > limit or len(text.encode("utf-8", "surrogatepass")) > limit
    return len(data or b"") > limit


class TokenBucket:
    """Moves over one socket are throttled like REST moves (429 `throttled`): `rate` a second
    on average, bursts of up to `burst`. Time comes from the server's monotonic clock.

    >>> bucket = TokenBucket(rate=2, burst=1)
    >>> bucket.take(bucket.stamp), bucket.take(bucket.stamp)
    (0.0, 0.5)
    """

    def __init__(self, *, rate: float, burst: int) -> None:
        self.rate, self.burst = rate, float(burst)
        self.tokens, self.stamp = float(burst), time.monotonic()

    def take(self, now: float | None = None) -> float:
        """Spend one token; returns 0 when allowed, else the seconds to wait."""
        now = time.monotonic() if now is None else now
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return 0.0
        return (1 - self.tokens) / self.rate


def _header(scope: dict[str, Any], name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if bytes(key).lower() == name:
            return bytes(value).decode("latin1")
    return None


def _normalised(text: str) -> str | None:
    try:
        ip = ipaddress.ip_address(text.strip().strip("[]"))
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


def client_address(scope: dict[str, Any]) -> str | None:
    """Who connected, for the per-address cap (None: unknown, e.g. a Unix socket)."""
    trusted = int(getattr(settings, "TRUSTED_PROXIES", 0) or 0)
    if trusted > 0:
        header = _header(scope, b"x-forwarded-for")
        hops = [hop.strip() for hop in (header or "").split(",") if hop.strip()]
        if len(hops) >= trusted:
            address = _normalised(hops[-trusted])
            if address is not None:
                return address
    client = scope.get("client")
    if not client or not client[0]:
        return None
    return _normalised(str(client[0])) or str(client[0])


@dataclass
class Slot:
    member: str
    keys: list[str]
    redis: bool
    loop: asyncio.AbstractEventLoop | None = None


@dataclass
class Refusal:
    per: str  # "user" or "address"
    limit: int


@dataclass
class _LoopState:
    """The Redis client and heartbeat of one event loop (a server process has one; tests one
    per test)."""

    client: Any
    members: dict[str, list[str]] = field(default_factory=dict)
    pending: int = 0  # connects talking to Redis right now
    heartbeat: asyncio.Task[None] | None = None


class SocketSlots:
    def __init__(self) -> None:
        self._local: dict[str, int] = {}
        self._loops: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _LoopState] = (
            weakref.WeakKeyDictionary()
        )

    # --- the caps ---------------------------------------------------------------------------

    @staticmethod
    def caps(
        user_id: int | None, address: str | None, *, anonymous_stream: bool = False
    ) -> list[tuple[str, str, int]]:
        """(per, key, limit) for each cap that applies to this socket. `anonymous_stream`: a
        stream nobody signed in to, counted in its address's budget for those alone."""
        found: list[tuple[str, str, int]] = []
        per_user = int(getattr(settings, "WS_MAX_SOCKETS_PER_USER", 20))
        per_address = int(getattr(settings, "WS_MAX_SOCKETS_PER_ADDRESS", 50))
        if user_id is not None and per_user > 0:
            found.append(("user", f"user:{user_id}", per_user))
        if address is not None and per_address > 0:
            kind = "anonymous-stream" if anonymous_stream else "address"
            found.append(("address", f"{kind}:{address}", per_address))
        return found

    async def acquire(
        self, user_id: int | None, address: str | None, *, anonymous_stream: bool = False
    ) -> Slot | Refusal:
        caps = self.caps(user_id, address, anonymous_stream=anonymous_stream)
        member = uuid.uuid4().hex
        if getattr(settings, "REDIS_URL", "") and caps:
            try:
                return await self._acquire_redis(member, caps)
            except Exception as exc:  # Redis down: count in this process rather than refuse all
                log.warning("socket caps: Redis unavailable, counting locally: %r", exc)
                metrics.REDIS_ERRORS.labels("socket_caps").inc()
        return self._acquire_local(member, caps)

    async def release(self, slot: Slot) -> None:
        if not slot.redis:
            for key in slot.keys:
                left = self._local.get(key, 0) - 1
                if left > 0:
                    self._local[key] = left
                else:
                    self._local.pop(key, None)
            return
        state = self._loops.get(slot.loop) if slot.loop is not None else None
        if state is None:
            return
        state.members.pop(slot.member, None)
        try:
            async with state.client.pipeline(transaction=False) as pipe:
                for key in slot.keys:
                    pipe.zrem(key, slot.member)
                await pipe.execute()
        except Exception as exc:  # the member expires after SLOT_TTL_SECONDS anyway
            log.warning("socket caps: could not release a slot: %r", exc)
        if not state.members and not state.pending and slot.loop is not None:
            await self._retire(slot.loop, state)

    # --- process-local ----------------------------------------------------------------------

    def _acquire_local(self, member: str, caps: list[tuple[str, str, int]]) -> Slot | Refusal:
        for per, key, limit in caps:
            if self._local.get(key, 0) >= limit:
                return Refusal(per, limit)
        for _, key, _ in caps:
            self._local[key] = self._local.get(key, 0) + 1
        return Slot(member=member, keys=[key for _, key, _ in caps], redis=False)

    # --- Redis ------------------------------------------------------------------------------

    @staticmethod
    def _prefix() -> str:
        # The channel layer's prefix: two deployments (or test runs) on one Redis stay apart.
        layer: dict[str, Any] = settings.CHANNEL_LAYERS.get("default", {})
        config: dict[str, Any] = layer.get("CONFIG", {})
        return f"{config.get('prefix', 'demineur')}:wsslots:"

    def _state(self) -> tuple[asyncio.AbstractEventLoop, _LoopState]:
        import redis.asyncio as aioredis

        loop = asyncio.get_running_loop()
        state = self._loops.get(loop)
        if state is None:
            # Bounded waits: an unreachable Redis must not hold handshakes (we fall back).
            client = aioredis.from_url(
                settings.REDIS_URL, socket_connect_timeout=1.0, socket_timeout=2.0
            )
            state = _LoopState(client=client)
            self._loops[loop] = state
        return loop, state

    async def _acquire_redis(self, member: str, caps: list[tuple[str, str, int]]) -> Slot | Refusal:
        loop, state = self._state()
        keys = [self._prefix() + key for _, key, _ in caps]
        state.pending += 1
        try:
            now = time.time()
            async with state.client.pipeline(transaction=True) as pipe:
                for key in keys:
                    pipe.zremrangebyscore(key, "-inf", now)
                    pipe.zadd(key, {member: now + SLOT_TTL_SECONDS})
                    pipe.zcard(key)
                    pipe.expire(key, SLOT_TTL_SECONDS)
                results = await pipe.execute()
            counts = results[2::4]
            for (per, _, limit), count in zip(caps, counts, strict=True):
                if int(count) > limit:
                    async with state.client.pipeline(transaction=False) as pipe:
                        for key in keys:
                            pipe.zrem(key, member)
                        await pipe.execute()
                    return Refusal(per, limit)
            state.members[member] = keys
            if state.heartbeat is None or state.heartbeat.done():
                state.heartbeat = asyncio.ensure_future(self._beat(state))
            return Slot(member=member, keys=keys, redis=True, loop=loop)
        finally:
            state.pending -= 1
            if not state.members and not state.pending:
                await self._retire(loop, state)

    async def _beat(self, state: _LoopState) -> None:
        """Push the expiry of every socket open on this loop forward, in one round trip."""
        while True:
            await asyncio.sleep(HEARTBEAT_SECONDS)
            await self.refresh(state)

    async def refresh(self, state: _LoopState | None = None) -> None:
        if state is None:
            state = self._loops.get(asyncio.get_running_loop())
            if state is None:
                return
        members = dict(state.members)
        if not members:
            return
        expiry = time.time() + SLOT_TTL_SECONDS
        try:
            async with state.client.pipeline(transaction=False) as pipe:
                for member, keys in members.items():
                    for key in keys:
                        pipe.zadd(key, {member: expiry}, xx=True)
                for key in {key for keys in members.values() for key in keys}:
                    pipe.expire(key, SLOT_TTL_SECONDS)
                await pipe.execute()
        except Exception as exc:  # next beat retries; a slot left to expire frees itself
            log.warning("socket caps: heartbeat failed: %r", exc)

    async def _retire(self, loop: asyncio.AbstractEventLoop, state: _LoopState) -> None:
        """No socket left on this loop: stop its heartbeat and close its Redis connection."""
        if self._loops.get(loop) is state:
            del self._loops[loop]
        if state.heartbeat is not None:
            state.heartbeat.cancel()
        with contextlib.suppress(Exception):
            await state.client.aclose()


slots = SocketSlots()
