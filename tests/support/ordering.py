"""The order the suite's workers take tests in: the long ones first.

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


def long_first(items: list[Any]) -> None:
    """Reorder `items` in place: the long tests first, each group in its collected order (a
    stable sort, so every worker collects the same order, as xdist requires)."""
    items.sort(key=lambda item: not is_long(item))
