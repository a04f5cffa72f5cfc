"""Arenas in real Chromium (docs/ARENAS.md, The site). First: alice creates an arena from
/arenas, alice and bob join it in two browsers, the race clock (running in the test process as
in a server's, tests/support/races.py) pairs them, the race is played on the race page by both
(bob hits a mine, alice clears her board), and the arena page and a spectator's show the
standings change live. Second: after a first race played through the API, the second one forms
by itself on alice's arena page and on bob's page of the race he lost, alice's second win lights
her fire, the test brings the arena's end forward (the controlled clock: `Arena.ends_at` and
`deadline` moved to now, as tests/arenas/test_arena_of_bots.py does) and the three open pages
show the podium. Third: the same arena, both races played through the API, once finished: the
podium stays after a reload, the list files it under the finished arenas, and the profiles show
the arena record. The arena pages fit a 360 px phone."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from django.utils import timezone
from playwright.sync_api import expect

from games.arenas import rules, services
from games.arenas.models import Arena, ArenaEntry
from games.races.clock import RaceClock
from games.races.models import Race
from tests.support.boards import board_of, mine_cell, safe_cells
from tests.support.browser import new_context, screenshot, sign_up_by_api, speaking, token_for

ARENA_URL = re.compile(r"/arenas/[0-9a-f-]{36}$")
RACE_URL = re.compile(r"/races/[0-9a-f-]{36}$")
PAIRED_S = 30_000  # a pairing: the next tick of the clock (the rematch wait is brought forward)


def own_cell(page: Any, x: int, y: int) -> Any:
    return page.locator(f'#board .cell[data-x="{x}"][data-y="{y}"]')


def my_game(page: Any, player: str) -> str:
    """The racer's game in the race the page shows (GET /api/races/{id}, as the page reads it)."""
    race = page.request.get("/api/races/" + page.url.rsplit("/", 1)[1]).json()
    return str(next(r["game"] for r in race["racers"] if r["player"] == player))


def racing(page: Any) -> None:
    """The race page of a race that has started: the racer's own board is there."""
    expect(page.locator("#race")).to_have_attribute("data-state", "running")
    expect(page.locator("#board .cell")).to_have_count(81)


def clear_board(page: Any, game_id: str) -> None:
    """Open every safe cell of the page's own board by clicking it, as a player does."""
    for x, y in safe_cells(board_of(game_id)):
        if own_cell(page, x, y).get_attribute("data-v") == "#":
            own_cell(page, x, y).click()
            expect(own_cell(page, x, y)).not_to_have_attribute("data-v", "#")
    expect(page.locator("#result")).to_contain_text("You won")


def open_then_hit_a_mine(page: Any, game_id: str) -> None:
    """One safe cell (a move of the racer's own: the race counts them in), then a mine."""
    x, y = safe_cells(board_of(game_id))[0]
    own_cell(page, x, y).click()
    expect(own_cell(page, x, y)).not_to_have_attribute("data-v", "#")
    x, y = mine_cell(board_of(game_id))
    own_cell(page, x, y).click()
    expect(page.locator("#result")).to_contain_text("You opened a mine.")


def _back_in_the_pool(arena_id: str, first_race: str) -> tuple[Any, Any]:
    """The two racers' entries back in the pool after `first_race`, and those already in a
    next race, once the two of them are one or the other."""
    entries = ArenaEntry.objects.filter(arena_id=arena_id, active=True)
    back = entries.filter(race__isnull=True, waiting_since__isnull=False)
    paired_again = entries.filter(race__isnull=False).exclude(race_id=first_race)
    deadline = time.monotonic() + 30
    while back.count() + paired_again.count() < 2:
        assert time.monotonic() < deadline, "the two racers never came back to the pool"
        time.sleep(0.05)
    return back, paired_again


def hold_the_rematch(arena_id: str, first_race: str) -> None:
    """The controlled clock, first half. The same two players, alone in the pool after racing
    each other alone, wait REMATCH_WAIT_MS for a third (games.arenas.rules.pair): as soon as
    both are back, their waiting is moved an hour ahead, so that a loaded machine cannot let
    the wait run out by itself before both pages are open and following the arena (a page
    opened after the race formed shows it on a card, and does not go to it by itself)."""
    back, _paired_again = _back_in_the_pool(arena_id, first_race)
    back.update(waiting_since=timezone.now() + timedelta(hours=1))


def bring_the_rematch_wait_forward(arena_id: str, first_race: str) -> None:
    """The controlled clock, second half: their waiting started REMATCH_WAIT_MS ago, and the
    next tick pairs them. Had the clock paired them before hold_the_rematch (a stall of over
    REMATCH_WAIT_MS between two statements), there is nothing to bring forward."""
    back, paired_again = _back_in_the_pool(arena_id, first_race)
    if paired_again.exists():
        return
    earlier = timezone.now() - timedelta(milliseconds=rules.REMATCH_WAIT_MS + 1000)
    assert back.update(waiting_since=earlier) == 2


def start_now(race_id: Any) -> None:
    """The controlled clock: the race's countdown ends now, and the clock starts the race at
    its next tick (the race pages' own countdown, 3-2-1 and the start, is tests/browser/
    test_races.py's). A race the clock has started already matches nothing here."""
    now = timezone.now()
    Race.objects.filter(pk=race_id, state="countdown").update(starts_at=now, deadline=now)


def race_once(
    alice: Any, bob: Any, after: str = "", started: Callable[[], None] | None = None
) -> str:
    """Both pages go to the same race (not the race `after`, where a page may still be): bob
    hits a mine, alice clears her board; the race ends. `started` is called once both race.
    Returns the race's id."""
    next_race = re.compile(rf"/races/(?!{after}$)[0-9a-f-]{{36}}$") if after else RACE_URL
    expect(alice).to_have_url(next_race, timeout=PAIRED_S)
    expect(bob).to_have_url(next_race, timeout=PAIRED_S)
    assert alice.url == bob.url
    start_now(alice.url.rsplit("/", 1)[1])
    for page in (alice, bob):
        racing(page)
        expect(page.locator("#race-arena-link")).to_be_visible()  # the way back to the arena
    if started is not None:
        started()
    open_then_hit_a_mine(bob, my_game(bob, "bob"))
    # bob's game is over: he is back in the arena's pool, and his race page says so.
    expect(bob.locator("#race-arena-note")).to_contain_text("back in the arena's pool")
    clear_board(alice, my_game(alice, "alice"))
    for page in (alice, bob):
        expect(page.locator("#race")).to_have_attribute("data-state", "finished")
        expect(page.locator("#another-race")).to_have_text("Back to the arena")
    return str(alice.url.rsplit("/", 1)[1])


def race_by_api(
    arena_id: str, alice: Any, bob: Any, started: Callable[[], None] | None = None
) -> str:
    """The arena's next race played through the API, as any client would (`alice` and `bob`:
    each a browser context and its token header): bob opens a safe cell then a mine, alice
    clears her board. `started` is called once the race runs. Returns the race's id once it
    has ended."""
    entries = ArenaEntry.objects.filter(arena_id=arena_id, race__isnull=False)
    deadline = time.monotonic() + 2 * PAIRED_S / 1000
    while entries.count() < 2:
        assert time.monotonic() < deadline, "the clock never paired the two"
        time.sleep(0.05)
    race = entries[0].race
    start_now(race.pk)
    while Race.objects.get(pk=race.pk).state != "running":
        assert time.monotonic() < deadline, "the race never started"
        time.sleep(0.05)
    if started is not None:
        started()

    def reveal(player: Any, game: str, cell: tuple[int, int]) -> None:
        context, head = player
        x, y = cell
        answer = context.request.post(
            f"/api/games/{game}/reveal", headers=head, data={"x": x, "y": y}
        )
        assert answer.status == 200, answer.text()

    games = {r.player.username: str(r.game_id) for r in race.racers.select_related("player")}
    reveal(bob, games["bob"], safe_cells(board_of(games["bob"]))[0])
    reveal(bob, games["bob"], mine_cell(board_of(games["bob"])))
    while closed := safe_cells(board_of(games["alice"])):
        reveal(alice, games["alice"], closed[0])
    while Race.objects.get(pk=race.pk).state != "finished":
        assert time.monotonic() < deadline, "the race never ended"
        time.sleep(0.05)
    return str(race.id)


def arena_of_two_by_api(alice: Any, bob: Any) -> tuple[str, Any, Any]:
    """alice and bob signed up in the browser contexts `alice` and `bob`; alice creates a
    Beginner arena through the API and both join it. Returns its id and each player as
    race_by_api takes them (the context and its token header)."""
    sign_up_by_api(alice, "alice")
    sign_up_by_api(bob, "bob")
    as_alice, as_bob = (alice, token_for(alice, "alice")), (bob, token_for(bob, "bob"))
    made = alice.request.post(
        "/api/arenas",
        headers=as_alice[1],
        data={"name": "Friday Beginner", "level": "beginner", "minutes": 20},
    )
    assert made.status == 201, made.text()
    arena_id = str(made.json()["id"])
    for context, head in (as_alice, as_bob):
        joined = context.request.post(f"/api/arenas/{arena_id}/join", headers=head)
        assert joined.status == 200, joined.text()
    return arena_id, as_alice, as_bob


def end_soon(arena_id: str) -> None:
    """The controlled clock: the arena's end brought to now while its last race runs. The race
    still ends and counts, and no race forms after it: once bob is back in the pool his rematch
    wait runs, and had alice taken 15 s to clear her board, the two would have been paired
    again at once."""
    end = timezone.now() + timedelta(seconds=1)
    assert Arena.objects.filter(pk=arena_id).update(ends_at=end, deadline=end) == 1


def shows_the_podium(page: Any) -> None:
    """The arena page of the finished arena: alice first with her two wins' 8 points, bob
    second, and nothing left to join or leave."""
    expect(page.locator("#arena")).to_have_attribute("data-state", "finished")
    podium = page.locator("#podium li")
    expect(podium).to_have_count(2)
    expect(podium.nth(0)).to_have_attribute("data-player", "alice")
    expect(podium.nth(0)).to_contain_text("8 points")
    expect(podium.nth(1)).to_have_attribute("data-player", "bob")
    expect(page.locator("#arena-join")).to_be_hidden()
    expect(page.locator("#arena-leave")).to_be_hidden()


def standing(page: Any, player: str) -> Any:
    return page.locator(f"#standings tbody tr[data-player={player}]")


def test_two_players_race_in_an_arena_and_the_standings_change_live(
    browser: Any, live: str, desktop: Any, laptop: Any, race_clock: RaceClock
) -> None:
    sign_up_by_api(desktop, "alice")
    sign_up_by_api(laptop, "bob")
    alice, bob = desktop.new_page(), laptop.new_page()

    # alice creates an arena from the list: Beginner, now, 20 minutes.
    alice.goto("/arenas")
    expect(alice.locator("#site-menu nav a[href='/arenas']")).to_have_attribute(
        "aria-current", "page"
    )
    alice.fill("#create-arena input[name=name]", "Friday Beginner")
    alice.select_option("#create-arena select[name=level]", "beginner")
    alice.fill("#create-arena input[name=minutes]", "20")
    alice.click("#create-arena button[type=submit]")
    alice.wait_for_url(ARENA_URL)
    arena_id = alice.url.rsplit("/", 1)[1]
    expect(alice.locator("#arena")).to_have_attribute("data-state", "running")
    expect(alice.locator("#arena-title")).to_have_text("Friday Beginner")
    expect(alice.locator("#arena-when")).to_have_text("Ends in")
    expect(alice.locator("#arena-clock")).to_have_text(re.compile(r"^(20:00|19:5\d)$"))
    expect(alice.locator("#standings-empty")).to_be_visible()

    # A spectator, signed in as nobody, watches the standings live.
    watching = new_context(browser, live, 1280, 860)
    watcher = watching.new_page()
    watcher.goto(f"/arenas/{arena_id}")
    expect(watcher.locator("#standings-live")).to_be_visible()  # the socket is live
    expect(watcher.locator("#arena-join")).to_be_hidden()
    expect(watcher.locator("#arena-signin")).to_be_visible()

    # bob finds it in the list of running arenas; both join.
    bob.goto("/arenas")
    row = bob.locator(f'#arenas-running li[data-arena="{arena_id}"]')
    expect(row).to_contain_text("Friday Beginner")
    expect(row).to_contain_text("Beginner · 20 min")
    screenshot(bob, "arenas-list")
    row.locator("a.btn").click()
    bob.wait_for_url(f"**/arenas/{arena_id}")
    alice.click("#arena-join")
    expect(alice.locator("#arena-leave")).to_be_visible()
    expect(alice.locator("#arena-hint")).to_contain_text("You are in the pool")
    expect(standing(watcher, "alice")).to_be_visible()  # the join reached the spectator live
    expect(standing(alice, "alice")).to_have_class(re.compile(r"\bme\b"))
    bob.click("#arena-join")

    # The clock pairs them: both arena pages go to the race page by themselves.
    race_once(alice, bob)
    expect(standing(watcher, "alice")).to_have_attribute("data-score", "4")
    expect(standing(watcher, "bob")).to_have_attribute("data-score", "0")
    expect(standing(watcher, "alice")).to_have_attribute("data-rank", "1")
    expect(standing(watcher, "alice")).to_have_attribute("data-fire", "false")

    # alice goes back to the arena: the standings with her row, her rank and points.
    alice.click("#race-arena-link")
    alice.wait_for_url(f"**/arenas/{arena_id}")
    expect(standing(alice, "alice")).to_have_attribute("data-score", "4")
    expect(standing(alice, "alice").locator("td").nth(4)).to_have_text("1")  # a win
    expect(alice.locator("#arena-you [data-me=rank] b")).to_have_text("#1")
    expect(alice.locator("#arena-you [data-me=score] b")).to_have_text("4")
    expect(alice.locator("#arena-mine")).to_be_hidden()  # her last race is over
    screenshot(alice, "arena-standings")
    watching.close()


def test_a_second_win_lights_the_fire_and_the_end_shows_the_podium(
    browser: Any, live: str, desktop: Any, laptop: Any, race_clock: RaceClock
) -> None:
    arena_id, as_alice, as_bob = arena_of_two_by_api(desktop, laptop)
    # Their first race, through the API: alice wins it, bob opens a mine.
    first = race_by_api(arena_id, as_alice, as_bob)
    hold_the_rematch(arena_id, first)

    watching = new_context(browser, live, 1280, 860)
    watcher = watching.new_page()
    watcher.goto(f"/arenas/{arena_id}")
    expect(standing(watcher, "alice")).to_have_attribute("data-score", "4")
    # alice waits on the arena's page; bob is still on the page of the race he lost, which
    # follows the arena's feed and takes him to his next race.
    alice, bob = desktop.new_page(), laptop.new_page()
    alice.goto(f"/arenas/{arena_id}")
    bob.goto(f"/races/{first}")
    expect(bob.locator("#race-arena-note")).to_contain_text("back in the arena's pool")
    expect(alice.locator("#standings-live")).to_be_visible()  # alice's page follows the arena

    # The second race forms (the same two wait 15 s for a third player first, brought forward
    # here): alice's arena page and bob's race page both go to it by themselves.
    bring_the_rematch_wait_forward(arena_id, first)
    second = race_once(alice, bob, after=first, started=lambda: end_soon(arena_id))
    assert second != first
    # Two wins in a row: the fire is lit, and the second win made 8 points.
    expect(standing(watcher, "alice")).to_have_attribute("data-score", "8")
    expect(standing(watcher, "alice")).to_have_attribute("data-fire", "true")
    expect(standing(watcher, "alice").locator(".fire")).to_be_visible()
    expect(standing(watcher, "bob").locator("td").nth(3)).to_have_text("2")  # two races

    # The arena finishes, before the eyes of both players and of the spectator.
    for page in (alice, bob):
        page.click("#race-arena-link")
        page.wait_for_url(f"**/arenas/{arena_id}")
    for page in (alice, bob, watcher):
        shows_the_podium(page)
    expect(alice.locator("#arena-hint")).to_contain_text("final standings")
    screenshot(alice, "arena-podium")
    watching.close()


def test_a_finished_arena_keeps_its_podium_and_the_players_records(
    desktop: Any, laptop: Any, race_clock: RaceClock
) -> None:
    # The arena of the test above, its two races played through the API: alice wins both.
    arena_id, as_alice, as_bob = arena_of_two_by_api(desktop, laptop)
    first = race_by_api(arena_id, as_alice, as_bob)
    bring_the_rematch_wait_forward(arena_id, first)
    second = race_by_api(arena_id, as_alice, as_bob, started=lambda: end_soon(arena_id))
    assert second != first
    bob = laptop.new_page()
    bob.goto(f"/arenas/{arena_id}")
    shows_the_podium(bob)  # the clock finishes the arena once the race has ended

    # The results stay: a reload shows the same podium and standings.
    bob.reload()
    expect(bob.locator("#podium li").nth(0)).to_have_attribute("data-player", "alice")
    expect(standing(bob, "bob")).to_have_class(re.compile(r"\bme\b"))
    bob.goto("/arenas")
    expect(bob.locator(f'#arenas-finished li[data-arena="{arena_id}"]')).to_be_visible()

    # The profile's arena record: one arena played, one podium, best rank 1.
    alice = desktop.new_page()
    alice.goto("/players/alice")
    expect(alice.locator("#arena-stats [data-arena-stat=played] b")).to_have_text("1")
    expect(alice.locator("#arena-stats [data-arena-stat=podiums] b")).to_have_text("1")
    expect(alice.locator("#arena-stats [data-arena-stat=best_rank] b")).to_have_text("#1")
    bob.goto("/players/bob")
    expect(bob.locator("#arena-stats [data-arena-stat=best_rank] b")).to_have_text("#2")


def test_the_arena_pages_fit_a_phone(phone: Any, laptop: Any, race_clock: RaceClock) -> None:
    sign_up_by_api(phone, "erin")
    sign_up_by_api(laptop, "frank")
    erin = phone.new_page()
    erin.goto("/arenas")
    assert erin.evaluate("document.documentElement.scrollWidth") <= 360
    # A private arena that starts later: its code, a countdown to the start.
    erin.check("#create-arena input[name=start][value=later]")
    expect(erin.locator("#create-arena input[name=starts_at]")).to_be_visible()
    erin.check("#create-arena input[name=private]")
    erin.click("#create-arena button[type=submit]")
    erin.wait_for_url(ARENA_URL)
    expect(erin.locator("#arena")).to_have_attribute("data-state", "scheduled")
    expect(erin.locator("#arena-when")).to_have_text("Starts in")
    expect(erin.locator("#arena-clock")).to_have_text(re.compile(r"^(1:00:00|59:\d\d)$"))
    erin.click("#arena-join")
    expect(erin.locator("#arena-hint")).to_contain_text("your first race forms at the start")
    # frank has the code: /arenas/<code> is the arena's short link, and he joins there.
    code = erin.locator("#arena-code").inner_text()
    frank = laptop.new_page()
    frank.goto(f"/arenas/{code.lower()}")
    expect(frank).to_have_url(erin.url)
    frank.click("#arena-join")
    expect(erin.locator("#standings tbody tr")).to_have_count(2)
    expect(erin.locator("#standings tbody tr[data-player=erin] td").first).to_have_attribute(
        "data-label", "Rank"
    )  # a card per row on a phone
    assert erin.evaluate("document.documentElement.scrollWidth") <= 360
    screenshot(erin, "arena-phone", full_page=True)
    # Not in the public list (private), but found by its code from the list's form.
    erin.goto("/arenas")
    expect(erin.locator("#scheduled-empty")).to_be_visible()
    erin.fill("#arena-code-form input[name=code]", code)
    erin.click("#arena-code-form button[type=submit]")
    erin.wait_for_url(ARENA_URL)
    expect(erin.locator("#arena-code")).to_have_text(code)


def test_one_state_line_while_racing_and_a_win_over_a_racer_who_never_moved_says_why(
    desktop: Any, laptop: Any, race_clock: RaceClock
) -> None:
    sign_up_by_api(desktop, "alice")
    sign_up_by_api(laptop, "bob")
    head = token_for(desktop, "alice")
    made = desktop.request.post(
        "/api/arenas", headers=head, data={"level": "beginner", "name": "Quiet", "minutes": 20}
    )
    assert made.status == 201, made.text()
    arena_id = made.json()["id"]
    alice = desktop.new_page()
    alice.goto(f"/arenas/{arena_id}")
    alice.click("#arena-join")
    expect(alice.locator("#arena-hint")).to_contain_text("You are in the pool")
    bob = token_for(laptop, "bob")
    assert laptop.request.post(f"/api/arenas/{arena_id}/join", headers=bob).status == 200
    expect(alice).to_have_url(RACE_URL, timeout=PAIRED_S)  # paired: off to the race
    racing(alice)

    # The arena page, opened again while her race runs, says one thing about her: the race.
    again = desktop.new_page()
    again.goto(f"/arenas/{arena_id}")
    expect(again.locator("#arena-mine-title")).to_have_text("Your race is on")
    expect(again.locator("#arena-hint")).to_have_text("")
    again.close()

    # bob gives up without a move of his own; alice clears her board: first, and alone.
    bob_game = my_game(alice, "bob")
    assert laptop.request.post(f"/api/games/{bob_game}/resign", headers=bob).status == 200
    clear_board(alice, my_game(alice, "alice"))
    expect(alice.locator("#race")).to_have_attribute("data-state", "finished")
    expect(alice.locator("#race-arena-alone")).to_be_visible()
    expect(alice.locator("#race-arena-alone")).to_contain_text(
        "nobody else in this race made a move"
    )
    alice.goto(f"/arenas/{arena_id}")
    expect(standing(alice, "alice")).to_have_attribute("data-score", "1")
    expect(standing(alice, "alice").locator("td").nth(4)).to_have_text("0")  # no win
    screenshot(alice, "arena-alone-no-win")


def test_the_servers_arenas_are_named_in_the_pages_language(
    browser: Any, live: str, settings: Any
) -> None:
    settings.ARENA_SCHEDULE = [("expert", 1440, 120, True, "humans")]
    assert services.schedule_arenas() == 1
    assert Arena.objects.get().name == "Daily Expert no-guess"  # the server's name: English
    for locale, name in (
        ("en-GB", "Daily Expert · no guess"),
        ("fr-FR", "Expert · sans hasard du jour"),
    ):
        with speaking(browser, live, locale) as context:
            page = context.new_page()
            page.goto("/arenas")
            expect(page.locator("#arenas-scheduled .arena-name")).to_have_text(name)
            page.locator("#arenas-scheduled .arena-name").click()
            expect(page.locator("#arena-title")).to_have_text(name)
