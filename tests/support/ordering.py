"""The order the suite's workers take tests in: the long ones first; and which tests one
worker takes together: those of a module that share a module-scoped fixture.

pytest-xdist hands tests to its workers in collection order. A test of a minute dealt last
keeps one worker busy while the others have nothing left: the run lasts as long as that tail.
Dealt first, the long tests run beside each other and the thousands of short ones fill the
gaps. Nothing depends on the order otherwise: every test sets up what it needs.

A test is long when it drives a browser or a live server in a thread (`live`), or when its
module starts server processes, builds packages, or plays many whole games (measured with
`pytest --junitxml`: docs/TESTING.md, Where the time goes)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

# Fixtures that start a real server: the live site in a thread (which the browser pages, the
# phone and the race clock fixtures all build on: pytest lists them in `fixturenames` too).
LONG_FIXTURES = frozenset({"live", "site"})

# Modules whose tests start server processes or play many games, by file name (a test that
# moves to another folder keeps its place in the order).
LONG_MODULES = frozenset(
    {
        "test_arena_of_bots.py",
        "test_no_guess_boards_need_no_guess.py",
        "test_http_sqlite_concurrency.py",
        "test_http_body_limit.py",
        "test_http_headers.py",
        "test_http_logs.py",
        "test_http_browser.py",
        "test_dev_server.py",
        "test_rated_race_rules.py",
        "test_load_bots.py",
        "test_schemathesis.py",
        "test_socket_fuzz.py",
        "test_cli_token_source.py",
        "test_package.py",
        "test_bot_runner.py",
        "test_probabilities_agree_with_enumeration.py",
        "test_ws_browser_origin.py",
        "test_engine_properties.py",
        "test_cascade_equivalence.py",
    }
)


def is_long(item: Any) -> bool:
    if item.get_closest_marker("browser") is not None:
        return True
    if LONG_FIXTURES & set(getattr(item, "fixturenames", ())):
        return True
    return Path(str(getattr(item, "path", ""))).name in LONG_MODULES


def drives_a_browser(item: Any) -> bool:
    """Whether the test may use the worker's Chromium: it names the `browser` fixture, or it
    is marked `browser` (every test of tests/browser/, some of which take their browser context
    by name at run time, `request.getfixturevalue`, and so name no fixture of it)."""
    if "browser" in getattr(item, "fixturenames", ()):
        return True
    closest = getattr(item, "get_closest_marker", None)
    return closest is not None and closest("browser") is not None


def long_first(items: list[Any]) -> None:
    """Reorder `items` in place: the tests that drive a browser first (a worker keeps its
    Chromium from one browser module to the next, tests/support/browser.py), then the other
    long tests, each group in its collected order (a stable sort, so every worker collects the
    same order, as xdist requires)."""
    items.sort(key=lambda item: (not drives_a_browser(item), not is_long(item)))


def shares_module_setup(item: Any) -> bool:
    """Whether the test uses a module-scoped fixture (a Chromium, a server of its own): the
    module's tests then go to one worker together, which sets it up once. Dealt one by one,
    each module's browser was launched by every worker that got one of its tests: the 31
    modules of tests/browser/ launched Chromium 83 times (about 1.2 s of CPU each)."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return False
    return any(defs and defs[-1].scope == "module" for defs in info.name2fixturedefs.values())


def _set_nodeid(item: Any, nodeid: str) -> None:
    if hasattr(item, "_id"):  # pytest 9 keeps a structured id
        from _pytest.nodeid import coerce_node_id

        item._id = coerce_node_id(nodeid)
    else:
        item._nodeid = nodeid


def group_for_xdist(items: list[Any]) -> None:
    """For `--dist loadgroup`, which deals work by node id: each test gets an id of its own, and
    a test of `shares_module_setup` its module as its group (the `@group` suffix the scheduler
    reads). pytest-xdist's own `xdist_group` mark sets a node id attribute pytest 9 no longer
    reads, so the suffix is set here.

    Schemathesis names its cases by operation (`test_api_conforms_to_its_schema[GET
    /api/arenas]`) but gives all 64 the function's node id: dealt by node id, one ran."""
    for item in items:
        nodeid = item.nodeid
        if not nodeid.endswith(item.name):
            nodeid = f"{nodeid.rsplit('::', 1)[0]}::{item.name}"
        if shares_module_setup(item):
            nodeid = f"{nodeid}@{nodeid.split('::')[0]}"
        if nodeid != item.nodeid:
            _set_nodeid(item, nodeid)
