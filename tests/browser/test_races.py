"""Races in real Chromium (API.md and RULES.md, Races): two browsers race
on Beginner from the lobby, each seeing the other's progress bar move and never the other's
board; a quick match puts two browsers in the same race; the race page fits a 360 px phone.
The race clock (games.races.clock) runs in the test process, as it does in the server's."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from accounts.models import User
from games.races.clock import RaceClock
from tests.support.boards import board_of, safe_cells
from tests.support.browser import (
    board_moved_at_the_start,
    screenshot,
    sign_up_by_api,
    watch_the_start,
)
from tests.support.personas import PASSWORD, client_for

RACE_URL = re.compile(r"/races/[0-9a-f-]{36}$")


def own_cell(page: Any, x: int, y: int) -> Any:
    return page.locator(f'#board .cell[data-x="{x}"][data-y="{y}"]')


def racer_game(page: Any, player: str) -> str:
    """A racer's game id, as the race page reads it (GET /api/races/{id})."""
    race_id = page.url.rsplit("/", 1)[1]
    race = page.request.get(f"/api/races/{race_id}").json()
    return str(next(r["game"] for r in race["racers"] if r["player"] == player))


def open_some(page: Any, game_id: str, count: int) -> None:
    """Open `count` closed safe cells of the page's own board (clicks, as a player)."""
    for x, y in safe_cells(board_of(game_id))[:count]:
        if own_cell(page, x, y).get_attribute("data-v") == "#":
            own_cell(page, x, y).click()
            expect(own_cell(page, x, y)).not_to_have_attribute("data-v", "#")


def create_and_join(alice_page: Any, bob_page: Any) -> str:
    """alice creates a Beginner race from the lobby, bob joins it by its code."""
    alice_page.goto("/races")
    expect(alice_page.locator("#site-menu nav a[href='/races']")).to_have_attribute(
        "aria-current", "page"
    )
    alice_page.select_option("#create-race select[name=level]", "beginner")
    alice_page.click("#create-race button[type=submit]")
    alice_page.wait_for_url(RACE_URL)
    expect(alice_page.locator("#race-code")).to_have_text(re.compile(r"^[A-Z0-9]{4,12}$"))
    code = alice_page.locator("#race-code").inner_text()
    bob_page.goto("/races")
    expect(bob_page.locator(f'#open-races li[data-code="{code}"]')).to_be_visible()
    bob_page.fill("#join-code input[name=code]", code.lower())
    bob_page.click("#join-code button[type=submit]")
    bob_page.wait_for_url(alice_page.url)
    return code


@pytest.mark.usefixtures("established_ratings")  # the races board after one race
def test_two_browsers_race_on_beginner_from_the_lobby_to_the_results(
    desktop: Any, laptop: Any, race_clock: RaceClock
) -> None:
    sign_up_by_api(desktop, "alice")
    sign_up_by_api(laptop, "bob")
    alice, bob = desktop.new_page(), laptop.new_page()
    create_and_join(alice, bob)

    # The room: both racers, the host's Start, the ready marks.
    for page in (alice, bob):
        expect(page.locator("#room-racers li")).to_have_count(2)
    expect(alice.locator("#race-start")).to_be_visible()
    expect(bob.locator("#race-start")).to_be_hidden()
    expect(alice.locator("#room-racers li[data-player=alice]")).to_contain_text("alice")
    alice.goto("/races")  # the lobby shows the race she is in, with its ready toggle
    expect(alice.locator("#my-race")).to_be_visible()
    screenshot(alice, "race-lobby")
    alice.click("#my-race-ready")
    expect(alice.locator("#my-race-ready")).to_have_attribute("aria-pressed", "true")
    alice.click("#my-race a.btn-primary")
    alice.wait_for_url(bob.url)
    expect(bob.locator("#room-racers li[data-player=alice]")).to_have_attribute(
        "data-ready", "true"
    )
    # bob is ready too: the countdown runs (3-2-1 from the server's starts_at), then the start.
    for page in (alice, bob):
        watch_the_start(page)
    bob.click("#race-ready")
    for page in (alice, bob):
        expect(page.locator("#race-countdown")).to_have_text(re.compile(r"^[123]$"))
    for page in (alice, bob):
        expect(page.locator("#race")).to_have_attribute("data-state", "running")
        expect(page.locator("#board .cell")).to_have_count(81)
        expect(page.locator("#pause")).to_be_hidden()  # a race game cannot be paused
        expect(page.locator("#bars li")).to_have_count(2)

    alice_game, bob_game = racer_game(alice, "alice"), racer_game(bob, "bob")
    # The server opened the start cell for both: the same opening on both boards.
    opened = alice.locator('#board .cell:not([data-v="#"])').count()
    assert opened > 0
    expect(bob.locator('#board .cell:not([data-v="#"])')).to_have_count(opened)

    # Each sees the other's bar move live, and never the other's board.
    before = int(bob.locator("#bars li[data-player=alice]").get_attribute("data-opened") or 0)
    open_some(alice, alice_game, 3)
    expect(bob.locator("#bars li[data-player=alice]")).not_to_have_attribute(
        "data-opened", str(before)
    )
    before_bob = int(alice.locator("#bars li[data-player=bob]").get_attribute("data-opened") or 0)
    open_some(bob, bob_game, 2)
    expect(alice.locator("#bars li[data-player=bob]")).not_to_have_attribute(
        "data-opened", str(before_bob)
    )
    expect(alice.locator("#race-countdown")).to_be_hidden()  # "Go!" is gone
    for page in (alice, bob):
        # It went as the board came, not after: a first tap never hits a cell that moves.
        assert not board_moved_at_the_start(page)
    screenshot(alice, "race-running")
    for page, rival in ((alice, bob_game), (bob, alice_game)):
        assert page.locator(".cell").count() == 81  # one board on the page: their own
        answer = page.request.get(f"/api/games/{rival}")
        assert answer.status == 200 and answer.json()["board"] is None

    # alice clears her board; bob gives up.
    open_some(alice, alice_game, 81)
    expect(alice.locator("#result")).to_contain_text("You won")
    expect(alice.locator("#my-place")).to_contain_text("place 1")
    # While bob races the winner's figures are not known yet: the box says when they come,
    # never "null"; the board shows every mine flagged and 0 left.
    expect(alice.locator("#result")).to_contain_text(
        "Your 3BV, 3BV/s and efficiency are shown when the race ends."
    )
    expect(alice.locator("#result")).not_to_contain_text("null")
    expect(alice.locator("#mines-left")).to_have_text("0")
    expect(alice.locator('#board .cell[data-v="F"]')).to_have_count(10)
    expect(bob.locator("#bars li[data-player=alice]")).to_have_attribute("data-state", "won")
    bob.click("#resign")
    bob.click("#ask-yes")  # "Give up this game?" in the site's dialog

    # Both see the results: places, times, rating before -> after, replays; every board.
    for page in (alice, bob):
        expect(page.locator("#race")).to_have_attribute("data-state", "finished")
        rows = page.locator("#results tbody tr")
        expect(rows).to_have_count(2)
        expect(rows.nth(0)).to_have_attribute("data-player", "alice")
        expect(rows.nth(0)).to_have_attribute("data-place", "1")
        expect(rows.nth(1)).to_have_attribute("data-place", "2")
        expect(rows.nth(0).locator("td.rating")).to_contain_text("→")
        expect(rows.nth(0).locator("td.rating")).to_contain_text("+")
        expect(rows.nth(1).locator("td.rating")).to_contain_text("\u2212")
        expect(page.locator('#results a[href$="/replay"]')).to_have_count(2)
        expect(page.locator("#final-boards .final-board .cell")).to_have_count(81)
    expect(alice.locator("#result")).to_contain_text(re.compile(r"3BV \d+"))  # her own figures
    expect(alice.locator("#result")).not_to_contain_text("shown when the race ends")
    # The race over, the rival's board is public, mines and all, and alice's own shows it.
    assert bob.request.get(f"/api/games/{alice_game}").json()["board"] is not None
    expect(bob.locator("#board .cell[data-v='*'], #board .cell[data-v='X']").first).to_be_visible()
    alice.evaluate("window.scrollTo(0, 0)")
    screenshot(alice, "race-results")

    # The profile and the leaderboard's Races tab show the race.
    alice.goto("/players/alice")
    expect(alice.locator("#race-stats tbody tr[data-level=beginner]")).to_contain_text("1")
    expect(alice.locator("#race-history li")).to_have_count(1)
    alice.goto("/leaderboards/beginner")
    alice.click("#tab-races")
    expect(alice.locator("#ranking tbody tr")).to_have_count(2)
    expect(alice.locator("#ranking tbody tr").first).to_contain_text("alice")


def test_a_quick_match_puts_two_browsers_in_the_same_race(
    desktop: Any, laptop: Any, race_clock: RaceClock
) -> None:
    sign_up_by_api(desktop, "carol")
    sign_up_by_api(laptop, "dave")
    pages = [desktop.new_page(), laptop.new_page()]
    for page in pages:
        page.goto("/races")
        page.click('[data-quick="beginner"]')
    expect(pages[0].locator("#queue-wait")).to_be_visible()
    expect(pages[0].locator("#queue-text")).to_contain_text("Beginner")
    for page in pages:
        page.wait_for_url(RACE_URL, timeout=20_000)
    assert pages[0].url == pages[1].url
    for page in pages:
        expect(page.locator("#race")).to_have_attribute("data-state", "running")
        expect(page.locator("#board .cell")).to_have_count(81)

    # Back in the lobby with the queue's mark still set (another tab was waiting): the matched
    # place and the list of carol's races both lead to the race, and the lobby goes there once;
    # a second navigation would abort the first.
    carol, race_url = pages[0], pages[0].url
    carol.evaluate("localStorage.setItem('race-queued', 'beginner')")
    documents: list[str] = []
    aborted: list[str] = []
    carol.on(
        "request", lambda r: documents.append(r.url) if r.resource_type == "document" else None
    )
    carol.on(
        "requestfailed", lambda r: aborted.append(r.url) if r.resource_type == "document" else None
    )
    carol.goto("/races")
    carol.wait_for_url(race_url)
    expect(carol.locator("#race")).to_have_attribute("data-state", "running")
    assert [u for u in documents if u == race_url] == [race_url]
    assert aborted == []
    assert carol.evaluate("localStorage.getItem('race-queued')") is None


def test_the_race_page_fits_a_phone(phone: Any, laptop: Any, race_clock: RaceClock) -> None:
    sign_up_by_api(phone, "erin")
    sign_up_by_api(laptop, "frank")
    erin, frank = phone.new_page(), laptop.new_page()
    erin.goto("/races")
    assert erin.evaluate("document.documentElement.scrollWidth") <= 360
    create_and_join(erin, frank)
    # Eight racers, the most a race takes: the six others join through the API.
    race_id = erin.url.rsplit("/", 1)[1]
    for n in range(6):
        rival = User.objects.create_user(username=f"rival{n}", password=PASSWORD)
        assert client_for(rival).post(f"/api/races/{race_id}/join").status_code == 200
    expect(erin.locator("#room-racers li")).to_have_count(8)
    assert erin.evaluate("document.documentElement.scrollWidth") <= 360
    erin.click("#race-start")
    expect(erin.locator("#race")).to_have_attribute("data-state", "running")
    expect(erin.locator("#board .cell")).to_have_count(81)
    # A strip, not a card per racer: a line each, and past four the strip scrolls, so the
    # board of eight racers starts in the upper 60 % of the screen (at 530 px with three cards).
    expect(erin.locator("#bars li")).to_have_count(8)
    heights = erin.locator("#bars li").evaluate_all("rows => rows.map((r) => r.offsetHeight)")
    assert max(heights) <= 30, heights
    expect(erin.locator("#race-countdown")).to_be_hidden()
    erin.evaluate("window.scrollTo(0, 0)")
    frame = erin.locator("#board-wrap").bounding_box()
    screenshot(erin, "race-phone-eight")
    assert frame is not None and frame["y"] < 0.6 * 740, frame
    bar = erin.locator("#bars li[data-player=frank]")
    before = bar.get_attribute("data-opened") or "0"
    open_some(frank, racer_game(frank, "frank"), 2)
    expect(bar).not_to_have_attribute("data-opened", before)
    assert erin.evaluate("document.documentElement.scrollWidth") <= 360
    box = erin.locator("#board").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 360
    expect(erin.locator("#race-countdown")).to_be_hidden()
    erin.evaluate("window.scrollTo(0, 0)")
    screenshot(erin, "race-phone")
