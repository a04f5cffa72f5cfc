"""A socket to a path that is no socket (/ws/lobby, /ws/games) is a 404 error frame and close
4404, like an unknown game: never the router's 500."""

from __future__ import annotations

import pytest

from tests.support.sockets import socket as open_socket


@pytest.mark.parametrize("path", ["/ws/lobby", "/ws/games", "/ws/games/a/b", "/ws/"])
async def test_an_unknown_socket_path_is_a_404_frame_and_close_4404(path, db):
    socket = open_socket(path)
    connected, _ = await socket.connect(timeout=3)
    assert connected
    frame = await socket.receive_json_from(timeout=3)
    assert frame["type"] == "error" and frame["status"] == 404
    assert frame["error"]["code"] == "not_found"
    assert (await socket.receive_output(timeout=3)) == {"type": "websocket.close", "code": 4404}
