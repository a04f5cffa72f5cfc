"""docs/ARCHITECTURE.md, Who owns what, checked where code can check it: who writes each table,
who calls group_send, where statuses come from."""

from __future__ import annotations

import ast
import re

import pytest

from tests.architecture.imports import ROOT, modules
from tests.architecture.writers import writers, writes_in

ARCHITECTURE = (ROOT / "docs" / "ARCHITECTURE.md").read_text()

# Each table and its writers, as the ownership table names them (and says why).
WRITERS = {
    "Game": {
        "games.play.services",
        "games.play.move_store",
        "games.play.fairplay",
        "games.management.commands.remove_stale_guests",  # hands a removed guest's games over
    },
    "Move": {"games.play.services", "games.play.move_store"},
    "GameAnalysis": {"games.play.analysis_jobs"},
    "GameProbabilities": {"games.play.overlays"},
    "Review": {"games.play.fairplay", "games.play.services"},
    "Race": {"games.races.services", "games.races.progress"},
    "Racer": {
        "games.races.services",
        "games.races.progress",
        "games.races.recompute",
        "games.management.commands.remove_stale_guests",  # and its race entries
    },
    "RaceQueueEntry": {"games.races.services"},
    "Arena": {"games.arenas.services"},
    "ArenaEntry": {"games.arenas.services"},
    "ArenaResult": {"games.arenas.services"},
    "RaceRating": {"games.races.services", "games.races.recompute", "games.play.fairplay"},
    "SeasonRating": {"games.races.services", "games.races.recompute", "games.play.fairplay"},
    "User": {
        "accounts.services",
        "games.play.fairplay",
        "games.management.commands.remove_stale_guests",
    },
    "ApiToken": {"accounts.services", "accounts.authentication", "accounts.models"},
    "PlayerStats": {"accounts.standings.stats"},
    "PersonalRecord": {"accounts.standings.stats"},
    "DailyChallenge": {"games.daily.services"},
    "Puzzle": {"games.puzzles.generator", "games.puzzles.services"},
    "PuzzleSource": {"games.puzzles.generator"},
    "PuzzleAttempt": {"games.puzzles.services"},
    "PuzzleRating": {"games.puzzles.services"},
    "PuzzleRun": {"games.puzzles.services"},
    "PuzzleOfTheDay": {"games.puzzles.services"},
    "DailyEntry": {"accounts.standings.daily"},
    "DailyStats": {"accounts.standings.daily"},
}


def _doc_name(module: str) -> str:
    if module.startswith("games.management.commands."):
        return module.rpartition(".")[2]  # named by its command
    return module.replace(".", "/") + ".py"


@pytest.mark.parametrize("model", sorted(WRITERS))
def test_only_the_named_modules_write_each_table(model):
    assert writers()[model] <= WRITERS[model]


@pytest.mark.parametrize("model", sorted(WRITERS))
def test_the_ownership_table_names_every_writer(model):
    for module in WRITERS[model]:
        assert _doc_name(module) in ARCHITECTURE or module == "accounts.models", module
        assert model.lower() in modules()[module].read_text().lower(), (module, model)


def test_the_writer_scan_sees_each_kind_of_write():
    source = """
def a(game: "Game"):
    game.save()
def b():
    Racer.objects.filter(pk=1).update(active=False)
def c():
    run("x", "UPDATE {table} SET seq = 1".format(table=Race._meta.db_table))
def d():
    review = Review(game_id=1)
    review.save()
"""
    assert writes_in(source) == {"Game", "Racer", "Race", "Review"}
    assert writes_in("def e():\n    Game.objects.filter(pk=1).exists()\n") == set()


def _calls_of(attr: str) -> set[str]:
    found = set()
    for name, path in modules().items():
        if name.startswith("bench"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr == attr:
                found.add(name)
    return found


def test_demineur_site_publish_is_the_only_caller_of_group_send():
    assert _calls_of("group_send") == {"demineur_site.publish"}


def test_demineur_site_collector_is_the_only_caller_of_gc_freeze():
    assert _calls_of("freeze") == {"demineur_site.collector"}


def _api_error_calls() -> list[tuple[str, int, object]]:
    """Every `ApiError(first, ...)` in the project: (module, line, the first argument's value)."""
    calls = []
    for name, path in modules().items():
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "ApiError"
                and node.args
                and isinstance(node.args[0], ast.Constant)
            ):
                calls.append((name, node.lineno, node.args[0].value))
    return calls


def test_no_door_raises_an_error_with_a_literal_status():
    """Every status comes from STATUS_BY_CODE: ApiError takes a code, never a number."""
    literal = [f"{m}:{line}" for m, line, first in _api_error_calls() if isinstance(first, int)]
    assert literal == []


def test_every_door_code_has_its_status_in_the_one_table():
    from demineur_site.api_errors import STATUS_BY_CODE, ApiError

    codes = {first for _, _, first in _api_error_calls()}
    assert codes and codes <= set(STATUS_BY_CODE)
    assert ApiError("invalid_page", "m").status_code == 400
    with pytest.raises(KeyError):
        ApiError("a_code_without_a_status", "m")


def test_the_pages_keep_no_copy_of_the_status_table():
    copies = [
        str(path.relative_to(ROOT))
        for path in (ROOT / "frontend" / "static").rglob("*.js")
        if re.search(r"\bgame_not_started\s*:\s*409\b", path.read_text())
    ]
    assert copies == []


def _discarded_row_locks() -> set[str]:
    """Modules with a statement that only locks user rows: a call whose value is thrown away
    (an expression statement) and whose chain holds `User.objects.select_for_update`."""
    found = set()
    for name, path in modules().items():
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Expr)
                and isinstance(node.value, ast.Call)
                and "User.objects.select_for_update" in ast.unparse(node.value)
            ):
                found.add(name)
    return found


def test_accounts_locks_is_the_one_player_row_lock():
    # A user-row lock taken for its own sake (the row itself unread) is the player-row lock, and
    # the one place that takes it is accounts.locks.lock_player (docs/ARCHITECTURE.md).
    assert _discarded_row_locks() == {"accounts.locks"}
    rooms = ("games.play.services", "games.daily.services", "games.races.services")
    for module in (*rooms, "games.arenas.services"):
        assert "lock_player(player)" in modules()[module].read_text()
