"""Nothing moves once it is drawn: every main page, on a desktop and on a phone, keeps its
cumulative layout shift under 0.05, measured in Chromium by a PerformanceObserver."""

from __future__ import annotations

from typing import Any

from accounts.models import User
from tests.support.browser import new_context, screenshot
from tests.support.personas import PASSWORD

MAX_SHIFT = 0.05

# Every layout shift the page makes without input, summed as the browsers' CLS does not (it
# keeps the worst window of shifts): the sum is the stricter figure, and the one a test can
# hold a page to. Each shift keeps the elements that moved, to say which ones.
OBSERVE_SHIFTS = """
window.__shifts = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    if (entry.hadRecentInput) continue;
    window.__shifts.push({
      value: entry.value,
      at: Math.round(entry.startTime),
      nodes: entry.sources.map((s) => {
        const n = s.node;
        if (!n || !n.nodeName) return "?";
        const id = n.id ? "#" + n.id : "";
        const cls = n.className && typeof n.className === "string" ? "." + n.className.split(" ").join(".") : "";
        return n.nodeName.toLowerCase() + id + cls + " " + JSON.stringify(s.previousRect) + "->" + JSON.stringify(s.currentRect);
      }),
    });
  }
}).observe({ type: "layout-shift", buffered: true });
"""


def _player_with_games(name: str) -> str:
    """A player with a won Beginner game and an Intermediate game in play: its id."""
    from tests.support.boards import win
    from tests.support.http import start
    from tests.support.personas import client_for

    user = User.objects.create_user(username=name, password=PASSWORD)
    api = client_for(user)
    win(api, start(api, "beginner")["id"])
    return str(start(api, "intermediate")["id"])


def _signed_in(browser: Any, live: str, name: str, width: int, height: int, **options: Any) -> Any:
    context = new_context(browser, live, width, height, **options)
    context.add_init_script(OBSERVE_SHIFTS)
    r = context.request.post("/api/auth/session", data={"username": name, "password": PASSWORD})
    assert r.status == 200, r.text()
    return context


def _pages(name: str, game: str) -> list[str]:
    return [
        "/",
        f"/games/{game}",
        "/leaderboards",
        "/leaderboards/beginner",
        f"/players/{name}",
        "/daily",
        "/races",
        "/arenas",
        "/account",
        "/settings",
        "/how-to-play",
    ]


def _shifts(page: Any, path: str) -> tuple[float, list[Any]]:
    """The page at `path`, once its reads are answered and two more frames drawn: the sum of
    its layout shifts and the shifts themselves."""
    page.goto(path)
    page.wait_for_load_state("networkidle")
    page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
    shifts = page.evaluate("window.__shifts")
    return sum(s["value"] for s in shifts), shifts


def _no_page_shifts(context: Any, paths: list[str]) -> Any:
    page = context.new_page()
    moved = {}
    for path in paths:
        total, shifts = _shifts(page, path)
        if total > MAX_SHIFT:
            moved[path] = (round(total, 3), shifts)
    assert not moved, moved
    return page


# Whatever a table shows is whole: no table scrolls sideways in its frame, and no cell, nor
# anything in one (a button, a heading's text), is cut (its content wider than its box).
CUT_IN_TABLES = """() => {
  const cut = [];
  for (const table of document.querySelectorAll("table.data")) {
    if (!table.offsetParent) continue;
    const wrap = table.closest(".table-wrap");
    if (wrap && wrap.scrollWidth > wrap.clientWidth + 1) cut.push(`#${table.id} scrolls sideways`);
    for (const x of table.querySelectorAll("th, td, th *, td *")) {
      const clipped = getComputedStyle(x).overflowX !== "visible" && x.clientWidth > 1; // not visually hidden
      if (clipped && x.scrollWidth > x.clientWidth + 1) {
        cut.push(`#${table.id}: ${x.textContent.trim()}`);
      }
    }
  }
  return cut;
}"""


def _one_line_header_and_whole_tables(page: Any, paths: list[str]) -> None:
    for path in paths:
        page.goto(path)
        page.wait_for_load_state("networkidle")
        bar = page.evaluate("document.querySelector('.topbar').offsetHeight")
        assert bar < 70, f"the top bar of {path} is {bar} px tall: on two lines"
        assert page.evaluate(CUT_IN_TABLES) == [], path


def test_on_a_desktop_nothing_moves_once_drawn(browser: Any, live: str) -> None:
    game = _player_with_games("claude")
    context = _signed_in(browser, live, "claude", 1366, 768)
    _no_page_shifts(context, _pages("claude", game))
    context.close()


def test_french_fits_the_bar_on_one_line_and_the_tables_whole_on_a_laptop(
    browser: Any, live: str
) -> None:
    """The longest words of the bar and the tables: French, signed in, on the laptops' widths."""
    _player_with_games("claude")
    context = _signed_in(browser, live, "claude", 1366, 768, locale="fr-FR")
    page = context.new_page()
    for width in (1366, 1280):
        page.set_viewport_size({"width": width, "height": 768})
        _one_line_header_and_whole_tables(page, ["/account", "/players/claude", "/leaderboards"])
        screenshot(page, f"french-header-{width}")
    context.close()


def test_on_a_phone_nothing_moves_once_drawn(browser: Any, live: str) -> None:
    # A phone's screen and touch, without Chromium's mobile emulation (is_mobile), under which
    # it reports no layout shift after the first page of a context.
    game = _player_with_games("phoebe")
    context = _signed_in(browser, live, "phoebe", 360, 740, device_scale_factor=2, has_touch=True)
    _no_page_shifts(context, _pages("phoebe", game))
    context.close()
