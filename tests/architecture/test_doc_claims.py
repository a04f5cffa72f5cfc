"""The "Who owns what" claims of docs/ARCHITECTURE.md that no other architecture test reads:
settings are the only reader of the environment, `demineur_site.formats.iso` writes every
timestamp of an answer, `demineur_site.pagination` is the one reader of `?page=`, and
`games.engine.LEVELS` is the one list of levels. Each check reads the source with `ast` and
is shown to fail on a made-up offender."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.architecture.imports import ROOT, modules

ARCHITECTURE = (ROOT / "docs" / "ARCHITECTURE.md").read_text()

# The server's code (bench/ measures it from outside and may read its own knobs).
SERVER = ("demineur_site", "games", "accounts", "frontend")

# Who may read the environment: the settings (through demineur_site.env's readers), and the
# composition roots that name the settings module before Django starts.
ENV_READERS = {
    "demineur_site.settings",
    "demineur_site.settings_test",
    "demineur_site.env",
    "demineur_site.asgi",
    "demineur_site.wsgi",
}
ENV_CALLS = {"getenv", "environ", "env_str", "env_int", "env_float", "env_bool", "env_list"}

# Names of values that hold an instant (a datetime) in this code base.
INSTANT_SUFFIXES = ("_at", "_login", "date_joined", "now", "day_end", "deadline")


def _server_sources() -> list[tuple[str, Path]]:
    return sorted(
        (name, path)
        for name, path in modules().items()
        if name.split(".")[0] in SERVER and "migrations" not in path.parts
    )


def _name_of(node: ast.AST) -> str:
    """The last name of an expression: `a.b.c` -> c, `f(x)` -> f, `x` -> x."""
    while True:
        if isinstance(node, ast.Call):
            node = node.func
        elif isinstance(node, ast.Attribute):
            return node.attr
        elif isinstance(node, ast.Name):
            return node.id
        else:
            return ""


def env_reads(source: str, filename: str) -> list[int]:
    """Lines that read the environment: os.environ / os.getenv / the env readers."""
    lines = []
    for node in ast.walk(ast.parse(source, filename)):
        read_os = isinstance(node, ast.Attribute) and node.attr in ("environ", "getenv")
        read_env = isinstance(node, ast.Call) and _name_of(node.func) in ENV_CALLS
        if read_os or read_env:
            lines.append(node.lineno)
    return lines


def timestamps_written_by_hand(source: str, filename: str) -> list[int]:
    """Lines that turn an instant into text without formats.iso: `.isoformat(...)` of a value
    whose name says it is an instant, or a `+00:00` replaced by hand."""
    lines = []
    for node in ast.walk(ast.parse(source, filename)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        instant = _name_of(node.func.value).endswith(INSTANT_SUFFIXES)
        by_hand = any(isinstance(a, ast.Constant) and a.value == "+00:00" for a in node.args)
        if (node.func.attr == "isoformat" and instant) or (node.func.attr == "replace" and by_hand):
            lines.append(node.lineno)
    return lines


def page_reads(source: str, filename: str) -> list[int]:
    """Lines that read `page` or `page_size` out of a request's query."""
    lines = []
    for node in ast.walk(ast.parse(source, filename)):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("get", "getlist")
            and _name_of(node.func.value) in ("query_params", "GET")
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and node.args[0].value in ("page", "page_size")
        ):
            lines.append(node.lineno)
    return lines


def level_tables(source: str, filename: str) -> list[int]:
    """Lines that spell out the level names as a list, tuple or set: a second list of levels.
    (A dict keyed by level, a value for each level such as a time limit, is not one.)"""
    lines = []
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            names = {i.value for i in node.elts if isinstance(i, ast.Constant)}
            if {"beginner", "intermediate", "expert"} <= names:
                lines.append(node.lineno)
    return lines


def _found(check, allowed: set[str]) -> list[str]:
    return [
        f"{name}:{line}"
        for name, path in _server_sources()
        if name not in allowed
        for line in check(path.read_text(), str(path))
    ]


def test_the_claims_are_in_the_document() -> None:
    assert "| settings | `demineur_site/settings.py` | the only reader of the environment |" in (
        ARCHITECTURE
    )
    assert "| timestamps | `demineur_site/formats.iso` | one format in every answer |" in (
        ARCHITECTURE
    )
    assert "`demineur_site/pagination.py` | the one reader of `?page=`" in ARCHITECTURE
    assert "| the levels | `games.engine.LEVELS` |" in ARCHITECTURE


def test_only_the_settings_read_the_environment() -> None:
    assert _found(env_reads, ENV_READERS) == []


def test_every_timestamp_of_an_answer_is_written_by_formats_iso() -> None:
    assert _found(timestamps_written_by_hand, {"demineur_site.formats"}) == []


def test_only_the_pager_reads_the_page_parameters() -> None:
    assert _found(page_reads, {"demineur_site.pagination"}) == []


def test_the_engine_holds_the_one_list_of_levels() -> None:
    # The test settings switch a limit off for every level through the environment, before
    # anything is imported (the servers the suite starts inherit it): they sit below the
    # engine and may not import it (tests/architecture/test_imports.py).
    assert _found(level_tables, {"games.engine", "demineur_site.settings_test"}) == []


@pytest.mark.parametrize(
    ("check", "offender"),
    [
        (env_reads, "import os\nTIMEOUT = float(os.environ.get('X', '1'))\n"),
        (env_reads, "from demineur_site.env import env_float\nX = env_float('X', 1.0)\n"),
        (timestamps_written_by_hand, "def f(game):\n    return game.ended_at.isoformat()\n"),
        (timestamps_written_by_hand, "def f(t):\n    return str(t).replace('+00:00', 'Z')\n"),
        (page_reads, "def f(request):\n    return request.query_params.get('page')\n"),
        (level_tables, "LEVELS = ('beginner', 'intermediate', 'expert')\n"),
    ],
)
def test_each_check_finds_an_offender(check, offender: str) -> None:
    assert check(offender, "offender.py") != []


def test_a_date_written_as_text_is_no_timestamp() -> None:
    """A day (`date.isoformat()`, '2026-12-06') is not an instant: the API writes days so."""
    assert timestamps_written_by_hand("def f(day):\n    return day.isoformat()\n", "x.py") == []
