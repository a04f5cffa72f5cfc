"""clients/python (demineur_client) against the real server: every area reaches its endpoint,
refusals arrive as exceptions with API.md's codes, throttled requests are sent again after
the server's Retry-After, and the socket gives the frames in `seq` order to the end."""

from __future__ import annotations

import asyncio
import threading
import time
import uuid
from typing import Any

import pytest
from demineur_client import (
    AsyncClient,
    BadRequest,
    Client,
    Conflict,
    Forbidden,
    GameSocket,
    NotFound,
    NotSignedIn,
    RetryPolicy,
    Throttled,
)
from rest_framework.throttling import SimpleRateThrottle

from tests.support import boards
from tests.support.client import signed_in
from tests.support.personas import PASSWORD


def _signed_in(base: str, **options: Any) -> Client:
    return signed_in(base, "c", **options)


def test_a_game_played_to_the_end_through_the_client(live: str) -> None:
    with _signed_in(live) as api:
        game = api.games.create("beginner")
        assert game["state"] == "new" and game["width"] == 9
        first = api.games.reveal(game["id"], 4, 4)
        assert first["seq"] == 1 and first["changes"]
        for x, y in boards.safe_closed(game["id"]):
            result = api.games.reveal(game["id"], x, y)
            if result["game"]["state"] == "won":
                break
        final = api.games.get(game["id"])
        assert final["state"] == "won" and final["end_reason"] == "cleared"
        moves = api.games.moves(game["id"])
        assert [m["seq"] for m in moves] == list(range(1, final["seq"] + 1))
        me = api.accounts.me()
        assert me["stats"]["beginner"]["won"] == 1
        assert api.users.get(me["username"])["stats"]["beginner"]["played"] == 1
        page = api.games.list(user=me["username"], state="won")
        assert [g["id"] for g in page["results"]] == [game["id"]]
        board = api.leaderboards.get("beginner", "times", period="all")
        assert {"count", "results", "me"} <= set(board)


def test_a_move_sent_twice_is_played_once(live: str) -> None:
    with _signed_in(live) as api:
        game = api.games.create("beginner")
        api.games.reveal(game["id"], 4, 4)
        x, y = next(c for c in boards.safe_closed(game["id"]))
        once = api.games.reveal(game["id"], x, y, client_move_id="m-1")
        again = api.games.reveal(game["id"], x, y, client_move_id="m-1")
        assert again["seq"] == once["seq"] and again["changes"] == once["changes"]
        with pytest.raises(Conflict) as conflict:
            api.games.flag(game["id"], x, y, client_move_id="m-1")
        assert conflict.value.code == "idempotency_conflict"


def test_refusals_are_exceptions_with_the_api_codes(live: str) -> None:
    with _signed_in(live) as alice, _signed_in(live) as bob:
        game = alice.games.create("beginner")
        with pytest.raises(BadRequest) as bad:
            alice.games.reveal(game["id"], 99, 0)
        assert bad.value.status == 400 and bad.value.code
        with pytest.raises(Forbidden):
            bob.games.reveal(game["id"], 0, 0)
        with pytest.raises(NotFound) as unknown:
            alice.games.get(str(uuid.uuid4()))
        assert unknown.value.code == "not_found"
        with pytest.raises(Conflict) as not_started:
            alice.games.flag(game["id"], 0, 0)
        assert not_started.value.code == "game_not_started"
        alice.games.reveal(game["id"], 4, 4)
        alice.games.resign(game["id"])
        with pytest.raises(Conflict) as over:
            alice.games.reveal(game["id"], 0, 0)
        assert over.value.code == "game_over"
    with Client(live) as anonymous, pytest.raises(NotSignedIn):
        anonymous.games.create("beginner")


def test_tokens_and_sign_out(live: str) -> None:
    with _signed_in(live) as api:
        made = api.tokens.create("bot key")
        assert made["token"] and made["name"] == "bot key"
        assert "bot key" in [t["name"] for t in api.tokens.list()]
        with Client(live, token=made["token"]) as second:
            assert second.accounts.me()["username"] == api.accounts.me()["username"]
            api.tokens.revoke(made["id"])
            with pytest.raises(NotSignedIn):
                second.accounts.me()
        api.accounts.sign_out()
        assert api.token is None


@pytest.fixture
def one_request_a_second(monkeypatch: pytest.MonkeyPatch) -> None:
    from django.core.cache import cache

    cache.clear()
    rates = {**SimpleRateThrottle.THROTTLE_RATES, "user": "1/s"}
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", rates)
    yield
    cache.clear()


def test_a_throttled_read_is_sent_again_after_retry_after(
    live: str, one_request_a_second: None
) -> None:
    with _signed_in(live) as api:
        first = api.accounts.me()
        again = api.accounts.me()  # 429 with Retry-After, then sent again once it has passed
        assert again["username"] == first["username"]
        api.retry = RetryPolicy(retries=0)
        with pytest.raises(Throttled) as throttled:
            api.accounts.me()
        assert throttled.value.code == "throttled"
        assert throttled.value.retry_after is not None and throttled.value.retry_after >= 1


async def test_the_async_client_plays_over_the_socket(live: str) -> None:
    name = f"a{uuid.uuid4().hex[:10]}"
    async with AsyncClient(live) as api:
        await api.accounts.register(name, PASSWORD)
        await api.accounts.sign_in(name, PASSWORD)
        game = await api.games.create("beginner")
        await api.games.reveal(game["id"], 4, 4)
        safe = await asyncio.to_thread(boards.safe_closed, game["id"])
        seqs: list[int] = []
        last: dict[str, Any] = {}
        async with GameSocket(api, game["id"]) as socket:
            for x, y in safe:
                await socket.send("reveal", x, y)
            async for frame in socket.frames():
                seqs.append(frame["seq"])
                last = frame
        assert last["type"] == "ended" and last["game"]["state"] == "won"
        assert seqs == sorted(seqs) and seqs[0] == 1  # the state frame, then each move once
        assert socket.over


def test_the_game_stream_iterates_to_the_end(live: str) -> None:
    with _signed_in(live) as api:
        game = api.games.create("beginner")
        api.games.reveal(game["id"], 4, 4)
        frames: list[dict[str, Any]] = []
        reader = threading.Thread(target=lambda: frames.extend(api.streams.game(game["id"])))
        reader.start()
        deadline = time.monotonic() + 10
        while not frames and time.monotonic() < deadline:
            time.sleep(0.05)
        for x, y in boards.safe_closed(game["id"]):
            if api.games.reveal(game["id"], x, y)["game"]["state"] == "won":
                break
        reader.join(timeout=20)
        assert not reader.is_alive()
        assert frames[0]["type"] == "state" and frames[-1]["type"] == "ended"
        seqs = [f["seq"] for f in frames if f["type"] == "move"]
        assert seqs == sorted(set(seqs))
        with pytest.raises(NotFound):
            list(api.streams.game(str(uuid.uuid4())))


async def test_the_async_event_stream(live: str) -> None:
    name = f"e{uuid.uuid4().hex[:10]}"
    async with AsyncClient(live) as api:
        await api.accounts.register(name, PASSWORD)
        await api.accounts.sign_in(name, PASSWORD)
        events = api.streams.events()
        created = asyncio.ensure_future(api.games.create("beginner"))
        first = await asyncio.wait_for(events.__anext__(), timeout=10)
        game = await created
        assert first["type"] == "game_start" and first["game"]["id"] == game["id"]
        await events.aclose()


@pytest.mark.parametrize(
    ("scope", "refused"),
    [
        ("game:play", lambda api: api.races.queue("beginner")),
        ("race:play", lambda api: api.games.create("beginner")),
        ("account:read", lambda api: api.tokens.create("more")),
        ("account:write", lambda api: api.games.create("beginner")),
    ],
)
def test_a_token_without_the_scope_gets_missing_scope(live: str, scope: str, refused: Any) -> None:
    with _signed_in(live) as owner:
        made = owner.tokens.create(f"only {scope}", scopes=[scope])
        assert made["token"].startswith("dmn_")
        with Client(live, token=made["token"]) as scoped:
            with pytest.raises(Forbidden) as missing:
                refused(scoped)
            assert missing.value.code == "missing_scope"
            assert scope in missing.value.details["scopes"]
            assert scoped.tokens.test([made["token"]])[made["token"]]["scopes"] == [scope]
