"""Hypothesis for socket messages: random JSON frames, move-shaped or not,
and random text, sent by the game's own player to its socket. Whatever arrives, the server
never answers `server_error`, never closes the socket abnormally, keeps answering, and every
error frame carries the API.md error body.

Through channels' WebsocketCommunicator and the real ASGI application (the socket edge
included), on the configured channel layer (Redis when REDIS_URL is set). Bounded:
SOCKET_FUZZ_EXAMPLES (default 15) sequences of up to 12 frames."""

from __future__ import annotations

import json
import os
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accounts.models import User
from accounts.services import token_issue
from games.play import services
from tests.support.personas import PASSWORD
from tests.support.sockets import TIMEOUT, connected, game_path, socket

pytestmark = pytest.mark.django_db(transaction=True)

EXAMPLES = int(os.environ.get("SOCKET_FUZZ_EXAMPLES", "15"))
QUIET_S = 0.3  # no more frames after this long: the server has answered everything

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=8,
)
coordinates = st.integers(min_value=-2, max_value=10) | json_values
move_like = st.fixed_dictionaries(
    {
        "action": st.sampled_from(["reveal", "flag", "chord", "pause", "resume", "resign"])
        | json_values,
        "x": coordinates,
        "y": coordinates,
    },
    optional={
        "client_move_id": st.text(max_size=70) | json_values,
        "flagged": st.booleans() | json_values,
        "type": json_values,
    },
)
frames = st.one_of(
    move_like.map(json.dumps),
    json_values.map(json.dumps),
    st.text(max_size=200),  # not JSON at all, or JSON by chance
)


async def _drain(comm: Any) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    while True:
        # receive_nothing waits without cancelling the application (receive_output would).
        if await comm.receive_nothing(timeout=QUIET_S):
            return out
        message = await comm.receive_output(timeout=TIMEOUT)
        if message["type"] == "websocket.close":
            out.append({"__closed__": message.get("code")})
            return out
        out.append(json.loads(message["text"]))


async def _play(token: str, game_id: str, sent: list[str]) -> None:
    comm = socket(game_path(game_id), token=token)
    first = await connected(comm)
    assert first["type"] == "state", first
    try:
        for frame in sent:
            # send_input, not send_to: an empty frame is a frame too.
            await comm.send_input({"type": "websocket.receive", "text": frame})
        answers = await _drain(comm)
        # Still alive and answering: a malformed frame gets its 400.
        await comm.send_to(text_data="{")
        last = await _drain(comm)
    finally:
        await comm.disconnect()
    for message in answers + last:
        assert "__closed__" not in message, (sent, message)
        assert message.get("type") in {"state", "move", "paused", "resumed", "ended", "error"}, (
            sent,
            message,
        )
        if message["type"] == "error":
            error = message["error"]
            assert set(error) == {"code", "message", "details"}, message
            assert error["code"] != "server_error", (sent, message)
    assert any(m.get("type") == "error" and m["error"]["code"] == "malformed_json" for m in last), (
        last
    )


@pytest.fixture
def player(transactional_db: Any) -> tuple[User, str]:
    user = User.objects.create_user(username="fuzzy", password=PASSWORD)
    return user, token_issue(user=user)[1]


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=EXAMPLES <= 50,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(sent=st.lists(frames, min_size=1, max_size=12))
def test_random_frames_never_crash_the_players_socket(
    player: tuple[User, str], sent: list[str]
) -> None:
    user, token = player
    game = services.game_create(player=user, level="beginner")
    async_to_sync(_play)(token, str(game.id), sent)


def test_the_fuzzer_reaches_the_move_path(player: tuple[User, str]) -> None:
    """The strategy is not only noise: a well-formed reveal is played (a `move` comes back)."""
    user, token = player
    game = services.game_create(player=user, level="beginner")

    async def run() -> list[dict[str, Any]]:
        comm = socket(game_path(str(game.id)), token=token)
        await connected(comm)
        await comm.send_to(text_data=json.dumps({"action": "reveal", "x": 4, "y": 4}))
        # The answer is awaited, not drained: on a loaded machine a quiet spell of QUIET_S
        # came before it, and the drain took that for the end.
        answers = [json.loads(await comm.receive_from(timeout=TIMEOUT))]
        await comm.disconnect()
        return answers

    answers = async_to_sync(run)()
    assert [m["type"] for m in answers][:1] == ["move"], answers
