"""The Python client through outages of a real server process (uvicorn on the test database,
PostgreSQL and Redis): a 503 while PostgreSQL cannot be reached is sent again after the
server's Retry-After and succeeds once the database is back; a game stream survives a restart
of the server process that serves it and still ends after `ended`."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Any
from urllib.parse import urlparse

import pytest
from demineur_client import Client, RetryPolicy, Unavailable

from deploy.processes import free_port
from tests.support import boards
from tests.support.client import signed_in
from tests.support.uvicorn_pair import (
    NEEDS_POSTGRES_AND_REDIS,
    served_database_url,
    uvicorn_servers,
)

pytestmark = [NEEDS_POSTGRES_AND_REDIS, pytest.mark.django_db(transaction=True)]


class Forwarder:
    """A TCP relay from a local port to PostgreSQL that can be cut and restored: the
    database "goes away" for the server without touching the shared PostgreSQL."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.port = free_port()
        self.listener: socket.socket | None = None
        self.links: list[socket.socket] = []

    def up(self) -> None:
        listener = socket.create_server(("127.0.0.1", self.port), reuse_port=False)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def down(self) -> None:
        if self.listener is not None:
            with suppress(OSError):  # wakes the accepting thread (a close alone does not)
                self.listener.shutdown(socket.SHUT_RDWR)
            self.listener.close()
            self.listener = None
        for link in self.links:
            with suppress(OSError):
                link.shutdown(socket.SHUT_RDWR)
            link.close()
        self.links.clear()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(self.target)
            self.links += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass


@contextmanager
def server_through(forwarder: Forwarder) -> Iterator[str]:
    url = urlparse(served_database_url())
    via = url._replace(netloc=f"{url.username}@127.0.0.1:{forwarder.port}").geturl()
    port = free_port()
    with uvicorn_servers((port,), DATABASE_URL=via, DB_CONNECT_TIMEOUT="1", DB_POOL_TIMEOUT="1"):
        yield f"http://127.0.0.1:{port}"


def _signed_in(base: str, **options: Any) -> Client:
    return signed_in(base, "o", **options)


def test_a_503_while_the_database_is_away_is_retried_until_it_is_back() -> None:
    url = urlparse(served_database_url())
    forwarder = Forwarder((url.hostname or "127.0.0.1", url.port or 5432))
    forwarder.up()
    try:
        with server_through(forwarder) as base, _signed_in(base) as api:
            game = api.games.create("beginner")
            forwarder.down()
            api.retry = RetryPolicy(retries=0)
            with pytest.raises(Unavailable) as away:
                api.games.get(game["id"])
            assert away.value.status == 503 and away.value.code == "service_unavailable"
            # Back in about 1.5 s: the client waits Retry-After between its tries.
            threading.Timer(1.5, forwarder.up).start()
            api.retry = RetryPolicy(retries=6, max_sleep=2)
            started = time.monotonic()
            again = api.games.get(game["id"])
            assert again["id"] == game["id"]
            assert time.monotonic() - started >= 1.0  # it did wait for the database
    finally:
        forwarder.down()


def test_a_game_stream_survives_a_restart_of_its_server_process() -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    frames: list[dict[str, Any]] = []
    with uvicorn_servers((port,)):
        api = _signed_in(base, retry=RetryPolicy(retries=10, backoff=0.2, max_sleep=1))
        game = api.games.create("beginner")
        api.games.reveal(game["id"], 4, 4)
        reader = threading.Thread(
            target=lambda: frames.extend(api.streams.game(game["id"], reconnects=20)), daemon=True
        )
        reader.start()
        deadline = time.monotonic() + 10
        while not frames and time.monotonic() < deadline:
            time.sleep(0.05)
        assert frames and frames[0]["type"] == "state"
    # The process is gone; another one serves the same port.
    with uvicorn_servers((port,)):
        for x, y in boards.safe_closed(game["id"]):
            if api.games.reveal(game["id"], x, y)["game"]["state"] == "won":
                break
        reader.join(timeout=30)
    api.close()
    assert not reader.is_alive(), (
        "the stream did not reach `ended`",
        [(f["type"], f.get("seq"), (f.get("game") or {}).get("state")) for f in frames],
    )
    assert frames[-1]["type"] == "ended" and frames[-1]["game"]["state"] == "won"
    assert [f["type"] for f in frames].count("state") >= 2  # read again after the restart
