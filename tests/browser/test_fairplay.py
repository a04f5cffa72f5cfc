"""Fair play on the page (RULES.md, Fair play), in real Chromium: a ranked game
asks before a pause unranks it and says so while it runs; every game says why it did not
rank; the leaderboards switch to the bots' own boards; bots wear a badge; sign-up declares
a bot. The server's side is tested in tests/play/ (test_fairplay_*.py, test_pause_unranks.py)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.support.boards import mines_of
from tests.support.browser import (
    cell,
    layout_after_first_tap,
    new_player_game,
    screenshot,
    sign_up_by_api,
    speaking,
    start_custom_game,
    start_game,
)
from tests.support.personas import PASSWORD

RANKED_NOTE = (
    "Ranked game: pausing unranks it, and so does leaving this page for more than 5 s"
    " (a reload does not)."
)
PAUSED_REASON = "Not ranked: the game was paused after its first tap."


def register(context: Any, username: str, kind: str = "human") -> dict[str, str]:
    """An account made through the public API; returns its API client's header."""
    r = context.request.post(
        "/api/auth/register", data={"username": username, "password": PASSWORD, "kind": kind}
    )
    assert r.status == 201, r.text()
    assert r.json()["kind"] == kind
    r = context.request.post("/api/auth/token", data={"username": username, "password": PASSWORD})
    assert r.status == 200, r.text()
    return {"Authorization": f"Token {r.json()['token']}"}


def api_post(context: Any, path: str, auth: dict[str, str], data: Any = None) -> Any:
    r = context.request.post(path, data=data, headers=auth)
    assert r.ok, r.text()
    return r.json()


def api_game(context: Any, game_id: str) -> Any:
    r = context.request.get(f"/api/games/{game_id}")
    assert r.ok, r.text()
    return r.json()


def win_beginner_by_api(context: Any, auth: dict[str, str], *, pause: bool = False) -> str:
    """A Beginner game won through the API on the seeded layout (first tap at 4, 4), paused
    once after the first tap when asked. Returns its id."""
    game_id = str(api_post(context, "/api/games", auth, {"level": "beginner"})["id"])
    moves = f"/api/games/{game_id}"
    rows = api_post(context, f"{moves}/reveal", auth, {"x": 4, "y": 4})["game"]["board"]
    if pause:
        api_post(context, f"{moves}/pause", auth)
        api_post(context, f"{moves}/resume", auth)
    mines = mines_of(layout_after_first_tap(9, 9, 10, 4, 4))
    for y in range(9):
        for x in range(9):
            if (x, y) in mines or rows[y][x] != "#":
                continue
            game = api_post(context, f"{moves}/reveal", auth, {"x": x, "y": y})["game"]
            if game["state"] == "won":
                return game_id
            rows = game["board"]
    raise AssertionError("the seeded Beginner layout was not won")


def first_tap(page: Any, x: int = 4, y: int = 4) -> None:
    cell(page, x, y).click()
    expect(cell(page, x, y)).not_to_have_attribute("data-v", "#")
    expect(page.locator("#game")).to_have_attribute("data-state", "playing")


def pause_posts(page: Any) -> list[str]:
    """The pause requests the page sends, recorded as they leave."""
    sent: list[str] = []
    page.on(
        "request",
        lambda r: sent.append(r.url) if r.method == "POST" and r.url.endswith("/pause") else None,
    )
    return sent


def test_pausing_a_ranked_game_asks_first_and_keep_playing_does_not_pause(desktop: Any) -> None:
    sign_up_by_api(desktop, "ivy")
    page = desktop.new_page()
    sent = pause_posts(page)
    game_id = start_game(page, "beginner")
    note = page.locator("#fair-note")
    expect(note).to_have_text(RANKED_NOTE)  # said before the first tap already
    first_tap(page)
    expect(note).to_be_visible()
    expect(note).to_have_text(RANKED_NOTE)
    expect(note).to_have_attribute("data-reason", "ranked")

    # The Pause button asks first, in an accessible in-page dialog.
    page.click("#pause")
    dialog = page.get_by_role("dialog", name="Pause this ranked game?")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("Pausing ends this game's chance to rank")
    expect(page.locator("#keep-playing")).to_be_focused()  # the safe answer is the default
    page.click("#keep-playing")
    expect(dialog).to_be_hidden()
    expect(page.locator("#board")).to_be_visible()
    expect(page.locator("#status")).to_have_text("The game goes on, still ranked.")
    game = api_game(desktop, game_id)
    assert game["state"] == "playing" and game["ranked"] is True
    assert game["unranked_reason"] is None

    # The P key asks too; Escape keeps playing.
    page.keyboard.press("p")
    expect(dialog).to_be_visible()
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    expect(page.locator("#board")).to_be_visible()
    expect(note).to_have_text(RANKED_NOTE)
    game = api_game(desktop, game_id)
    assert game["state"] == "playing" and game["ranked"] is True
    assert sent == []  # no pause ever left the page
    settle(page)


def test_pause_anyway_pauses_and_the_page_then_says_why_the_game_is_unranked(
    desktop: Any,
) -> None:
    sign_up_by_api(desktop, "jules")
    page = desktop.new_page()
    sent = pause_posts(page)
    game_id = start_game(page, "beginner")
    first_tap(page)
    page.keyboard.press("p")
    page.click("#pause-anyway")
    expect(page.locator("#board")).to_be_hidden()
    expect(page.locator("#paused-cover")).to_be_visible()
    note = page.locator("#fair-note")
    expect(note).to_have_text(PAUSED_REASON)
    expect(note).to_have_attribute("data-reason", "paused")
    game = api_game(desktop, game_id)
    assert game["state"] == "paused"
    assert game["ranked"] is False and game["unranked_reason"] == "paused"
    assert len(sent) == 1

    # Resumed, the game stays unranked, and a second pause no longer asks.
    page.click("#resume")
    expect(page.locator("#board")).to_be_visible()
    expect(note).to_have_text(PAUSED_REASON)
    page.click("#pause")
    expect(page.locator("#paused-cover")).to_be_visible()
    expect(page.locator("#pause-ask")).to_be_hidden()
    assert len(sent) == 2

    # Finished, the result says why it did not rank, and offers no leaderboard.
    page.click("#resume")
    mines = mines_of(layout_after_first_tap(9, 9, 10, 4, 4))
    for y in range(9):
        for x in range(9):
            if (x, y) not in mines and cell(page, x, y).get_attribute("data-v") == "#":
                cell(page, x, y).click()
                expect(cell(page, x, y)).not_to_have_attribute("data-v", "#")
    expect(page.locator("#result")).to_be_visible()
    expect(page.locator("#fair-result")).to_have_text(PAUSED_REASON)
    expect(page.locator("#result a", has_text="Leaderboard")).to_have_count(0)
    expect(note).to_be_hidden()  # at the end the result box says it, once


def test_a_finished_paused_game_shows_the_paused_reason_and_a_ranked_one_says_it_ranked(
    desktop: Any,
) -> None:
    auth = register(desktop, "kim")
    paused = win_beginner_by_api(desktop, auth, pause=True)
    ranked = win_beginner_by_api(desktop, auth)
    assert api_game(desktop, paused)["unranked_reason"] == "paused"
    page = desktop.new_page()  # a visitor: anyone may look at a finished game
    page.goto(f"/games/{paused}")
    expect(page.locator("#result")).to_be_visible()
    expect(page.locator("#fair-result")).to_have_text(PAUSED_REASON)
    expect(page.locator("#fair-result")).to_have_attribute("data-reason", "paused")
    page.goto(f"/games/{ranked}")
    expect(page.locator("#fair-result")).to_have_text(
        "Ranked: this win counts on the leaderboards."
    )
    expect(page.locator("#result a", has_text="Leaderboard")).to_have_count(1)


def test_a_watcher_sees_a_running_game_become_unranked_when_its_player_pauses(
    desktop: Any,
) -> None:
    auth = register(desktop, "lena")
    game_id = api_post(desktop, "/api/games", auth, {"level": "beginner"})["id"]
    api_post(desktop, f"/api/games/{game_id}/reveal", auth, {"x": 4, "y": 4})
    page = desktop.new_page()
    page.goto(f"/games/{game_id}")
    expect(page.locator("#game")).to_have_attribute("data-live", "socket")
    expect(page.locator("#fair-note")).to_have_text("Ranked game.")
    api_post(desktop, f"/api/games/{game_id}/pause", auth)
    expect(page.locator("#board")).to_be_hidden()
    expect(page.locator("#fair-note")).to_have_text(PAUSED_REASON)


def test_a_custom_board_says_it_never_ranks_and_pauses_without_asking(desktop: Any) -> None:
    sign_up_by_api(desktop, "mo")
    page = desktop.new_page()
    start_custom_game(page, 9, 9, 10)
    first_tap(page)
    expect(page.locator("#fair-note")).to_have_text("Not ranked: custom boards never rank.")
    page.click("#pause")
    expect(page.locator("#paused-cover")).to_be_visible()
    expect(page.locator("#pause-ask")).to_be_hidden()


def test_the_bots_switch_shows_a_bots_win_and_not_a_humans(desktop: Any) -> None:
    human = register(desktop, "nadia")
    bot = register(desktop, "solver-9000", kind="bot")
    win_beginner_by_api(desktop, human)
    win_beginner_by_api(desktop, bot)
    page = desktop.new_page()
    page.goto("/leaderboards/beginner")
    rows = page.locator("#ranking tbody tr")
    expect(rows.filter(has_text="nadia")).to_have_count(1)
    expect(rows.filter(has_text="solver-9000")).to_have_count(0)
    expect(page.locator("#players-label")).to_be_hidden()

    page.click("[data-players=bots]")
    expect(page.locator("[data-players=bots]")).to_have_attribute("aria-pressed", "true")
    expect(page).to_have_url(re.compile(r"[?&]players=bots(&|$)"))
    expect(rows.filter(has_text="solver-9000")).to_have_count(1)
    expect(rows.filter(has_text="nadia")).to_have_count(0)
    expect(page.locator("#players-label")).to_be_visible()
    expect(page.locator("#players-label")).to_contain_text("Bot boards")
    screenshot(page, "leaderboards-bots")
    # Every board of the page follows: the other rankings and the other levels.
    for kind in ("speed", "streaks"):
        page.click(f"[data-kind={kind}]")
        expect(rows.filter(has_text="solver-9000")).to_have_count(1)
        expect(rows.filter(has_text="nadia")).to_have_count(0)
    expect(page.locator("#level-tabs a", has_text="Expert")).to_have_attribute(
        "href", "/leaderboards/expert?players=bots"
    )
    # The choice is in the address: a reload (or a shared link) keeps it.
    page.reload()
    expect(page.locator("[data-players=bots]")).to_have_attribute("aria-pressed", "true")
    expect(rows.filter(has_text="solver-9000")).to_have_count(1)
    page.click("[data-players=humans]")
    expect(rows.filter(has_text="nadia")).to_have_count(1)
    expect(rows.filter(has_text="solver-9000")).to_have_count(0)
    expect(page).to_have_url(re.compile(r"^[^#]*\?(?!.*players=)"))


def test_an_unknown_players_value_in_the_address_shows_the_humans_boards(desktop: Any) -> None:
    """Only "bots" is passed on to the API: anything else in the address is the default, so a
    crafted link can neither break the page nor put its text into the API request."""
    win_beginner_by_api(desktop, register(desktop, "uma"))
    page = desktop.new_page()
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if "/api/leaderboards/" in r.url else None)
    page.goto("/leaderboards/beginner?players=%22%3E%3Cimg%20src%3Dx%3Eall")
    expect(page.locator("#ranking tbody tr", has_text="uma")).to_have_count(1)
    expect(page.locator("[data-players=humans]")).to_have_attribute("aria-pressed", "true")
    expect(page.locator("#lb-error")).to_be_empty()
    expect(page.locator("#board-section img")).to_have_count(0)
    assert asked and not [url for url in asked if "players" in url]
    expect(page).to_have_url(re.compile(r"^[^#]*\?(?!.*players=)"))


def test_sign_up_declares_a_bot_whose_profile_and_lobby_line_wear_a_badge(
    desktop: Any, laptop: Any
) -> None:
    page = desktop.new_page()
    page.goto("/signup")
    page.fill("input[name=username]", "deep-sweeper")
    page.fill("input[name=password]", PASSWORD)
    page.get_by_label("This account is a bot (plays through the API)").check()
    screenshot(page, "signup-bot")
    page.click("button[type=submit]")
    page.wait_for_url("**/")
    assert desktop.request.get("/api/users/deep-sweeper").json()["kind"] == "bot"
    human = register(desktop, "olga")
    assert desktop.request.get("/api/users/olga").json()["kind"] == "human"

    page.goto("/players/deep-sweeper")
    badge = page.locator("#profile-name .badge-bot")
    expect(badge).to_be_visible()
    expect(badge).to_have_text("Bot")
    expect(page.locator("#joined")).not_to_be_empty()
    screenshot(page, "profile-bot")
    page.goto("/players/olga")
    expect(page.locator("#joined")).not_to_be_empty()
    expect(page.locator("#profile-name .badge-bot")).to_be_hidden()

    # The lobby (/ws/live, player_kind) marks the bot's live game and not the human's.
    bot = {"Authorization": "Token " + token(desktop, "deep-sweeper")}
    for auth in (bot, human):
        game_id = api_post(desktop, "/api/games", auth, {"level": "beginner"})["id"]
        api_post(desktop, f"/api/games/{game_id}/reveal", auth, {"x": 4, "y": 4})
    # Watched by a visitor: a player's own games are not among the games to watch.
    page = laptop.new_page()
    page.goto("/")
    expect(page.locator("#live-on")).to_be_visible()  # the list came from the socket
    lines = page.locator("#live-list li")
    expect(lines.filter(has_text="deep-sweeper").locator(".badge-bot")).to_have_text("bot")
    expect(lines.filter(has_text="olga")).to_have_count(1)
    expect(lines.filter(has_text="olga").locator(".badge-bot")).to_have_count(0)
    page.locator("#live-list").scroll_into_view_if_needed()
    screenshot(page, "home-lobby-bot")


def test_sign_up_without_the_box_makes_a_human(desktop: Any) -> None:
    page = desktop.new_page()
    bodies: list[str] = []
    page.on(
        "request",
        lambda r: bodies.append(r.post_data or "") if r.url.endswith("/register") else None,
    )
    page.goto("/signup")
    page.fill("input[name=username]", "pia")
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url("**/")
    assert desktop.request.get("/api/users/pia").json()["kind"] == "human"
    assert bodies and '"kind"' not in bodies[0]  # the API's default, nothing sent


def token(context: Any, username: str) -> str:
    r = context.request.post("/api/auth/token", data={"username": username, "password": PASSWORD})
    assert r.status == 200, r.text()
    return str(r.json()["token"])


def settle(page: Any) -> None:
    """Pause the running game before the page closes (it would pause itself meanwhile)."""
    page.keyboard.press("Escape")
    page.click("#pause")
    if page.locator("#pause-ask").is_visible():
        page.click("#pause-anyway")
    expect(page.locator("#paused-cover")).to_be_visible()


def test_screenshots_of_the_ranked_note_and_the_pause_dialog(phone: Any, laptop: Any) -> None:
    for context, player, level, tap, name in (
        (phone, "quinn", "beginner", (4, 4), "fairplay-phone"),
        (laptop, "rosa", "expert", (15, 8), "fairplay-desktop"),
    ):
        sign_up_by_api(context, player)
        page = context.new_page()
        start_game(page, level)
        first_tap(page, *tap)
        note = page.locator("#fair-note")
        expect(note).to_have_text(RANKED_NOTE)
        # The note is seen with the board, above the frame, on the screen.
        box, frame = note.bounding_box(), page.locator("#board-wrap").bounding_box()
        assert box["y"] >= 0 and box["y"] + box["height"] <= frame["y"]
        width = page.viewport_size["width"]
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        screenshot(page, f"{name}-note")
        page.click("#pause")
        dialog = page.locator("#pause-ask")
        expect(dialog).to_be_visible()
        d = dialog.bounding_box()
        assert d["x"] >= 0 and d["x"] + d["width"] <= width  # nothing cut on a phone
        screenshot(page, f"{name}-dialog")
        page.click("#keep-playing")
        expect(dialog).to_be_hidden()
        settle(page)


@pytest.mark.parametrize(
    ("locale", "note", "ask", "bots"),
    [
        ("pl-PL", "Gra rankingowa", "Wstrzymać tę grę rankingową?", "Boty"),
        ("ms-MY", "Permainan dikira dalam kedudukan", "Jeda permainan", "Bot"),
        ("ca-ES", "Partida classificatòria", "Voleu posar en pausa", "Bots"),
        ("nl-NL", "Telt mee voor de ranglijst", "Dit spel voor de ranglijst pauzeren?", "Bots"),
        ("th-TH", "เกมจัดอันดับ", "พักเกมจัดอันดับนี้หรือไม่?", "บอท"),
    ],
)
def test_the_fair_play_strings_speak_the_five_languages(
    browser: Any, live: str, locale: str, note: str, ask: str, bots: str
) -> None:
    with speaking(browser, live, locale) as context:
        page, _ = new_player_game(context, "tess", "beginner")
        first_tap(page)
        expect(page.locator("#fair-note")).to_contain_text(note)  # the script catalog
        page.click("#pause")
        expect(page.locator("#pause-ask h2")).to_contain_text(ask)  # the template
        page.click("#keep-playing")
        settle(page)  # paused now, not by the page being left while the next test starts
        page.goto("/leaderboards/beginner")
        expect(page.locator("[data-players=bots]")).to_have_text(bots)
