"""Browser test support: Debian's Chromium driven by Playwright against a real ASGI server.

The site runs in uvicorn on a background thread of the test process, on the pytest-django
test database (tests use `transactional_db`, so what the server commits is visible and is
wiped after each test). WebSockets work as in production. Mine layouts are deterministic:
GAME_TEST_SEED makes games/play/services.py draw them from services.seeded_rng, so a test rebuilds
the layout from the first tap (layout_after_first_tap). The fixtures are made visible by
tests/browser/conftest.py, and imported by the browser tests of other packages."""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from deploy.processes import free_port
from games.engine import Board
from tests.support import boards
from tests.support.chromium import CHROMIUM, CHROMIUM_ARGS
from tests.support.languages import PAGE_LANGUAGES
from tests.support.personas import PASSWORD

SEED = "browser-tests"
# The documentation's pictures are taken only where SCREENSHOTS_DIR says where they go: `make
# screenshots` points it at docs/screenshots to refresh them on purpose. A plain test run checks
# the pages without them (about a hundred pictures, 0.08-0.70 s of CPU each: docs/TESTING.md),
# and never changes a committed file.
SCREENSHOTS_DIR = os.environ.get("SCREENSHOTS_DIR")
SCREENSHOTS = Path(SCREENSHOTS_DIR).resolve() if SCREENSHOTS_DIR else None


# Every wait of the browser tests is on a condition (a URL, an attribute, a visible element);
# these bounds only decide how long a failing test takes to say so. The 10 s the contexts had
# ran out on a machine under a load of 4 to 30 (waits for a URL); expect()'s own default is 5 s.
WAIT_MS = 20_000
expect.set_options(timeout=WAIT_MS)


class LiveServer:
    """The site's ASGI application in uvicorn on a thread of the test process, on `port` (a
    free one by default): stopped and started again on the same port, it is a server restart."""

    def __init__(self, port: int | None = None, shutdown_s: int | None = None) -> None:
        import uvicorn

        from demineur_site.asgi import application

        self.port = port or free_port()
        config = uvicorn.Config(
            application,
            host="127.0.0.1",
            port=self.port,
            log_level="warning",
            lifespan="off",
            # An idle keep-alive connection is kept for the whole test: with uvicorn's 5 s, a
            # test's request may go out on one just as the server closes it, and meet
            # ECONNRESET (the likely cause of one seen in tests/security/test_ws_browser_origin.py).
            timeout_keep_alive=600,
            # Open sockets are closed after this many seconds of a stop (None: waited for).
            timeout_graceful_shutdown=shutdown_s,
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=lambda: asyncio.run(self.server.serve()), daemon=True)

    def start(self) -> None:
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.05)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


@pytest.fixture(scope="session")
def site(django_db_setup: Any, django_db_blocker: Any) -> Iterator[str]:
    """The base URL of the site, served by uvicorn for the whole session."""
    server = LiveServer()
    server.start()
    yield f"http://127.0.0.1:{server.port}"
    server.stop()
    # The server's worker threads may still hold connections to the test database, which
    # would stop pytest-django from dropping it; they are ours to close.
    from django.db import connection

    with django_db_blocker.unblock():
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                    " WHERE datname = current_database() AND pid <> pg_backend_pid()"
                )
            # And this one: where the teardown runs in another context than the one that set
            # the database up (Playwright's greenlet), it is not the connection pytest-django
            # closes before it drops the database ("being accessed by other users").
            connection.close()


class _WorkerChromium:
    """The worker's Chromium, kept from one browser module to the next: starting and closing it
    costs 1.35 s of CPU (docs/TESTING.md), and a worker often runs several browser modules in a
    row (tests/support/ordering.py deals them first).

    Playwright's sync API keeps an asyncio loop registered on the test thread while it runs,
    and the async tests of other packages need that thread free: tests/conftest.py closes it
    before any test that does not use it, and at the session's end.
    Meanwhile Django's "no ORM inside a running loop" guard would refuse the test database's
    set-up and flushes on this thread, which are plain synchronous calls, so it is lifted for
    exactly that time."""

    def __init__(self) -> None:
        self._playwright: Any = None
        self._browser: Any = None
        self._previous_env: str | None = None

    def get(self) -> Any:
        if self._browser is None:
            from playwright.sync_api import sync_playwright

            self._previous_env = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
            self._playwright = sync_playwright()
            pw = self._playwright.__enter__()
            self._browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        return self._browser

    def close(self) -> None:
        if self._playwright is None:
            return
        try:
            if self._browser is not None:
                self._browser.close()
        finally:
            self._playwright.__exit__(None, None, None)
            self._playwright = self._browser = None
            if self._previous_env is None:
                os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
            else:
                os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = self._previous_env


WORKER_CHROMIUM = _WorkerChromium()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """The worker's Chromium for one test module; a context the module left open is closed at
    its end, so that the next module starts from a browser with none."""
    chromium = WORKER_CHROMIUM.get()
    yield chromium
    for context in list(chromium.contexts):
        context.close()


@pytest.fixture
def live(site: str, transactional_db: Any, settings: Any) -> Iterator[str]:
    """The site with a clean database and deterministic mine layouts."""
    settings.GAME_TEST_SEED = SEED
    yield site
    _wait_for_server_transactions()


def _wait_for_server_transactions(timeout: float = 10.0) -> None:
    """A closing page may still have sent a request (a move, a pause it asked for), so the
    server may still be in a transaction when the test ends. pytest-django's flush (TRUNCATE)
    must not race it: the two
    can deadlock and PostgreSQL would abort the flush. Wait until no other session of the test
    database is active or inside a transaction."""
    from django.db import connection

    time.sleep(0.2)  # let a request the closing page sent reach the server (SQLite too)
    if connection.vendor != "postgresql":
        return
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                " AND pid <> pg_backend_pid() AND state IN ('active', 'idle in transaction')"
            )
            (busy,) = cursor.fetchone()
        if not busy:
            return
        time.sleep(0.05)


def new_context(
    browser: Any, live: str, width: int, height: int, *, locale: str = "en-GB", **options: Any
) -> Any:
    """A browser context on the site, in British English unless `locale` says otherwise, with
    WAIT_MS as its default timeout."""
    context = browser.new_context(
        viewport={"width": width, "height": height}, base_url=live, locale=locale, **options
    )
    context.set_default_timeout(WAIT_MS)
    return context


@contextmanager
def speaking(
    browser: Any, live: str, locale: str, width: int = 1000, height: int = 800, **options: Any
) -> Iterator[Any]:
    """A browser context on the site whose browser asks for `locale`, closed afterwards."""
    context = new_context(browser, live, width, height, locale=locale, **options)
    try:
        yield context
    finally:
        context.close()


def _desktop_fixture(doc: str) -> Any:
    @pytest.fixture
    def fixture(browser: Any, live: str) -> Iterator[Any]:
        context = new_context(browser, live, 1280, 860)
        yield context
        context.close()

    fixture.__doc__ = doc
    return fixture


desktop = _desktop_fixture("A desktop browser (1280 x 860).")
laptop = _desktop_fixture("A second desktop browser: another player beside `desktop`.")


@pytest.fixture
def phone(browser: Any, live: str) -> Iterator[Any]:
    context = new_context(
        browser, live, 360, 740, device_scale_factor=2, is_mobile=True, has_touch=True
    )
    yield context
    context.close()


@contextmanager
def how_to_play_in(browser: Any, live: str, lang: str, html_lang: str) -> Iterator[Any]:
    """The how-to-play page in a browser asking for `lang`'s locale (tests/support/languages.py):
    its heading in that language and <html lang> `html_lang`. Yields the first cell of its live
    demo board, whose label is a string of the scripts' catalogue."""
    locale, heading, _ = PAGE_LANGUAGES[lang]
    with speaking(browser, live, locale) as context:
        page = context.new_page()
        page.goto("/how-to-play")
        expect(page.locator("h1")).to_have_text(heading)
        expect(page.locator("html")).to_have_attribute("lang", html_lang)
        yield page.locator('[data-demo="square"] .cell').first


def sign_up_by_api(context: Any, username: str) -> None:
    """A player with a session cookie in `context`, made through the public API."""
    r = context.request.post(
        "/api/auth/register", data={"username": username, "password": PASSWORD}
    )
    assert r.status == 201, r.text()
    r = context.request.post("/api/auth/session", data={"username": username, "password": PASSWORD})
    assert r.status == 200, r.text()


def layout_after_first_tap(width: int, height: int, mines: int, x: int, y: int) -> Board:
    """The board the server builds for a first tap at (x, y) under the browser tests' seed."""
    return boards.layout_after_first_tap(SEED, width, height, mines, x, y)


def beginner_after_first_tap() -> tuple[Board, set[tuple[int, int]], list[str]]:
    """The seeded Beginner board of a first tap at its centre (4, 4), the opening most browser
    tests play: the board, its mines and what it shows then."""
    board = layout_after_first_tap(9, 9, 10, 4, 4)
    return board, boards.mines_of(board), board.render()


def cell(page: Any, x: int, y: int) -> Any:
    return page.locator(f'#board .cell[data-x="{x}"][data-y="{y}"]')


def open_every_safe_cell(page: Any, game_id: str) -> None:
    """Click every safe cell still closed, in the page, until the result shows (a win)."""
    for x, y in boards.safe_closed(game_id):
        if page.locator("#result").is_visible():
            break
        target = cell(page, x, y)
        if target.get_attribute("data-v") == "#":
            target.click()
    expect(page.locator("#result")).to_be_visible()


def start_game(page: Any, level: str) -> str:
    """Start a game from the home page; returns its id."""
    page.goto("/")
    page.click(f'.level-card[data-level="{level}"]')
    page.wait_for_url("**/games/*")
    page.wait_for_selector("#board .cell")
    return str(page.url.rsplit("/", 1)[1])


def start_custom_game(page: Any, width: int, height: int, mines: int) -> None:
    """Start a custom board from the home page's form and wait for its game page."""
    page.goto("/")
    page.fill("#custom input[name=width]", str(width))
    page.fill("#custom input[name=height]", str(height))
    page.fill("#custom input[name=mines]", str(mines))
    page.click("#custom button[type=submit]")
    page.wait_for_url("**/games/*")


def new_player_game(context: Any, username: str, level: str) -> tuple[Any, str]:
    """A new player signed up in `context`, on a new page, on a game of `level` started from
    the home page: the page and the game's id."""
    sign_up_by_api(context, username)
    page = context.new_page()
    return page, start_game(page, level)


def screenshot(shown: Any, name: str, full_page: bool = False) -> None:
    """A picture of a page (or of one element, a locator) for the documentation, as `name`.png,
    when SCREENSHOTS_DIR is set."""
    if SCREENSHOTS is None:
        return
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    options = {"full_page": full_page} if full_page else {}
    shown.screenshot(path=str(SCREENSHOTS / f"{name}.png"), **options)


def long_press_by_touch(page: Any, locator: Any) -> None:
    """A finger held on the cell: real touch events through the DevTools protocol."""
    box = locator.bounding_box()
    point = {"x": box["x"] + box["width"] / 2, "y": box["y"] + box["height"] / 2}
    cdp = page.context.new_cdp_session(page)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [point]})
    page.wait_for_timeout(700)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    cdp.detach()


def token_for(context: Any, username: str) -> dict[str, str]:
    """An API client's header for `username`, made through the public API (API.md, Accounts)."""
    r = context.request.post("/api/auth/token", data={"username": username, "password": PASSWORD})
    assert r.status == 200, r.text()
    return {"Authorization": f"Token {r.json()['token']}"}


def finished_beginner_with_flag_moves(
    context: Any, username: str
) -> tuple[str, list[tuple[int, int]]]:
    """A Beginner game played through the API: a first tap, explicit and toggled flag moves,
    then resigned. Returns its id and the two flagged cells."""
    auth = token_for(context, username)
    game = context.request.post("/api/games", data={"level": "beginner"}, headers=auth).json()
    moves = f"/api/games/{game['id']}"
    assert context.request.post(f"{moves}/reveal", data={"x": 4, "y": 4}, headers=auth).ok
    _, _, rows = beginner_after_first_tap()
    closed = [(x, y) for y, row in enumerate(rows) for x, v in enumerate(row) if v == "#"]
    a, b = closed[0], closed[1]
    for body in (
        {"x": a[0], "y": a[1], "flagged": True},  # move 2: flag a
        {"x": a[0], "y": a[1], "flagged": True},  # move 3: a no-op, a stays flagged
        {"x": b[0], "y": b[1]},  # move 4: a toggle flags b
        {"x": b[0], "y": b[1], "flagged": False},  # move 5: removes b's flag
    ):
        assert context.request.post(f"{moves}/flag", data=body, headers=auth).ok
    assert context.request.post(f"{moves}/resign", headers=auth).ok
    return game["id"], [a, b]


def settle(page: Any) -> None:
    """Pause the running game through the dialog a ranked game asks in, and wait for it. (A
    closing page no longer pauses its game: only 5 s hidden does, docs/FAIRPLAY.md.)"""
    page.click("#pause")
    page.click("#pause-anyway")  # a ranked game asks first (RULES.md, Fair play)
    expect(page.locator("#paused-cover")).to_be_visible()


# The racer's board and the countdown never shown together (frontend race.js, drawCountdown):
# checked after every change of a `hidden` attribute, so that the check does not depend on when
# the test looks.
WATCH_THE_START = """() => {
  window.boardUnderTheCountdown = false;
  const shown = (id) => !document.getElementById(id).hidden;
  new MutationObserver(() => {
    if (shown("race-mygame") && shown("race-countdown")) window.boardUnderTheCountdown = true;
  }).observe(document.body, { subtree: true, attributes: true, attributeFilter: ["hidden"] });
}"""


def watch_the_start(page: Any) -> None:
    """From now on, note whether `page` ever shows the racer's board and the countdown at once
    (read by `board_moved_at_the_start`)."""
    page.evaluate(WATCH_THE_START)


def board_moved_at_the_start(page: Any) -> bool:
    return bool(page.evaluate("window.boardUnderTheCountdown"))
