"""clients/python: lists read page after page, refusals that say their status and code and
carry the answer's headers, httpx's own errors (a timeout) raised as the client's, a player's
games export, arenas, and a discarded game's end on both streams."""

from __future__ import annotations

import threading
import time
import uuid
from typing import Any

import httpx
import pytest
from demineur_client import (
    AsyncClient,
    BadRequest,
    Client,
    Forbidden,
    NotFound,
    RequestTimeout,
    RetryPolicy,
    StreamEnded,
    TransportError,
)

from tests.support.client import signed_in
from tests.support.personas import PASSWORD


def _wait_for(condition: Any, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.02)


def test_iterators_read_every_page(live: str) -> None:
    with signed_in(live, "p") as api:
        me = api.accounts.me()["username"]
        made = []
        for level in ("beginner", "intermediate", "expert"):
            game = api.games.create(level)
            api.games.reveal(game["id"], 0, 0)
            made.append(game["id"])
        api.games.create("beginner")  # untapped: another level's slot, so a fourth game
        first = api.games.list(user=me, page_size=2)
        assert first["count"] == 4 and len(first["results"]) == 2 and first["next"]
        seen = [g["id"] for g in api.games.iter(user=me, page_size=2)]
        assert len(seen) == len(set(seen)) == 4 and set(made) <= set(seen)
        assert [g["id"] for g in api.games.iter(user=me, page_size=200)] == seen
        assert [g["id"] for g in api.games.iter_mine(page_size=3)] == seen
        # A game's moves, one to a page: a flag put and taken off after the first reveal.
        flagged = api.games.create("intermediate")
        board = api.games.reveal(flagged["id"], 8, 8)["game"]["board"]
        assert board is not None
        x, y = next((x, y) for y, row in enumerate(board) for x, c in enumerate(row) if c == "#")
        api.games.flag(flagged["id"], x, y, flagged=True)
        api.games.flag(flagged["id"], x, y, flagged=False)
        moves = list(api.games.iter_moves(flagged["id"], page_size=1))
        assert [(m["seq"], m["action"]) for m in moves] == [(1, "reveal"), (2, "flag"), (3, "flag")]
        # Arenas: made and found by id, by code and in the list, two to a page.
        arenas = [api.arenas.create("beginner", minutes=20) for _ in range(3)]
        assert api.arenas.by_code(arenas[1]["code"].lower())["id"] == arenas[1]["id"]
        listed = {a["id"] for a in api.arenas.iter(state="running", page_size=2)}
        assert {a["id"] for a in arenas} <= listed
        joined = api.arenas.join(arenas[0]["id"])
        assert joined["me"] is not None and joined["joined"] == 1
        rows = list(api.arenas.iter_standings(arenas[0]["id"], page_size=1))
        assert [r["player"] for r in rows] == [me]
        with pytest.raises(NotFound):
            api.arenas.by_code("ZZZZZZ")


async def test_the_async_iterators_read_every_page(live: str) -> None:
    name = f"a{uuid.uuid4().hex[:10]}"
    async with AsyncClient(live) as api:
        await api.accounts.register(name, PASSWORD, kind="bot")
        await api.accounts.sign_in(name, PASSWORD)
        made = {(await api.games.create(level))["id"] for level in ("beginner", "expert")}
        assert {g["id"] async for g in api.games.iter(user=name, page_size=1)} == made
        assert {g["id"] async for g in api.games.iter_mine(page_size=1)} == made
        arena = await api.arenas.create("beginner", minutes=20, players="bots")
        assert (await api.arenas.by_code(arena["code"]))["id"] == arena["id"]
        await api.arenas.join(arena["id"])
        rows = [r async for r in api.arenas.iter_standings(arena["id"], page_size=1)]
        assert [r["player"] for r in rows] == [name]


def test_refusals_name_status_and_code_and_carry_headers(live: str) -> None:
    name = f"t{uuid.uuid4().hex[:10]}"
    with Client(live) as api:
        api.accounts.register(name, PASSWORD)
        with pytest.raises(BadRequest) as taken:
            api.accounts.register(name, PASSWORD)
        assert str(taken.value).startswith("400 invalid [username: username_taken]: ")
        assert taken.value.details["codes"] == {"username": ["username_taken"]}
        assert taken.value.headers["content-type"].startswith("application/json")
        api.accounts.sign_in(name, PASSWORD)
        narrow = api.tokens.create("read only", scopes=["account:read"])
    with Client(live, token=narrow["token"]) as scoped:
        with pytest.raises(Forbidden) as missing:
            scoped.games.create("beginner")
        assert str(missing.value).startswith("403 missing_scope")
        assert missing.value.headers["X-OAuth-Scopes"] == "account:read"
        assert "game:play" in missing.value.headers["x-accepted-oauth-scopes"]


def test_an_httpx_timeout_is_raised_as_the_clients_own() -> None:
    def slow(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("timed out", request=request)

    transport = httpx.MockTransport(slow)
    retry = RetryPolicy(retries=1, backoff=0.0)
    with Client("http://demineur.invalid", transport=transport, retry=retry) as api:
        with pytest.raises(RequestTimeout) as read:
            api.games.get(str(uuid.uuid4()))  # a read: tried twice, then raised
        assert isinstance(read.value, TransportError)
        assert isinstance(read.value.__cause__, httpx.ReadTimeout)
        assert "ReadTimeout" in str(read.value)
        # A game stream cut every time it is opened ends as one that ended early, for good.
        with pytest.raises(StreamEnded) as game:
            list(api.streams.game(str(uuid.uuid4()), reconnects=1))
        assert isinstance(game.value.__cause__, httpx.ReadTimeout)
        with pytest.raises(RequestTimeout) as events:
            list(api.streams.events(reconnects=1))
        assert isinstance(events.value.__cause__, httpx.ReadTimeout)

    def garbled(request: httpx.Request) -> httpx.Response:
        raise httpx.DecodingError("bad gzip", request=request)

    with Client("http://demineur.invalid", transport=httpx.MockTransport(garbled)) as api:
        with pytest.raises(TransportError) as decoding:
            api.accounts.register("x", "y")  # not safe to send twice: raised at once
        assert isinstance(decoding.value.__cause__, httpx.DecodingError)


def test_the_games_export_iterates_the_ended_games(live: str) -> None:
    with signed_in(live, "x") as api:
        me = api.accounts.me()["username"]
        ended = []
        for _ in range(2):
            game = api.games.create("beginner")
            api.games.reveal(game["id"], 0, 0)
            if api.games.get(game["id"])["state"] == "playing":
                api.games.resign(game["id"])
            ended.append(game["id"])
        lines = list(api.games.export(me))
        assert sorted(line["id"] for line in lines) == sorted(ended)


def test_a_discarded_game_ends_both_streams(live: str) -> None:
    with signed_in(live, "d") as api:
        events: list[dict[str, Any]] = []
        frames: list[dict[str, Any]] = []
        stop = threading.Event()

        def read_events() -> None:
            for event in api.streams.events():
                events.append(event)
                if len(events) == 3 or stop.is_set():
                    return

        events_reader = threading.Thread(target=read_events, daemon=True)
        events_reader.start()
        old = api.games.create("beginner")
        _wait_for(lambda: any(e["type"] == "game_start" for e in events))
        game_reader = threading.Thread(
            target=lambda: frames.extend(api.streams.game(old["id"])), daemon=True
        )
        game_reader.start()
        _wait_for(lambda: frames)
        assert frames and frames[0]["type"] == "state"
        new = api.games.create("beginner")  # the untapped one of the same level is discarded
        game_reader.join(timeout=15)
        events_reader.join(timeout=15)
        stop.set()
        assert not game_reader.is_alive()  # the iterator ended on its own
        assert frames[-1]["type"] == "error" and frames[-1]["error"]["code"] == "not_found"
        kinds = [(e["type"], e["game"]["id"]) for e in events]
        assert kinds == [
            ("game_start", old["id"]),
            ("game_discarded", old["id"]),
            ("game_start", new["id"]),
        ]
        discarded = next(e for e in events if e["type"] == "game_discarded")
        assert discarded["game"]["state"] == "new"
        with pytest.raises(NotFound):
            api.games.get(old["id"])
