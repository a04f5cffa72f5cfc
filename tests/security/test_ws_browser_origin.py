# ruff: noqa: F811  (the browser fixtures are imported from tests/support, then requested)
"""A socket from a page on another port, in Chromium: a page served from another port
of the same host opens the victim's game socket with the victim's cookie (cookies do not
care about ports) and resigns the game. The Origin check now compares scheme, host *and*
port, so the handshake is refused and the game goes on.

Real Chromium and a real second HTTP server; skipped when Debian's chromium is missing.
"""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.support.browser import (  # noqa: F401  (fixtures)
    CHROMIUM,
    browser,
    cell,
    desktop,
    live,
    new_player_game,
    sign_up_by_api,
    site,
    start_game,
)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.filterwarnings("ignore:StreamingHttpResponse must consume"),
    pytest.mark.skipif(
        CHROMIUM is None,
        reason="Debian's chromium is not installed (apt-get install -y chromium): browser test skipped",
    ),
]

ATTACK = """<!doctype html><title>another port</title><script>
window.result = {opened: false, messages: [], closed: null};
const ws = new WebSocket("%(target)s");
ws.onopen = () => { result.opened = true; ws.send(JSON.stringify({action: "resign"})); };
ws.onmessage = (e) => result.messages.push(JSON.parse(e.data));
ws.onclose = (e) => { result.closed = e.code; };
</script>"""


@pytest.fixture
def other_port_page() -> Iterator[Any]:
    """An HTTP server on another port of 127.0.0.1 serving one page that targets `target`."""
    page: dict[str, str] = {"html": ""}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = page["html"].encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()

    def serve(target: str) -> str:
        page["html"] = ATTACK % {"target": target}
        return f"http://127.0.0.1:{server.server_address[1]}/"

    try:
        yield serve
    finally:
        server.shutdown()
        server.server_close()


def test_a_page_on_another_port_cannot_resign_the_victims_game(
    desktop: Any, live: str, other_port_page: Any
) -> None:
    victim, game_id = new_player_game(desktop, "victim", "beginner")
    cell(victim, 4, 4).click()
    expect(victim.locator("#game")).to_have_attribute("data-live", "socket")  # ours is fine

    attacker = desktop.new_page()  # same browser, same cookie jar: the victim's session
    attacker.goto(other_port_page(f"{live.replace('http', 'ws', 1)}/ws/games/{game_id}"))
    # Refused: the socket closes. Accepted (the code as it was): the resign ends the game.
    attacker.wait_for_function(
        "window.result && (window.result.closed !== null"
        " || window.result.messages.some((m) => m.type === 'ended'))"
    )
    result = attacker.evaluate("window.result")
    assert result["opened"] is False, result  # refused at the handshake (HTTP 403)
    assert result["messages"] == []

    game = desktop.request.get(f"/api/games/{game_id}").json()
    assert game["state"] == "playing"
    assert game["end_reason"] is None
