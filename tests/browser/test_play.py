"""A new player signs up, plays, wins and finds the win on the leaderboard and the profile
in real Chromium. Rules cited from RULES.md."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from games.play.models import Game
from tests.support.boards import chord_target, neighbours
from tests.support.browser import (
    beginner_after_first_tap,
    cell,
    long_press_by_touch,
    new_player_game,
    open_every_safe_cell,
    screenshot,
    settle,
    sign_up_by_api,
    start_game,
)
from tests.support.personas import PASSWORD


def test_a_new_player_signs_up_flags_three_ways_chords_pauses_and_wins(desktop: Any) -> None:
    page = desktop.new_page()
    page.goto("/signup")
    page.fill("input[name=username]", "carol")
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url("**/")
    expect(page.locator("body")).to_have_attribute("data-user", "carol")

    game_id = start_game(page, "beginner")
    expect(page.locator("#board .cell")).to_have_count(81)
    expect(page.locator("#mines-left")).to_have_text("10")

    # Flagging before the first tap is refused (RULES.md, Flags): no request, a hint.
    cell(page, 0, 0).click(button="right")
    expect(page.locator("#status")).to_contain_text("open a cell first")
    expect(cell(page, 0, 0)).to_have_attribute("data-v", "#")

    cell(page, 4, 4).click()
    expect(cell(page, 4, 4)).to_have_attribute("data-v", "0")  # the protected first tap
    board, mines, rows = beginner_after_first_tap()
    for y, row in enumerate(rows):
        for x, v in enumerate(row):
            expect(cell(page, x, y)).to_have_attribute("data-v", v)

    number, its_mines = chord_target(board, mines)
    ways = ["right-click", "long-press", "flag-mode"]
    for i, (mx, my) in enumerate(its_mines):
        way = ways[i % 3]
        if way == "right-click":
            cell(page, mx, my).click(button="right")
        elif way == "long-press":
            # A finger held on the cell (a held mouse button opens: tests/browser/test_settings.py).
            long_press_by_touch(page, cell(page, mx, my))
            # Mouse events this soon after a touch are the touch's own (board.js ignores them).
            page.wait_for_timeout(900)
        else:
            page.click("#flag-mode")
            expect(page.locator("#flag-mode")).to_have_attribute("aria-pressed", "true")
            cell(page, mx, my).click()
            expect(cell(page, mx, my)).to_have_attribute("data-v", "F")
            page.click("#flag-mode")
            expect(page.locator("#flag-mode")).to_have_attribute("aria-pressed", "false")
        expect(cell(page, mx, my)).to_have_attribute("data-v", "F")
    expect(page.locator("#mines-left")).to_have_text(str(10 - len(its_mines)))
    # A flagged cell does not open when tapped.
    cell(page, *its_mines[0]).click()
    expect(cell(page, *its_mines[0])).to_have_attribute("data-v", "F")

    # The chord: tapping the number opens its closed unflagged neighbours.
    cell(page, *number).click()
    for c in neighbours(*number, 9, 9):
        if c not in mines:
            expect(cell(page, *c)).not_to_have_attribute("data-v", "#")

    # Pausing a ranked game asks first (RULES.md, Fair play: a pause unranks it); keeping on
    # playing keeps the win rankable. Pause hiding the board: test_fairplay.py.
    page.click("#pause")
    page.click("#keep-playing")
    expect(page.locator("#board")).to_be_visible()

    # Open every remaining safe cell.
    for y in range(9):
        for x in range(9):
            if (x, y) in mines:
                continue
            if cell(page, x, y).get_attribute("data-v") == "#":
                cell(page, x, y).click()
                expect(cell(page, x, y)).not_to_have_attribute("data-v", "#")
    expect(page.locator("#result")).to_be_visible()
    expect(page.locator("#status")).to_contain_text("You won")
    # A won game flags the mines left unflagged and counts 0 left, as every Minesweeper does
    # here the player had flagged only some of them.
    assert len(its_mines) < len(mines)
    for mx, my in mines:
        expect(cell(page, mx, my)).to_have_attribute("data-v", "F")
    expect(page.locator("#mines-left")).to_have_text("0")
    screenshot(page, "won-mines-flagged")

    page.goto("/leaderboards/beginner")
    row = page.locator("#ranking tbody tr", has_text="carol")
    expect(row).to_have_count(1)
    expect(row).to_have_class("me")
    page.click("#jump-me")
    expect(page.locator("#ranking tr.me")).to_be_visible()
    screenshot(page, "leaderboards")
    page.click("[data-kind=speed]")
    expect(page.locator("#ranking thead")).to_contain_text("3BV/s")
    expect(page.locator("#ranking tr.me")).to_contain_text("carol")
    page.click("[data-kind=streaks]")
    expect(page.locator("#ranking tr.me td").nth(2)).to_have_text("1")  # best streak

    page.goto("/players/carol")
    beginner = page.locator('#stats tr[data-level="beginner"]')
    expect(beginner.locator("td").nth(0)).to_have_text("1")  # played
    expect(beginner.locator("td").nth(1)).to_have_text("1")  # won
    expect(page.locator("#chart svg circle")).to_have_count(1)
    expect(page.locator(f"#recent a[href*='{game_id}']")).to_have_count(1)
    screenshot(page, "profile")

    # The replay steps through the finished game back to its final picture.
    page.goto(f"/games/{game_id}/replay")
    expect(page.locator("#board .cell")).to_have_count(81)
    page.click("#last")
    for mx, my in mines:
        expect(cell(page, mx, my)).to_have_attribute("data-v", "F")
    page.click("#first")
    expect(cell(page, 4, 4)).to_have_attribute("data-v", "#")
    page.click("#forward")
    expect(cell(page, 4, 4)).to_have_attribute("data-v", "0")
    # The step's text names the cell as its label does, counting from 1.
    expect(page.locator("#step-info")).to_contain_text("open column 5, row 5 at")
    expect(cell(page, 4, 4)).to_have_attribute("aria-label", "empty, column 5, row 5")


def test_a_lost_game_shows_the_mine_hit_and_offers_a_new_game_in_one_click(desktop: Any) -> None:
    page, _ = new_player_game(desktop, "dave", "beginner")
    cell(page, 4, 4).click()
    expect(cell(page, 4, 4)).to_have_attribute("data-v", "0")
    _, found, rows = beginner_after_first_tap()
    mines = sorted(found)
    safe_closed = next(
        (x, y)
        for y, row in enumerate(rows)
        for x, v in enumerate(row)
        if v == "#" and (x, y) not in mines
    )
    cell(page, *safe_closed).click(button="right")  # a wrong flag
    expect(cell(page, *safe_closed)).to_have_attribute("data-v", "F")
    cell(page, *mines[0]).click()
    expect(cell(page, *mines[0])).to_have_attribute("data-v", "X")
    expect(cell(page, *safe_closed)).to_have_attribute("data-v", "!")
    expect(cell(page, *mines[1])).to_have_attribute("data-v", "*")
    expect(page.locator("#status")).to_contain_text("opened a mine")
    screenshot(page, "lost")  # the mine hit, the wrong flag, the other mines
    old = page.url
    page.locator("#result button", has_text="New game").click()
    page.wait_for_url(lambda url: url != old and "/games/" in url)
    expect(page.locator("#mines-left")).to_have_text("10")


def test_keyboard_play_moves_opens_flags_and_chords(desktop: Any) -> None:
    sign_up_by_api(desktop, "erin")
    page = desktop.new_page()
    posts: list[str] = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)
    start_game(page, "beginner")
    expect(page.locator("#game")).to_have_attribute("data-live", "socket")
    posts.clear()
    expect(page.locator("#keys-help")).to_contain_text("Arrow keys")
    page.locator("#board .cell[tabindex='0']").focus()
    focused = page.locator("#board .cell:focus")
    expect(focused).to_have_attribute("data-x", "4")
    page.keyboard.press("Enter")
    expect(cell(page, 4, 4)).to_have_attribute("data-v", "0")
    board, mines, _ = beginner_after_first_tap()
    number, its_mines = chord_target(board, mines)

    def go(x: int, y: int) -> None:
        cx, cy = int(focused.get_attribute("data-x")), int(focused.get_attribute("data-y"))
        for _ in range(abs(x - cx)):
            page.keyboard.press("ArrowRight" if x > cx else "ArrowLeft")
        for _ in range(abs(y - cy)):
            page.keyboard.press("ArrowDown" if y > cy else "ArrowUp")
        expect(focused).to_have_attribute("data-x", str(x))
        expect(focused).to_have_attribute("data-y", str(y))

    for m in its_mines:
        go(*m)
        page.keyboard.press("f")
        expect(cell(page, *m)).to_have_attribute("data-v", "F")
        expect(cell(page, *m)).to_have_attribute(
            "aria-label", f"flag, column {m[0] + 1}, row {m[1] + 1}"
        )
    go(*number)
    page.keyboard.press("d")
    for c in neighbours(*number, 9, 9):
        if c not in mines:
            expect(cell(page, *c)).not_to_have_attribute("data-v", "#")
    expect(page.locator("#board")).to_have_attribute("role", "grid")
    # With the socket open, no move went over REST: the socket carries the moves.
    assert not [url for url in posts if url.rsplit("/", 1)[-1] in ("reveal", "flag", "chord")]
    page.keyboard.press("p")
    page.click("#pause-anyway")  # a ranked game asks first (RULES.md, Fair play)
    expect(page.locator("#board")).to_be_hidden()


def test_the_mine_counter_goes_below_zero_and_the_clock_ticks_without_sending_time(
    desktop: Any,
) -> None:
    sign_up_by_api(desktop, "mallory")
    page = desktop.new_page()
    bodies: list[str] = []
    page.on("request", lambda r: bodies.append(r.post_data or "") if r.method == "POST" else None)
    page.on("websocket", lambda ws: ws.on("framesent", lambda payload: bodies.append(str(payload))))
    start_game(page, "beginner")
    expect(page.locator("#game")).to_have_attribute("data-live", "socket")
    cell(page, 4, 4).click()
    expect(cell(page, 4, 4)).to_have_attribute("data-v", "0")
    _, _, rows = beginner_after_first_tap()
    closed = [(x, y) for y, row in enumerate(rows) for x, v in enumerate(row) if v == "#"]
    for c in closed[:11]:  # more flags than mines (RULES.md, Flags: unlimited)
        cell(page, *c).click(button="right")
        expect(cell(page, *c)).to_have_attribute("data-v", "F")
    expect(page.locator("#mines-left")).to_have_text("-1")
    # The clock runs on between answers from the server's time; no time is ever sent.
    first = float(page.locator("#clock").inner_text())
    page.wait_for_timeout(1200)
    assert float(page.locator("#clock").inner_text()) >= first + 1
    assert bodies and not [b for b in bodies if "elapsed" in b or "time" in b]


def test_the_middle_mouse_button_chords_like_on_the_classic_desktop_game(desktop: Any) -> None:
    page, _ = new_player_game(desktop, "wanda", "beginner")
    cell(page, 4, 4).click()
    expect(cell(page, 4, 4)).to_have_attribute("data-v", "0")
    board, mines, _ = beginner_after_first_tap()
    number, its_mines = chord_target(board, mines)
    for m in its_mines:
        cell(page, *m).click(button="right")
        expect(cell(page, *m)).to_have_attribute("data-v", "F")
    cell(page, *number).click(button="middle")
    for c in neighbours(*number, 9, 9):
        if c not in mines:
            expect(cell(page, *c)).not_to_have_attribute("data-v", "#")
    settle(page)


def _win_in_the_page(page: Any, game_id: str) -> None:
    expect(cell(page, 4, 4)).not_to_have_attribute("data-v", "#")  # the first tap is stored
    open_every_safe_cell(page, game_id)


def test_a_win_says_whether_it_is_a_personal_best_and_where_it_ranks(desktop: Any) -> None:
    sign_up_by_api(desktop, "vera")
    page = desktop.new_page()
    game_id = start_game(page, "beginner")
    cell(page, 4, 4).click()
    _win_in_the_page(page, game_id)
    note = page.locator("#rank-result")
    expect(note).to_have_text("A personal best! #1 on the Beginner times board.")
    expect(note).to_have_attribute("data-best", "true")
    screenshot(page, "walk-personal-best")
    # A slower second win keeps the first as the best.
    Game.objects.filter(pk=game_id).update(elapsed_ms=1)
    from accounts.standings.models import PersonalRecord

    PersonalRecord.objects.filter(user__username="vera").update(score=1)
    second = start_game(page, "beginner")
    cell(page, 4, 4).click()
    _win_in_the_page(page, second)
    expect(note).to_have_attribute("data-best", "false")
    expect(note).to_contain_text("#1 on the Beginner times board")
