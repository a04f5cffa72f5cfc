"""The game page split into feed, controls and view, in real Chromium: a socket `error` keeps its
real status, so a 401 on the socket sends the player to sign in again, as a 401 over REST always
did.

A signed-out session's socket gets one `error` (401 `authentication_failed`, no
client_move_id) and is closed with 4401 (accounts/socket_credentials.py); the page reconnects
without a session, and a move on that socket is answered 401 `not_authenticated`. Before the
split every socket error was taken as a 409, so the page only printed a message and the
player stayed on a page where no move could ever be stored."""

from __future__ import annotations

import json
import re
from typing import Any

from playwright.sync_api import expect

from tests.support.boards import mines_of
from tests.support.browser import (
    cell,
    layout_after_first_tap,
    new_player_game,
    sign_up_by_api,
)
from tests.support.personas import PASSWORD


def closed_safe_cells(first: tuple[int, int]) -> list[tuple[int, int]]:
    """Beginner cells still closed after the first tap at `first`, and not mines."""
    board = layout_after_first_tap(9, 9, 10, *first)
    mines = mines_of(board)
    return [
        (x, y)
        for y, row in enumerate(board.render())
        for x, v in enumerate(row)
        if v == "#" and (x, y) not in mines
    ]


def sign_out_in_another_tab(context: Any) -> None:
    other = context.new_page()
    other.goto("/")
    other.click("#signout")
    other.wait_for_url("**/")
    expect(other.locator("body")).to_have_attribute("data-user", "")
    other.close()


def test_a_player_signed_out_in_another_tab_is_sent_to_sign_in_by_a_move_on_the_socket(
    desktop: Any,
) -> None:
    page, game_id = new_player_game(desktop, "sasha", "beginner")
    expect(page.locator("#game")).to_have_attribute("data-live", "socket")
    cell(page, 4, 4).click()
    expect(cell(page, 4, 4)).to_have_attribute("data-v", "0")
    target = closed_safe_cells((4, 4))[0]

    # The page reconnects once its signed-in socket is closed (4401): catch that new socket.
    with page.expect_websocket(lambda ws: f"/ws/games/{game_id}" in ws.url) as reconnect:
        sign_out_in_another_tab(desktop)
    socket = reconnect.value
    sent: list[dict[str, Any]] = []
    socket.on("framesent", lambda payload: sent.append(json.loads(payload)))
    rest_moves: list[str] = []
    page.on(
        "request",
        lambda r: (
            rest_moves.append(r.url) if r.method == "POST" and "/api/games/" in r.url else None
        ),
    )

    # The kick is the socket's own notice (no move of ours): the page says it and stays, since
    # watching needs no account. The new socket is anonymous and sends the game's state.
    expect(page.locator("#status")).to_contain_text("signed out")
    expect(page).to_have_url(re.compile(rf"/games/{game_id}$"))
    expect(page.locator("#game")).to_have_attribute("data-live", "socket")

    # The page still believes in its player (the body's data-user), so the tap is sent on the
    # socket, which answers 401 not_authenticated: the sign-in page, coming back to the game.
    cell(page, *target).click()
    page.wait_for_url(re.compile(rf"/signin\?next=%2Fgames%2F{game_id}$"))
    assert [m["action"] for m in sent] == ["reveal"], sent
    assert (sent[0]["x"], sent[0]["y"]) == target
    assert rest_moves == [], rest_moves  # the refusal came from the socket, not from REST
    expect(page.locator("h1")).to_have_text("Sign in")

    # Signing in again leads back to the game, whose refused move was never stored, and play
    # goes on over a signed-in socket.
    page.fill("input[name=username]", "sasha")
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"**/games/{game_id}")
    expect(page.locator("#game")).to_have_attribute("data-live", "socket")
    expect(page.locator("#game")).to_have_attribute("data-state", "playing")
    expect(cell(page, *target)).to_have_attribute("data-v", "#")
    cell(page, *target).click()
    expect(cell(page, *target)).not_to_have_attribute("data-v", "#")
    expect(page).to_have_url(re.compile(rf"/games/{game_id}$"))


def test_a_watcher_signed_out_elsewhere_stays_and_keeps_watching(
    browser: Any, desktop: Any, live: str
) -> None:
    """The sign-out kick is a notice, not an answer: it never sends a watcher away from a
    public game, and the anonymous socket that replaces the signed-in one carries the moves."""
    player = browser.new_context(base_url=live, locale="en-GB")
    try:
        made = player.request.post(
            "/api/auth/register", data={"username": "pia", "password": PASSWORD}
        )
        assert made.status == 201, made.text()
        key = player.request.post("/api/auth/token", data={"username": "pia", "password": PASSWORD})
        auth = {"Authorization": f"Token {key.json()['token']}"}
        game = player.request.post("/api/games", data={"level": "beginner"}, headers=auth).json()
        move = player.request.post(
            f"/api/games/{game['id']}/reveal", data={"x": 4, "y": 4}, headers=auth
        )
        assert move.status == 200, move.text()

        sign_up_by_api(desktop, "wes")
        page = desktop.new_page()
        page.goto(f"/games/{game['id']}")
        expect(page.locator("#game")).to_have_attribute("data-live", "socket")
        expect(page.locator("#live-badge")).to_be_visible()
        with page.expect_websocket(lambda ws: f"/ws/games/{game['id']}" in ws.url):
            sign_out_in_another_tab(desktop)
        expect(page.locator("#status")).to_contain_text("signed out")
        expect(page.locator("#game")).to_have_attribute("data-live", "socket")

        x, y = closed_safe_cells((4, 4))[0]
        move = player.request.post(
            f"/api/games/{game['id']}/reveal",
            data={"x": x, "y": y},
            headers=auth,
        )
        assert move.status == 200, move.text()
        expect(cell(page, x, y)).not_to_have_attribute("data-v", "#")
        expect(page).to_have_url(re.compile(rf"/games/{game['id']}$"))
    finally:
        player.close()


# Codes a socket sends beyond games/errors.py (the edge, the credential checks, the guard,
# the consumer's last resort; docs/LIVE.md), with the status each has over REST.
SOCKET_ONLY_CODES = {
    "authentication_failed": 401,
    "frame_too_large": 400,
    "malformed_json": 400,
    "too_many_sockets": 429,
    "throttled": 429,
    "server_error": 500,
    "service_unavailable": 503,
}


def test_every_socket_error_code_keeps_the_status_it_has_over_rest(desktop: Any) -> None:
    """The page takes each refusal's status from the frame the server builds
    (demineur_site.api_errors.socket_error), so it keeps no copy of STATUS_BY_CODE; an unknown
    code is a plain 400, never a 401 that would send a player to sign in."""
    from demineur_site.api_errors import STATUS_BY_CODE, socket_error

    expected = {**STATUS_BY_CODE, **SOCKET_ONLY_CODES, "no_such_code": 400}
    frames = {code: socket_error(code, "m", {"n": 1}) for code in expected}
    page = desktop.new_page()
    page.goto("/")
    got = page.evaluate(
        """async (frames) => {
            const { socketError } = await import("/static/frontend/js/game_feed.js");
            const { ApiError } = await import("/static/frontend/js/api.js");
            return Object.fromEntries(Object.entries(frames).map(([code, frame]) => {
                const e = socketError(frame);
                return [code, [e instanceof ApiError, e.status, e.code, e.details.n]];
            }));
        }""",
        frames,
    )
    assert got == {code: [True, status, code, 1] for code, status in expected.items()}
