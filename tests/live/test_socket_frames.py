"""games.live.frames, the game socket's reading of a move (games.play.sockets.move_body) and the
pure checks of games.live.guard: reading the player's frame without a socket (the consumer's
I/O is tested end to end in tests/security/test_ws_frames.py)."""

from __future__ import annotations

import doctest

import pytest

from demineur_site.api_errors import ApiError
from games.live import frames as socket_frames
from games.live import guard as socket_guard
from games.play.sockets import move_body

ACTIONS = ("reveal", "flag", "chord", "pause", "resume", "resign")


def test_the_module_examples_hold() -> None:
    failed, attempted = doctest.testmod(socket_frames)
    assert attempted >= 3 and failed == 0
    failed, attempted = doctest.testmod(socket_guard)
    assert attempted >= 2 and failed == 0


def test_a_frame_is_measured_in_utf8_bytes() -> None:
    assert not socket_guard.frame_too_large("é" * 2048, None, 4096)
    assert socket_guard.frame_too_large("é" * 2049, None, 4096)  # 4098 bytes
    assert socket_guard.frame_too_large("\ud800" * 1366, None, 4096)  # lone surrogates count
    assert socket_guard.frame_too_large(None, b"x" * 4097, 4096)
    assert not socket_guard.frame_too_large(None, None, 4096)


@pytest.mark.parametrize(
    ("text", "code"),
    [
        (None, "invalid"),  # a binary frame
        ("{", "malformed_json"),
        ("[" * 100_000, "malformed_json"),  # too deep to parse
        ('"reveal"', "invalid"),
        ("null", "invalid"),
    ],
)
def test_what_is_not_a_json_object_is_a_400(text: str | None, code: str) -> None:
    with pytest.raises(ApiError) as caught:
        socket_frames.parse(text)
    assert (caught.value.status_code, caught.value.code) == (400, code)


@pytest.mark.parametrize("action", [None, 3, ["reveal"], "dance", "x" * 500])
def test_an_action_that_is_not_known_lists_the_known_ones(action: object) -> None:
    with pytest.raises(ApiError) as caught:
        socket_frames.action_of({"action": action}, ACTIONS)
    assert caught.value.code == "invalid"
    assert caught.value.details == {"actions": list(ACTIONS)}
    assert len(caught.value.message) < 80  # an unknown action is quoted cut short


def test_fields_are_validated_as_rest_validates_them() -> None:
    body = move_body("flag", {"action": "flag", "x": 1, "y": 2, "flagged": True})
    assert (body["x"], body["y"], body["flagged"]) == (1, 2, True) and "action" not in body
    with pytest.raises(ApiError) as caught:
        move_body("reveal", {"x": "1", "y": 2.0})
    assert caught.value.code == "invalid" and set(caught.value.details["fields"]) == {"x", "y"}


def test_only_a_plain_short_client_move_id_is_echoed() -> None:
    assert socket_frames.client_move_id({"client_move_id": "m-1"}) == "m-1"
    assert socket_frames.client_move_id({"client_move_id": "m" * 65}) is None
    assert socket_frames.client_move_id({"client_move_id": 7}) is None
    assert socket_frames.echoed_move_id(None) is None
    assert socket_frames.echoed_move_id('{"client_move_id": "a\\"b"}') is None
