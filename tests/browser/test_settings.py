"""Settings, the dark theme, and the mouse and touch rules, in real Chromium. Each setting is
changed on the /settings page and shown to take effect; settings follow a signed-in player to
another browser and stay in a visitor's browser."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.support.boards import chord_target, neighbours
from tests.support.browser import (
    beginner_after_first_tap,
    cell,
    new_context,
    new_player_game,
    screenshot,
    sign_up_by_api,
    start_game,
    token_for,
)
from tests.support.personas import PASSWORD

LIGHT_BG = "rgb(243, 241, 236)"
DARK_BG = "rgb(17, 22, 29)"
HINT = "open a cell first"

# Records the theme <html> carries when <body> is parsed: set before the first paint.
THEME_AT_BODY = """
new MutationObserver((_, observer) => {
  if (document.body) {
    window.__themeAtBody = document.documentElement.dataset.theme || "unset";
    observer.disconnect();
  }
}).observe(document, { childList: true, subtree: true });
"""

# Counts what the page asks of the real Web Audio API (the tones still play).
AUDIO_PROBE = """
window.__tones = [];
window.__audioContexts = 0;
const start = OscillatorNode.prototype.start;
OscillatorNode.prototype.start = function (...args) {
  window.__tones.push(this.frequency.value);
  return start.apply(this, args);
};
const Real = window.AudioContext;
window.AudioContext = class extends Real {
  constructor(...args) { super(...args); window.__audioContexts += 1; }
};
"""


@pytest.fixture
def laptop(browser: Any, live: str) -> Iterator[Any]:
    context = new_context(browser, live, 1366, 768)
    yield context
    context.close()


def bg(page: Any) -> str:
    return str(page.evaluate("getComputedStyle(document.documentElement).backgroundColor"))


def device_prefers(page: Any, scheme: str) -> None:
    """The device's colour scheme changes; theme.js hears of it through the media query's
    change event (dispatched on the page's next task), so wait until the shade follows."""
    page.emulate_media(color_scheme=scheme)
    page.wait_for_function(
        "s => document.documentElement.dataset.theme !== 'system'"
        " || document.documentElement.dataset.shade === s",
        arg=scheme,
    )


def open_settings(page: Any) -> None:
    page.goto("/settings")
    expect(page.locator("#settings-form")).to_have_attribute("data-ready", "true")


def saved(page: Any, action: Any) -> None:
    """Do `action` on the settings page and wait until it is saved."""
    form = page.locator("#settings-form")
    before = form.get_attribute("data-saved")
    action()
    if before is None:
        # The page's first save: wait for the mark to appear (an absent attribute already
        # passes "not to have the value ''", which let the test go on before the save ended).
        expect(form).to_have_attribute("data-saved", re.compile(r"^\d+$"))
    else:
        expect(form).not_to_have_attribute("data-saved", before)


def set_theme(page: Any, theme: str) -> None:
    saved(page, lambda: page.check(f"input[name=theme][value={theme}]"))


def set_long_press(page: Any, ms: int) -> None:
    saved(page, lambda: page.locator("#long-press-ms").fill(str(ms)))


def local_settings(page: Any) -> dict[str, Any]:
    return dict(json.loads(page.evaluate("localStorage.getItem('demineur:settings')") or "{}"))


def first_tap(page: Any, x: int = 4, y: int = 4) -> None:
    cell(page, x, y).click()
    expect(cell(page, x, y)).not_to_have_attribute("data-v", "#")
    expect(page.locator("#game")).to_have_attribute("data-state", "playing")


def centre(locator: Any) -> tuple[float, float]:
    box = locator.bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def touch_hold(page: Any, locator: Any, ms: int) -> None:
    """A finger held on the cell for `ms`: real touch events through the DevTools protocol."""
    x, y = centre(locator)
    cdp = page.context.new_cdp_session(page)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    page.wait_for_timeout(ms)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    cdp.detach()


def pressed(page: Any) -> set[tuple[int, int]]:
    cells = page.eval_on_selector_all(
        "#board .c-pressed", "els => els.map(e => [Number(e.dataset.x), Number(e.dataset.y)])"
    )
    return {(x, y) for x, y in cells}


def win_by_api(context: Any, auth: dict[str, str], game_id: str) -> None:
    """Open every safe cell of a started seeded Beginner game (first tap at 4, 4)."""
    _, mines, _ = beginner_after_first_tap()
    rows = context.request.get(f"/api/games/{game_id}").json()["board"]
    for y in range(9):
        for x in range(9):
            if (x, y) in mines or rows[y][x] != "#":
                continue
            r = context.request.post(
                f"/api/games/{game_id}/reveal", data={"x": x, "y": y}, headers=auth
            )
            assert r.ok, r.text()
            game = r.json()["game"]
            if game["state"] == "won":
                return
            rows = game["board"]
    raise AssertionError("the seeded Beginner layout was not won")


def no_sideways_scroll(page: Any) -> None:
    width = page.evaluate("window.innerWidth")
    assert page.evaluate("document.documentElement.scrollWidth") <= width


# --- the theme -----------------------------------------------------------------------------


def test_a_visitor_picks_a_theme_kept_in_this_browser_and_applied_before_the_first_paint(
    desktop: Any,
) -> None:
    desktop.add_init_script(THEME_AT_BODY)
    page = desktop.new_page()
    page.goto("/")
    assert page.evaluate("document.documentElement.dataset.theme") == "system"
    assert bg(page) == LIGHT_BG
    # The settings page is in the menu.
    page.click("#site-menu nav a[href='/settings']")
    expect(page.locator("h1")).to_have_text("Settings")
    expect(page.locator("#settings-form")).to_have_attribute("data-ready", "true")
    expect(page.locator("#settings-where")).to_contain_text("this browser")
    expect(page.locator("input[name=theme][value=system]")).to_be_checked()
    set_theme(page, "dark")
    assert bg(page) == DARK_BG  # at once, no reload
    expect(page.locator("#settings-status")).to_have_text("Saved in this browser.")
    assert local_settings(page) == {"values": {"theme": "dark"}, "player": ""}
    for path in ("/", "/leaderboards", "/how-to-play"):
        page.goto(path)
        assert page.evaluate("window.__themeAtBody") == "dark", path
        assert bg(page) == DARK_BG, path
    # "Like the device" follows prefers-color-scheme.
    open_settings(page)
    set_theme(page, "system")
    device_prefers(page, "dark")
    assert bg(page) == DARK_BG
    device_prefers(page, "light")
    assert bg(page) == LIGHT_BG
    # Light stays light on a dark device.
    set_theme(page, "light")
    page.emulate_media(color_scheme="dark")
    page.reload()
    assert page.evaluate("window.__themeAtBody") == "light"
    assert bg(page) == LIGHT_BG
    # Nothing of it reached a server: a visitor has no account.
    assert page.evaluate("document.getElementById('account-settings')") is None


def test_settings_follow_a_signed_in_player_to_another_browser(browser: Any, live: str) -> None:
    first = new_context(browser, live, 1280, 860)
    second = new_context(browser, live, 390, 844, is_mobile=True, has_touch=True)
    try:
        sign_up_by_api(first, "sasha")
        page = first.new_page()
        open_settings(page)
        expect(page.locator("#settings-where")).to_contain_text("your account")
        set_theme(page, "dark")
        expect(page.locator("#settings-status")).to_have_text("Saved on your account.")
        set_long_press(page, 800)
        expect(page.locator("#long-press-out")).to_have_text("800 ms")
        saved(page, lambda: page.uncheck("#click-chords"))
        saved(page, lambda: page.uncheck("#animations"))
        saved(page, lambda: page.check("#sounds"))
        answer = first.request.get("/api/me/settings").json()
        assert answer == {
            "long_press_ms": 800,
            "click_chords": False,
            "animations": False,
            "sounds": True,
            "theme": "dark",
            "no_flags": False,
        }
        # The second browser signs in: the account's settings come with the first page.
        r = second.request.post(
            "/api/auth/session", data={"username": "sasha", "password": PASSWORD}
        )
        assert r.ok, r.text()
        second.add_init_script(THEME_AT_BODY)
        other = second.new_page()
        other.goto("/")
        assert other.evaluate("window.__themeAtBody") == "dark"
        assert other.evaluate("document.documentElement.dataset.animations") == "off"
        assert bg(other) == DARK_BG
        open_settings(other)
        expect(other.locator("input[name=theme][value=dark]")).to_be_checked()
        expect(other.locator("#long-press-ms")).to_have_value("800")
        expect(other.locator("#click-chords")).not_to_be_checked()
        expect(other.locator("#animations")).not_to_be_checked()
        expect(other.locator("#sounds")).to_be_checked()
        # This browser keeps a copy, written by the player.
        cache = local_settings(other)
        assert cache["player"] == "sasha" and cache["values"]["theme"] == "dark"
        no_sideways_scroll(other)
        screenshot(other, "settings-phone-dark", full_page=True)
        # A change here reaches the first browser on its next page.
        set_theme(other, "light")
        page.goto("/")
        assert bg(page) == LIGHT_BG
    finally:
        first.close()
        second.close()


def test_animations_off_stop_every_animation(desktop: Any) -> None:
    page = desktop.new_page()
    open_settings(page)
    probe = (
        "(() => { const s = document.createElement('span'); s.className = 'spinner';"
        " document.body.append(s); const n = getComputedStyle(s).animationName; s.remove();"
        " return n; })()"
    )
    assert page.evaluate(probe) == "spin"
    expect(page.locator("#animations")).to_be_checked()
    saved(page, lambda: page.uncheck("#animations"))
    assert page.evaluate(probe) == "none"
    page.reload()
    assert page.evaluate("document.documentElement.dataset.animations") == "off"
    assert page.evaluate(probe) == "none"
    screenshot(page, "settings-desktop")


def test_sounds_are_off_by_default_and_when_on_play_for_open_flag_and_the_end(
    desktop: Any,
) -> None:
    desktop.add_init_script(AUDIO_PROBE)
    page, game_id = new_player_game(desktop, "tomas", "beginner")
    first_tap(page)
    _, mines, rows = beginner_after_first_tap()
    closed_mines = [m for m in sorted(mines) if rows[m[1]][m[0]] == "#"]
    # Safe closed cells next to a mine: each opens alone (no cascade).
    safe = [
        (x, y)
        for y in range(9)
        for x in range(9)
        if rows[y][x] == "#"
        and (x, y) not in mines
        and any(c in mines for c in neighbours(x, y, 9, 9))
    ]
    cell(page, *closed_mines[0]).click(button="right")
    cell(page, *safe[0]).click()
    expect(cell(page, *safe[0])).not_to_have_attribute("data-v", "#")
    expect(page.locator("#mines-left")).to_have_text("9")
    assert page.evaluate("window.__audioContexts") == 0  # off by default: no audio at all
    assert page.evaluate("window.__tones.length") == 0

    open_settings(page)
    expect(page.locator("#sounds")).not_to_be_checked()
    saved(page, lambda: page.check("#sounds"))
    assert page.evaluate("window.__audioContexts") == 1  # the preview of what it sounds like
    assert page.evaluate("window.__tones.length") == 2

    # Leaving for the settings page and back is no pause: the page was gone for a moment, and
    # the game goes on (docs/FAIRPLAY.md, "Away from the page").
    page.goto(f"/games/{game_id}")
    expect(cell(page, *safe[0])).not_to_have_attribute("data-v", "#")
    assert page.evaluate("window.__tones.length") == 0  # reading the game makes no sound
    cell(page, *safe[1]).click()
    expect(cell(page, *safe[1])).not_to_have_attribute("data-v", "#")
    page.wait_for_function("window.__tones.length === 1")  # open: one tone
    cell(page, *closed_mines[1]).click(button="right")
    expect(cell(page, *closed_mines[1])).to_have_attribute("data-v", "F")
    page.wait_for_function("window.__tones.length === 3")  # flag: two tones
    cell(page, *closed_mines[2]).click()  # the loss: three falling tones, down to 165 Hz
    expect(page.locator("#result")).to_be_visible()
    page.wait_for_function("window.__tones.length === 6 && window.__tones.includes(165)")
    assert page.evaluate("window.__audioContexts") == 1


# --- mouse and touch -------------------------------------------------------------------------


def test_before_the_first_tap_a_right_click_says_why_nothing_happened(desktop: Any) -> None:
    page, _ = new_player_game(desktop, "ursula", "beginner")
    # Before the first tap a right-click says why nothing happened; the hint goes once the
    # game has started.
    cell(page, 0, 0).click(button="right")
    expect(page.locator("#status")).to_contain_text(HINT)
    expect(cell(page, 0, 0)).to_have_attribute("data-v", "#")
    first_tap(page)
    expect(page.locator("#status")).not_to_contain_text(HINT)


def mouse_targets() -> tuple[
    set[tuple[int, int]], tuple[int, int], list[tuple[int, int]], set[tuple[int, int]]
]:
    """On the seeded Beginner layout after the first tap at (4, 4): its mines, a number with
    its mines to flag, and that number's closed neighbours."""
    board, mines, rows = beginner_after_first_tap()
    number, its_mines = chord_target(board, mines)
    around = neighbours(*number, 9, 9)
    closed_around = {c for c in around if rows[c[1]][c[0]] == "#"}
    return mines, number, its_mines, closed_around


def test_holding_the_left_button_never_flags_and_opens_on_release(desktop: Any) -> None:
    page, _ = new_player_game(desktop, "ursula", "beginner")
    first_tap(page)
    board, mines, rows = beginner_after_first_tap()
    number, _ = chord_target(board, mines)
    around = neighbours(*number, 9, 9)
    far_safe = next(  # a number: it opens alone, nothing around `number` changes
        (x, y)
        for y in range(9)
        for x in range(9)
        if rows[y][x] == "#"
        and (x, y) not in mines
        and (x, y) not in around
        and any(c in mines for c in neighbours(x, y, 9, 9))
    )

    # Holding the left button never flags: the cell looks pressed, and opens on release.
    page.mouse.move(*centre(cell(page, *far_safe)))
    page.mouse.down()
    page.wait_for_timeout(900)
    assert pressed(page) == {far_safe}
    expect(cell(page, *far_safe)).to_have_attribute("data-v", "#")
    page.mouse.up()
    expect(cell(page, *far_safe)).not_to_have_attribute("data-v", "#")
    assert pressed(page) == set()


def test_pressing_a_number_whose_flags_do_not_match_only_presses_its_neighbours(
    desktop: Any,
) -> None:
    page, _ = new_player_game(desktop, "ursula", "beginner")
    first_tap(page)
    _, number, _, closed_around = mouse_targets()

    # Pressing a number whose flags do not match: its closed neighbours look pressed while
    # held, and nothing happens on release.
    page.mouse.move(*centre(cell(page, *number)))
    page.mouse.down()
    page.wait_for_timeout(300)
    assert pressed(page) == closed_around
    screenshot(page, "settings-pressed-feedback")
    page.mouse.up()
    assert pressed(page) == set()
    for c in closed_around:
        expect(cell(page, *c)).to_have_attribute("data-v", "#")


def test_right_click_flags_and_both_buttons_chord_with_pressed_feedback(desktop: Any) -> None:
    page, _ = new_player_game(desktop, "ursula", "beginner")
    first_tap(page)
    _, number, its_mines, closed_around = mouse_targets()

    # Right-click flags.
    for m in its_mines:
        cell(page, *m).click(button="right")
        expect(cell(page, *m)).to_have_attribute("data-v", "F")

    # Left + right together: the pressed feedback, then the chord when a button is released.
    safe_around = closed_around - set(its_mines)
    page.mouse.move(*centre(cell(page, *number)))
    page.mouse.down(button="left")
    page.mouse.down(button="right")
    assert pressed(page) == safe_around
    page.mouse.up(button="right")
    for c in safe_around:
        expect(cell(page, *c)).not_to_have_attribute("data-v", "#")
    page.mouse.up(button="left")
    assert pressed(page) == set()
    for m in its_mines:
        expect(cell(page, *m)).to_have_attribute("data-v", "F")  # the chord never unflags


def test_click_to_chord_off_a_click_on_a_number_does_nothing_and_d_still_chords(
    desktop: Any,
) -> None:
    sign_up_by_api(desktop, "vera")
    page = desktop.new_page()
    open_settings(page)
    expect(page.locator("#click-chords")).to_be_checked()
    saved(page, lambda: page.uncheck("#click-chords"))
    start_game(page, "beginner")
    first_tap(page)
    board, mines, rows = beginner_after_first_tap()
    number, its_mines = chord_target(board, mines)
    for m in its_mines:
        cell(page, *m).click(button="right")
        expect(cell(page, *m)).to_have_attribute("data-v", "F")
    safe_around = [
        c for c in neighbours(*number, 9, 9) if rows[c[1]][c[0]] == "#" and c not in mines
    ]
    # Held, a number shows no pressed neighbours either: a click would not chord.
    page.mouse.move(*centre(cell(page, *number)))
    page.mouse.down()
    assert pressed(page) == set()
    page.mouse.up()
    page.wait_for_timeout(400)
    for c in safe_around:
        expect(cell(page, *c)).to_have_attribute("data-v", "#")
    page.keyboard.press("d")  # the clicked number has the focus
    for c in safe_around:
        expect(cell(page, *c)).not_to_have_attribute("data-v", "#")


def test_on_touch_the_long_press_delay_is_the_players_and_says_why_before_the_first_tap(
    phone: Any,
) -> None:
    sign_up_by_api(phone, "wanda")
    page = phone.new_page()
    open_settings(page)
    set_long_press(page, 1200)
    no_sideways_scroll(page)
    screenshot(page, "settings-phone", full_page=True)
    start_game(page, "beginner")
    no_sideways_scroll(page)
    # A long press before the first tap says why nothing happened, as a right-click does.
    touch_hold(page, cell(page, 0, 0), 1400)
    expect(page.locator("#status")).to_contain_text(HINT)
    expect(cell(page, 0, 0)).to_have_attribute("data-v", "#")
    screenshot(page, "walk-hint-before-first-tap")
    cell(page, 4, 4).tap()
    expect(cell(page, 4, 4)).to_have_attribute("data-v", "0")
    expect(page.locator("#status")).not_to_contain_text(HINT)
    screenshot(page, "walk-hint-gone")
    _, mines, rows = beginner_after_first_tap()
    closed_mines = [m for m in sorted(mines) if rows[m[1]][m[0]] == "#"]
    closed_safe = [
        (x, y) for y in range(9) for x in range(9) if rows[y][x] == "#" and (x, y) not in mines
    ]
    # 700 ms is a long press by default (450 ms), not with 1200 ms: the finger opened the cell.
    touch_hold(page, cell(page, *closed_safe[0]), 700)
    expect(cell(page, *closed_safe[0])).not_to_have_attribute("data-v", "#")
    expect(page.locator("#mines-left")).to_have_text("10")
    touch_hold(page, cell(page, *closed_mines[0]), 1450)
    expect(cell(page, *closed_mines[0])).to_have_attribute("data-v", "F")
    expect(page.locator("#mines-left")).to_have_text("9")
    no_sideways_scroll(page)


# --- what the walk found on the game page ----------------------------------------------------


def test_pausing_with_p_puts_the_focus_on_resume_and_the_bar_tabs_in_its_order(
    desktop: Any,
) -> None:
    page, _ = new_player_game(desktop, "xavier", "beginner")
    first_tap(page)
    # The wide bar's Tab order is its left-to-right layout.
    page.focus("#pause")
    order = ["pause"]
    for _ in range(6):
        page.keyboard.press("Tab")
        order.append(page.evaluate("document.activeElement.id"))
    assert order == ["pause", "resign", "new-game", "flag-mode", "zoom-out", "zoom-in", "zoom-fit"]
    xs = [page.locator(f"#{i}").bounding_box()["x"] for i in order]
    assert xs == sorted(xs)
    # P on a ranked game asks first; once paused, the focus is on Resume (not the page).
    cell(page, 4, 4).focus()
    page.keyboard.press("p")
    expect(page.locator("#pause-ask")).to_be_visible()
    page.click("#pause-anyway")
    expect(page.locator("#paused-cover")).to_be_visible()
    expect(page.locator("#resume")).to_be_focused()
    page.keyboard.press("Enter")  # Resume
    expect(page.locator("#game")).to_have_attribute("data-state", "playing")
    # Now unranked, P pauses at once, and the focus is on Resume again.
    page.keyboard.press("p")
    expect(page.locator("#paused-cover")).to_be_visible()
    expect(page.locator("#resume")).to_be_focused()
    screenshot(page, "walk-pause-focus")


def test_the_win_message_gives_the_time_as_the_stopped_clock_does(desktop: Any) -> None:
    page, game_id = new_player_game(desktop, "yara", "beginner")
    first_tap(page)
    win_by_api(desktop, token_for(desktop, "yara"), game_id)
    expect(page.locator("#result .result-head")).to_contain_text("You won in")
    clock = page.locator("#clock").inner_text()
    # One rule on the game page: the clock's, tenths cut (31.506 s is 31.5, not 31.506).
    assert re.fullmatch(r"\d+\.\d", clock), clock
    assert page.locator("#result .result-head").inner_text() == f"You won in {clock}\u00a0s!"
    api_ms = desktop.request.get(f"/api/games/{game_id}").json()["elapsed_ms"]
    assert clock == f"{api_ms // 100 / 10:.1f}"


def test_fit_to_screen_shows_expert_on_a_phone_and_marathon_on_a_desktop_without_a_scroll(
    browser: Any, live: str, laptop: Any
) -> None:
    phone = new_context(
        browser, live, 390, 844, device_scale_factor=2, is_mobile=True, has_touch=True
    )
    try:
        for context, name, level, size in (
            (phone, "zoe", "expert", (30, 16)),
            (laptop, "zeno", "marathon", (80, 40)),
        ):
            page, _ = new_player_game(context, name, level)
            page.click("#zoom-fit")
            expect(page.locator("#board-wrap")).to_have_attribute("data-zoom", "fit")
            frame = page.evaluate(
                "(() => { const w = document.getElementById('board-wrap');"
                " return [w.scrollWidth, w.clientWidth, w.scrollHeight, w.clientHeight]; })()"
            )
            assert frame[0] <= frame[1] and frame[2] <= frame[3], (level, frame)
            no_sideways_scroll(page)
            board = page.locator("#board").bounding_box()
            viewport = page.viewport_size
            assert board["x"] >= 0 and board["x"] + board["width"] <= viewport["width"]
            assert board["y"] + board["height"] <= viewport["height"], level
            assert page.locator("#board .cell").count() == size[0] * size[1]
            # Fit is remembered for this board size, and fits again after a reload.
            page.reload()
            page.wait_for_selector("#board .cell")
            expect(page.locator("#board-wrap")).to_have_attribute("data-zoom", "fit")
            screenshot(page, f"settings-fit-{level}")
            page.close()
    finally:
        phone.close()


def test_on_a_phone_tap_targets_are_32_px_and_the_flag_toggle_leaves_the_footer_free(
    browser: Any, live: str
) -> None:
    phone = new_context(
        browser, live, 390, 844, device_scale_factor=2, is_mobile=True, has_touch=True
    )
    try:
        page, game_id = new_player_game(phone, "amber", "beginner")
        first_tap(page)
        small = page.evaluate(
            "(() => ['#keys-help summary', '.footer a', '#zoom-fit', '#flag-mode'].filter(s => {"
            " const r = document.querySelector(s).getBoundingClientRect();"
            " return r.height < 32 || r.width < 32; }))()"
        )
        assert small == []
        page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
        page.wait_for_timeout(200)
        toggle = page.locator("#flag-mode").bounding_box()
        for part in (".footer a", ".footer span"):
            box = page.locator(part).bounding_box()
            apart = (
                box["y"] + box["height"] <= toggle["y"]
                or box["x"] + box["width"] <= toggle["x"]
                or box["y"] >= toggle["y"] + toggle["height"]
            )
            assert apart, (part, box, toggle)
        # A finished game: the replay's slider and the leaderboard's links.
        win_by_api(phone, token_for(phone, "amber"), game_id)
        expect(page.locator("#result")).to_be_visible()
        page.goto(f"/games/{game_id}/replay")
        expect(page.locator("#scrub")).to_be_visible()
        assert page.locator("#scrub").bounding_box()["height"] >= 32
        page.goto("/leaderboards/beginner")
        expect(page.locator("table.data tbody a").first).to_be_visible()
        heights = page.eval_on_selector_all(
            "main a, main button",
            "els => els.filter(e => e.offsetParent).map(e => [e.textContent.trim(),"
            " e.getBoundingClientRect().height])",
        )
        assert [h for h in heights if h[1] < 32] == []
        no_sideways_scroll(page)
        screenshot(page, "walk-phone-tap-targets")
    finally:
        phone.close()


def test_screenshots_of_the_dark_theme(desktop: Any) -> None:
    sign_up_by_api(desktop, "bea")
    page = desktop.new_page()
    open_settings(page)
    set_theme(page, "dark")
    screenshot(page, "dark-settings")
    auth = token_for(desktop, "bea")
    won = desktop.request.post("/api/games", data={"level": "beginner"}, headers=auth).json()
    r = desktop.request.post(f"/api/games/{won['id']}/reveal", data={"x": 4, "y": 4}, headers=auth)
    assert r.ok
    win_by_api(desktop, auth, won["id"])
    page.goto("/")
    expect(page.locator("h1")).to_be_visible()
    assert bg(page) == DARK_BG
    screenshot(page, "dark-home")
    start_game(page, "beginner")
    first_tap(page)
    _, mines, rows = beginner_after_first_tap()
    for m in sorted(m for m in mines if rows[m[1]][m[0]] == "#")[:3]:
        cell(page, *m).click(button="right")
        expect(cell(page, *m)).to_have_attribute("data-v", "F")
    screenshot(page, "dark-game")
    page.goto("/leaderboards/beginner")
    expect(page.locator("table.data tbody a").first).to_be_visible()
    screenshot(page, "dark-leaderboards")
    page.goto(f"/games/{won['id']}")
    expect(page.locator("#result")).to_be_visible()
    screenshot(page, "dark-won")
