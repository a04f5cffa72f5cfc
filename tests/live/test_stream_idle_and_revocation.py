"""NDJSON streams (API.md, Token scopes and event streams; games.live.streams) when nothing
happens and when their sign-in ends.

* An idle account's event stream answers at once: status, headers and a first keep-alive line,
  then an empty line every STREAM_KEEPALIVE_SECONDS. It used to answer nothing until the
  account's first event, so a proxy in front never learnt that its client had left and the
  stream, with its socket slot, was held for good.
* A client that goes away frees its slot: one that closes (the server's http.disconnect) and
  one that vanishes without closing, found out by the keep-alive the server writes to it.
* After its token is revoked or its account closed, a stream writes one error line and its
  answer ends.
* The project's Python client skips the keep-alive lines, and a stream that stays silent past
  its read timeout, reopenings included, raises the client's own TransportError (it raised
  httpx.ReadTimeout).
"""

from __future__ import annotations

import contextlib
import socket
import struct
import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from channels.db import database_sync_to_async
from demineur_client import Client, RetryPolicy
from demineur_client.errors import TransportError

from accounts.models import ApiToken
from accounts.services import account_close, token_revoke
from tests.support.personas import PASSWORD, SOCKET_TESTS
from tests.support.sockets import connected, game_path
from tests.support.sockets import socket as ws
from tests.support.streams import StreamCall, open_stream

pytestmark = SOCKET_TESTS
EVENTS = "/api/stream/event"


def _game_stream(game: Any) -> str:
    return f"/api/stream/game/{game.id}"


async def _revoke_tokens_of(user: Any) -> None:
    def revoke() -> None:
        for token in ApiToken.objects.filter(user=user):
            token_revoke(token=token)

    await database_sync_to_async(revoke)()


async def _close_account(user: Any) -> None:
    await database_sync_to_async(account_close)(user=user, mode="close", password=PASSWORD)


async def _ends_after_one_error_line(stream: StreamCall) -> None:
    """The rest of an ended sign-in's stream: one line, its authentication_failed error, then the
    answer's end."""
    lines = [line for line in await stream.rest() if line]
    assert len(lines) == 1 and '"authentication_failed"' in lines[0], lines
    await stream.done()


async def _too_many(comm: Any) -> bool:
    """Whether a socket is refused by a cap (429 too_many_sockets) rather than opened."""
    first = await connected(comm)
    await comm.disconnect()
    if first["type"] == "error":
        assert first["error"]["code"] == "too_many_sockets", first
        return True
    return False


# --- an idle account's event stream --------------------------------------------------------


async def test_an_idle_accounts_event_stream_answers_at_once_with_a_keep_alive(
    alice: Any, alice_token: str, settings: Any
) -> None:
    # No periodic keep-alive can come during this test: the first line is the stream's own.
    settings.STREAM_KEEPALIVE_SECONDS = 3600
    async with open_stream(EVENTS, token=alice_token) as stream:
        assert stream.headers[b"content-type"] == b"application/x-ndjson"
        assert await stream.line() == ""


async def test_an_idle_stream_gets_a_keep_alive_every_period_from_the_start(
    alice: Any, alice_token: str, settings: Any
) -> None:
    settings.STREAM_KEEPALIVE_SECONDS = 0.05
    async with open_stream(EVENTS, token=alice_token) as stream:
        assert [await stream.line() for _ in range(4)] == ["", "", "", ""]


async def test_the_event_stream_of_an_account_with_games_gives_them_after_the_first_line(
    alice: Any, alice_token: str, new_game: Any
) -> None:
    game = await new_game(alice)
    async with open_stream(EVENTS, token=alice_token) as stream:
        assert await stream.line() == ""
        first = await stream.frame()
        assert first["type"] == "game_start" and first["game"]["id"] == str(game.id)


# --- a client that goes away ------------------------------------------------------------------


async def test_a_client_that_goes_away_frees_its_slot(
    alice: Any, alice_token: str, new_game: Any, settings: Any
) -> None:
    settings.WS_MAX_SOCKETS_PER_USER = 1
    game = await new_game(alice)
    stream = StreamCall(EVENTS, token=alice_token)
    assert await stream.open() == 200
    assert await _too_many(ws(game_path(game), token=alice_token))  # the stream holds the slot
    await stream.leave()  # gone without reading on: the server's http.disconnect
    await stream.done()
    assert not await _too_many(ws(game_path(game), token=alice_token))


class VanishingRelay:
    """A TCP relay between one client and the server whose client can vanish without closing:
    nothing more is passed on and, as a host or NAT that has forgotten the connection does,
    the server's next bytes are answered with a reset. Before that the server sees no close."""

    def __init__(self, port: int) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.target = port
        self.vanished = threading.Event()
        self.reset = threading.Event()
        self.upstream: socket.socket | None = None
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        with contextlib.suppress(OSError):
            client, _ = self.listener.accept()
            self.upstream = socket.create_connection(("127.0.0.1", self.target))
            threading.Thread(target=self._up, args=(client,), daemon=True).start()
            self._down(client)

    def _up(self, client: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while (data := client.recv(65536)) and not self.vanished.is_set():
                assert self.upstream is not None
                self.upstream.sendall(data)
        # A vanished client's end is never passed on: the server must not see a close.

    def _down(self, client: socket.socket) -> None:
        assert self.upstream is not None
        with contextlib.suppress(OSError):
            while data := self.upstream.recv(65536):
                if self.vanished.is_set():
                    self.upstream.setsockopt(
                        socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0)
                    )
                    self.upstream.close()  # a reset, not a close
                    self.reset.set()
                    return
                client.sendall(data)

    def vanish(self) -> None:
        self.vanished.set()

    def close(self) -> None:
        self.listener.close()
        if self.upstream is not None and not self.reset.is_set():
            with contextlib.suppress(OSError):
                self.upstream.shutdown(socket.SHUT_RDWR)
            self.upstream.close()


def _player(base: str) -> tuple[httpx.Client, str]:
    name = f"v{uuid.uuid4().hex[:10]}"
    api = httpx.Client(base_url=base, timeout=10)
    registered = api.post("/api/auth/register", json={"username": name, "password": PASSWORD})
    assert registered.status_code == 201, registered.text
    signed = api.post("/api/auth/token", json={"username": name, "password": PASSWORD})
    token = signed.json()["token"]
    api.headers["Authorization"] = f"Token {token}"
    return api, token


@contextlib.contextmanager
def _relayed_stream(port: int, path: str, headers: dict[str, str]) -> Iterator[VanishingRelay]:
    relay = VanishingRelay(port)
    client = socket.create_connection(("127.0.0.1", relay.port))
    try:
        request = [f"GET {path} HTTP/1.1", "Host: 127.0.0.1"]
        request += [f"{name}: {value}" for name, value in headers.items()]
        client.sendall(("\r\n".join(request) + "\r\n\r\n").encode())
        client.settimeout(10)
        status = client.recv(4096)  # the status line and headers come at once
        assert status.startswith(b"HTTP/1.1 200 "), status
        yield relay
    finally:
        client.close()
        relay.close()


def _until(predicate: Any, what: str, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting until {what}"
        time.sleep(0.05)


def test_a_client_that_vanishes_without_closing_frees_its_slot(live: str, settings: Any) -> None:
    """Through a real server: the stream's keep-alive meets the reset of a client that vanished
    (what a proxy's next write to a dead client comes to), and the slot is freed."""
    settings.STREAM_KEEPALIVE_SECONDS = 0.2
    settings.WS_MAX_SOCKETS_PER_ADDRESS = 1
    settings.TRUSTED_PROXIES = 1  # an address of this test's own, as in test_streams.py
    address = {"X-Forwarded-For": f"10.{uuid.uuid4().int % 250}.{uuid.uuid4().int % 250}.9"}
    api, token = _player(live)
    game = api.post("/api/games", json={"level": "beginner"}).json()
    port = int(live.rsplit(":", 1)[1])

    def refused() -> bool:
        probe = f"{live}/api/stream/game/{game['id']}"
        with httpx.stream("GET", probe, headers={**address, **api.headers}, timeout=10) as got:
            return bool(got.status_code == 429)

    # An account with nothing in play: the event stream of an idle account.
    api.post(f"/api/games/{game['id']}/reveal", json={"x": 0, "y": 0})
    api.post(f"/api/games/{game['id']}/resign")
    headers = {"Authorization": f"Token {token}", **address}
    with _relayed_stream(port, EVENTS, headers) as relay:
        assert refused(), "the stream does not hold its address's slot"
        relay.vanish()
        _until(relay.reset.is_set, "the server wrote to the vanished client")
        _until(lambda: not refused(), "the vanished client's slot was freed")


# --- the end of a stream's sign-in ------------------------------------------------------------


@pytest.mark.parametrize("end", [_revoke_tokens_of, _close_account], ids=["revoked", "closed"])
async def test_an_idle_event_stream_ends_after_the_error_line(
    end: Any, alice: Any, alice_token: str
) -> None:
    async with open_stream(EVENTS, token=alice_token) as stream:
        assert await stream.line() == ""
        await end(alice)
        await _ends_after_one_error_line(stream)


@pytest.mark.parametrize("end", [_revoke_tokens_of, _close_account], ids=["revoked", "closed"])
@pytest.mark.parametrize("kind", ["game", "event"])
async def test_a_stream_ends_after_the_error_line_of_its_ended_sign_in(
    end: Any,
    kind: str,
    alice: Any,
    alice_token: str,
    new_game: Any,
) -> None:
    game = await new_game(alice)
    async with open_stream(
        _game_stream(game) if kind == "game" else EVENTS, token=alice_token
    ) as stream:
        first = await stream.frame()
        assert first["type"] == ("state" if kind == "game" else "game_start"), first
        await end(alice)
        await _ends_after_one_error_line(stream)


# --- the project's Python client --------------------------------------------------------------


def _client(answer: Any) -> Client:
    no_wait = RetryPolicy(backoff=0.0)
    return Client("http://demineur.test", token="k", retry=no_wait, transport=answer)


def test_the_python_client_skips_keep_alives_and_raises_its_own_error_on_silence() -> None:
    lines = b'\n\n{"type":"game_start","game":{"id":"g"}}\n\n'
    answered = httpx.MockTransport(
        lambda request: httpx.Response(
            200, content=lines, headers={"Content-Type": "application/x-ndjson"}
        )
    )
    with _client(answered) as api:
        assert list(api.streams.events()) == [{"type": "game_start", "game": {"id": "g"}}]

    def silent(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("no line before the read timeout", request=request)

    with _client(httpx.MockTransport(silent)) as api, pytest.raises(TransportError) as raised:
        list(api.streams.events(reconnects=2))
    assert isinstance(raised.value.__cause__, httpx.ReadTimeout)
