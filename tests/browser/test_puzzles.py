"""The puzzle pages in the browser (RULES.md and API.md, Puzzles; docs/FRONTEND.md, The puzzle
pages): a desktop player solves a rated puzzle by opening only cells the numbers prove safe (by
click and by keyboard, with a flag of their own that never travels), sees "Solved!", the themes
and the rating move, goes to the next puzzle and finds it all on the dashboard; a phone visitor
starts as a guest, fails a puzzle on a safe but unprovable cell, sees the solution and follows
the link to the source game's replay; a storm starts, counts down from the server's time, moves
to the next puzzle after each, and ends when the server says its time is over.

Puzzles are made in the test database by the backend's own functions (tests/support/puzzles.py,
games.puzzles.generator); the test reads a puzzle's solution from the database: it is the test's
knowledge, never the page's."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from playwright.sync_api import expect

from accounts.models import User
from games.puzzles import generator
from games.puzzles.models import Puzzle, PuzzleAttempt, PuzzleRun
from tests.support import puzzles as drawings
from tests.support.boards import game_from_ascii
from tests.support.browser import screenshot, sign_up_by_api
from tests.support.http import post
from tests.support.personas import PASSWORD, client_for

# A game bob loses on an avoidable guess: its position before the guess is a puzzle (the 1-1
# along the bottom row: (3, 4) and (5, 4) are safe), with bob's game as its source.
BOBS_LAYOUT = ["......", "......", "......", "......", "..*.*."]


def _from_bobs_game() -> Puzzle:
    bob = User.objects.create_user(username="bob", password=PASSWORD)
    api = client_for(bob)
    game = game_from_ascii(api, BOBS_LAYOUT)
    for x, y in ((0, 0), (2, 4)):
        post(api, game["id"], "reveal", {"x": x, "y": y})
    assert generator.generate_for_game(game["id"]) == 1
    return Puzzle.objects.get(source_game_id=game["id"])


def _cell(page: Any, x: int, y: int) -> Any:
    return page.locator(f'#board .cell[data-x="{x}"][data-y="{y}"]')


def _shown(page: Any) -> Puzzle:
    """The puzzle the page shows (its id is on the page's section)."""
    section = page.locator("section.puzzle")
    expect(section).to_have_attribute("data-state", "playing")
    return Puzzle.objects.get(pk=section.get_attribute("data-puzzle-id"))


def _solve_by_clicks(page: Any, puzzle: Puzzle) -> None:
    """Open the cells the numbers prove safe at the start, each provable then and after."""
    for x, y in drawings.solution_cells(puzzle):
        target = _cell(page, x, y)
        if target.get_attribute("data-v") == "#":
            target.click()
            expect(target).not_to_have_attribute("data-v", "#")


def test_a_player_solves_a_puzzle_by_click_and_keyboard_and_finds_it_on_the_dashboard(
    desktop: Any,
) -> None:
    from_bob = _from_bobs_game()
    other = drawings.store(drawings.FLOW)
    sign_up_by_api(desktop, "pia")
    page = desktop.new_page()
    opened: list[str] = []
    page.on(
        "request",
        lambda r: (
            opened.append(r.post_data or "")
            if "/api/puzzles/" in r.url and r.method == "POST"
            else None
        ),
    )
    page.goto("/")
    page.click("#site-menu nav a[href='/puzzles']")
    page.wait_for_url("**/puzzles")
    expect(page.locator("#site-menu nav a[href='/puzzles']")).to_have_attribute(
        "aria-current", "page"
    )
    puzzle = _shown(page)
    assert puzzle.id in (from_bob.id, other.id)
    expect(page.locator("#my-rating")).to_be_visible()
    expect(page.locator("#my-rating-provisional")).to_be_visible()  # a new player's rating
    expect(page.locator("#result")).to_be_hidden()
    # Before the end the page names no theme and no source.
    expect(page.locator(".puzzle-themes")).to_have_count(0)
    expect(page.locator("#source-game")).to_have_count(0)
    mines = page.locator("#mines-left")
    expect(mines).to_have_text(str(puzzle.mines))

    # A flag of the solver's own: right-click, the counter moves, nothing is sent.
    mine = drawings.a_mine(puzzle)
    _cell(page, *mine).click(button="right")
    expect(_cell(page, *mine)).to_have_attribute("data-v", "F")
    expect(mines).to_have_text(str(puzzle.mines - 1))
    assert opened == []

    # One opening by keyboard (focus, Enter), the rest by click.
    cells = drawings.solution_cells(puzzle)
    first = _cell(page, *cells[0])
    first.focus()
    page.keyboard.press("Enter")
    expect(first).not_to_have_attribute("data-v", "#")
    expect(page.locator("#status")).to_contain_text("is safe")
    _solve_by_clicks(page, puzzle)

    result = page.locator("#result")
    expect(result).to_have_attribute("data-state", "solved")
    expect(page.locator("#result-head")).to_have_text("Solved!")
    expect(page.locator(".puzzle-themes")).to_contain_text("Theme")
    expect(page.locator(".puzzle-rating-change")).to_contain_text("Your puzzle rating:")
    if puzzle.source_game_id:
        expect(page.locator("#source-game")).to_have_attribute(
            "href", f"/games/{puzzle.source_game_id}/replay"
        )
    expect(mines).to_have_text(str(puzzle.mines - 1))  # the flag stays the solver's
    assert all('"x"' in body for body in opened) and len(opened) == len(cells)  # openings only
    screenshot(page, "puzzle-solved")

    # Next puzzle: the other one, then none left.
    page.click("#next-puzzle")
    second = _shown(page)
    assert second.id != puzzle.id
    expect(page.locator("#result")).to_be_hidden()
    _solve_by_clicks(page, second)
    expect(page.locator("#result")).to_have_attribute("data-state", "solved")
    page.keyboard.press("n")
    expect(page.locator("#puzzle-sub")).to_contain_text("No puzzle is left for you to try")

    # The puzzle of the day is one of them (never a lone number's when another is there): already
    # solved, it opens on its end.
    page.click("nav.puzzle-nav a[href='/puzzles/daily']")
    expect(page.locator("#puzzle-title")).to_contain_text("Puzzle of the day · ")
    expect(page.locator("section.puzzle")).to_have_attribute("data-state", "solved")
    expect(page.locator("#result-head")).to_have_text("Solved!")

    # The dashboard: the rating, the two attempts, their themes, the chart.
    page.click("nav.puzzle-nav a[href='/puzzles/dashboard']")
    expect(page.locator('#dash-stats [data-stat="rated_attempts"] b')).to_have_text("2")
    expect(page.locator('#dash-stats [data-stat="solved"] b')).to_have_text("2")
    expect(page.locator("#rating-chart svg circle")).to_have_count(2)
    subset = page.locator('#dash-themes tr[data-theme="subset"]')
    expect(subset.locator("td").first).to_have_text("1")
    expect(page.locator("#puzzle-board tbody tr.me")).to_contain_text("pia")
    screenshot(page, "puzzle-dashboard", full_page=True)


def test_on_a_phone_a_visitor_fails_a_puzzle_and_sees_the_solution_and_the_source_game(
    phone: Any,
) -> None:
    from_bob = _from_bobs_game()
    # (5, 0) of FLOW is safe but no number proves it: opening it fails the puzzle.
    puzzle = drawings.store(drawings.FLOW, source_game=from_bob.source_game)
    from_bob.delete()  # one puzzle to pick
    page = phone.new_page()
    page.goto("/puzzles")
    expect(page.locator("#puzzle-start")).to_be_visible()
    page.click("#start-solving")  # a visitor solves at once, as a guest
    assert _shown(page).id == puzzle.id
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    screenshot(page, "puzzle-phone")
    # Flag mode: a tap flags, on the page only; then back to number mode.
    page.click("#flag-mode")
    expect(page.locator("#flag-mode")).to_have_attribute("aria-pressed", "true")
    _cell(page, 4, 0).tap()
    expect(_cell(page, 4, 0)).to_have_attribute("data-v", "F")
    page.click("#flag-mode")
    _cell(page, 2, 0).tap()  # provable: correct
    expect(_cell(page, 2, 0)).to_have_attribute("data-v", "1")
    _cell(page, 5, 0).tap()  # safe, not provable
    result = page.locator("#result")
    expect(result).to_have_attribute("data-state", "failed")
    expect(page.locator("#result-head")).to_have_text(
        "Failed: the numbers did not prove that cell safe."
    )
    expect(page.locator("#board .cell.m-wrong")).to_have_count(1)
    # The solution: the provable cells still closed are framed, and said.
    for x, y in ((3, 1), (4, 1)):
        expect(_cell(page, x, y)).to_have_attribute(
            "aria-label", f"safe: the numbers proved it, column {x + 1}, row {y + 1}"
        )
    expect(page.locator(".puzzle-solution")).to_contain_text("column 4, row 2; column 5, row 2")
    link = page.locator("#source-game")
    expect(link).to_have_attribute("href", f"/games/{from_bob.source_game_id}/replay")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    screenshot(page, "puzzle-failed-phone")
    attempt = PuzzleAttempt.objects.get(puzzle=puzzle)
    assert attempt.state == "failed" and attempt.wrong == {"x": 5, "y": 0, "mine": False}
    link.click()
    page.wait_for_url(f"**/games/{from_bob.source_game_id}/replay")

    # The streak starts on the phone too.
    drawings.store(drawings.SUBSET)
    page.goto("/puzzles/streak")
    page.click("#run-begin")
    expect(page.locator("section.puzzle-run")).to_have_attribute("data-state", "running")
    expect(page.locator("#board .cell").first).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 360


def test_a_storm_counts_down_from_the_servers_time_and_ends_when_the_server_says(
    desktop: Any,
) -> None:
    for drawing in (
        drawings.SINGLE,
        drawings.SUBSET,
        drawings.PATTERN_121,
        drawings.CHAIN,
        drawings.MINES_LEFT,
        drawings.FLOW,
    ):
        drawings.store(drawing)
    sign_up_by_api(desktop, "sven")
    page = desktop.new_page()
    page.goto("/puzzles/storm")
    expect(page.locator("#run-start")).to_be_visible()
    page.click("#run-begin")
    section = page.locator("section.puzzle-run")
    expect(section).to_have_attribute("data-state", "running")
    clock = page.locator("#storm-clock")
    expect(clock).to_have_text("3:00")  # not ticking before the first opening
    expect(page.locator("#run-line")).to_contain_text("The clock starts at your first opening.")
    first = Puzzle.objects.get(pk=section.get_attribute("data-puzzle-id"))
    _solve_by_clicks_until_next(page, first)
    expect(page.locator("#run-score")).to_have_text("1")
    expect(clock).not_to_have_text("3:00")  # ticking now, from the server's time left
    second = Puzzle.objects.get(pk=section.get_attribute("data-puzzle-id"))
    assert second.id != first.id
    # A failure: ten seconds off, and the next puzzle at once.
    x, y = drawings.a_mine(second)
    _cell(page, x, y).click()
    expect(page.locator("#status")).to_contain_text("s off the clock")
    expect(section).not_to_have_attribute("data-puzzle-id", str(second.id))
    expect(page.locator("#run-line")).to_contain_text("1 failed puzzle")
    screenshot(page, "puzzle-storm")

    # The server's time runs out (its stored start moved back): the next opening is refused and
    # the page reads the storm's end from the server.
    run = PuzzleRun.objects.get(player__username="sven", running=True)
    run.started_at = run.started_at - timedelta(minutes=3)
    run.save(update_fields=["started_at"])
    third = Puzzle.objects.get(pk=section.get_attribute("data-puzzle-id"))
    cx, cy = drawings.solution_cells(third)[0]
    _cell(page, cx, cy).click()
    expect(section).to_have_attribute("data-state", "ended")
    expect(page.locator("#result-head")).to_have_text("Storm over: 1 puzzle solved.")
    expect(page.locator("#result .run-puzzles li")).to_have_count(3)
    expect(page.locator("#run-table tbody tr.me")).to_contain_text("sven")
    screenshot(page, "puzzle-storm-over", full_page=True)
    # Each of the storm's puzzles can be looked at again, on its own page, as it ended.
    page.click("#result .run-puzzles a >> nth=0")
    page.wait_for_url(f"**/puzzles/{first.id}")
    expect(page.locator("section.puzzle")).to_have_attribute("data-state", "solved")
    expect(page.locator(".puzzle-themes")).to_be_visible()


def _solve_by_clicks_until_next(page: Any, puzzle: Puzzle) -> None:
    """Solve a storm's puzzle: the last opening hands over to the next puzzle at once."""
    section = page.locator("section.puzzle-run")
    for x, y in drawings.solution_cells(puzzle):
        if section.get_attribute("data-puzzle-id") != str(puzzle.id):
            break
        target = _cell(page, x, y)
        if target.get_attribute("data-v") == "#":
            target.click()
            page.wait_for_function(
                "([id, x, y]) => document.querySelector('section.puzzle-run').dataset.puzzleId !== id"
                ' || document.querySelector(`#board .cell[data-x="${x}"][data-y="${y}"]`).dataset.v !== \'#\'',
                arg=[str(puzzle.id), x, y],
            )
    expect(section).not_to_have_attribute("data-puzzle-id", str(puzzle.id))
