"""The tests read as documentation: tests/ mirrors the code's rooms (one folder per room, whose
tests import that room and the rooms below it, never a room above; docs/TESTING.md, Where tests
live), what several test folders share lives in tests/support/ (never in another folder's
conftest.py, which pytest loads for its own folder only), the personas' password is written
once, files are named after the behaviour they check (not after the review round that found
it), and tests/contract/ talks to the server as any client does."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tests.architecture.test_imports import RANK, layer_of
from tests.support import personas

TESTS = Path(__file__).resolve().parents[1]
SOURCES = sorted(p for p in TESTS.rglob("*") if p.suffix in (".py", ".js", ".json", ".txt"))
PYTHON = [p for p in SOURCES if p.suffix == ".py"]

# Words of a review round, not of a behaviour: `test_walk_findings.py`, `test_game_page_seams.py`.
ROUND_WORDS = {"findings", "seams", "issue", "round"}

# What tests/contract/ may import from the project: the black-box helpers (what any API client
# can do, the shapes API.md fixes, the personas' fixtures and password). Never the server's own
# packages (games, accounts, demineur_site, frontend, deploy) nor the hidden layouts
# (tests/support/boards.py).
SERVER_PACKAGES = {"games", "accounts", "demineur_site", "frontend", "deploy"}
CONTRACT_HELPERS = {"tests.support.http", "tests.support.shapes", "tests.support.personas"}

# The rooms' test folders and the layer of tests/architecture/test_imports.py each one tests. A
# room folder's tests may import that layer and the layers below it: a change to a room is
# checked by its folder and by the folders of the rooms above it, never by a room below.
ROOM_FOLDERS = {
    "site": "site",
    "engine": "engine",
    "accounts": "accounts",
    "standings": "accounts",
    "play": "play",
    "puzzles": "puzzles",
    "daily": "daily",
    "races": "races",
    "arenas": "arenas",
}
# The doors all rooms share (the sockets and NDJSON streams, the REST paths): their tests may
# import any room.
DOOR_FOLDERS = {"live", "api"}
# The layers that hold doors only (the kit the rooms' doors share, the boards' REST doors):
# they have no room folder, their tests live in the door folders. The last layer, the roots,
# has none either.
DOOR_LAYERS = {"kit", "boards"}
# What no single room owns: the layering itself, the pages in a browser, the black-box contract,
# attacks, outages, the deployment, the Python client, the benchmarks' own tests, the page
# scripts, and the shared helpers.
CROSS_CUTTING = {
    "architecture",
    "browser",
    "contract",
    "security",
    "reliability",
    "deploy",
    "client",
    "bench",
    "frontend",
    "support",
}
# A door module a room folder's test may import all the same, and why.
DOOR_ORACLES = {
    # The day's game's preview picture must be every cell closed: the expected bytes are drawn
    # by the preview's own drawer from a board with no cell open.
    ("daily", "test_nothing_leaks_before_midnight.py"): {"frontend.previews"},
}


def _imports(path: Path) -> list[str]:
    """Every module `path` imports, at module level or inside a function."""
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.append(node.module)
            names += [f"{node.module}.{alias.name}" for alias in node.names]
    return names


def _relative(path: Path) -> str:
    return str(path.relative_to(TESTS.parent))


def _modules_used(path: Path) -> list[str]:
    """The modules `path` imports, at module level or inside a function: `from a import b` is
    `a.b` (a module, or a name whose layer is its module's), `import a.b` is `a.b`."""
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names += [f"{node.module}.{alias.name}" for alias in node.names]
    return names


def _above_the_room() -> list[str]:
    """Every import of a room folder's module (tests, conftest and helpers) whose layer is
    above the folder's room. tests.* (tests/support/ and a folder's own helpers) and modules of
    no layer (the standard library, third parties, deploy/) are not counted."""
    found = []
    for folder, room in sorted(ROOM_FOLDERS.items()):
        for path in sorted((TESTS / folder).rglob("*.py")):
            allowed = DOOR_ORACLES.get((folder, path.name), set())
            for name in _modules_used(path):
                layer = None if name.split(".")[0] == "tests" else layer_of(name)
                if layer is None or RANK[layer] <= RANK[room]:
                    continue
                if any(name == a or name.startswith(f"{a}.") for a in allowed):
                    continue
                found.append(f"{_relative(path)} ({room}) imports {name} ({layer})")
    return found


def test_no_test_module_imports_a_conftest() -> None:
    conftest = re.compile(r"^tests(\.\w+)*\.conftest(\.|$)")
    found = [
        (_relative(path), name)
        for path in PYTHON
        for name in _imports(path)
        if conftest.match(name)
    ]
    assert found == [], "move what is shared into tests/support/"


def test_the_personas_password_is_written_only_in_the_personas_module() -> None:
    found = [
        _relative(path)
        for path in SOURCES
        if personas.PASSWORD in path.read_text() and path != Path(personas.__file__)
    ]
    assert found == [], "import PASSWORD from tests/support/personas.py"


def test_test_files_are_named_after_a_behaviour_not_a_review_round() -> None:
    found = [
        _relative(path)
        for path in PYTHON
        if path.name.startswith("test_") and ROUND_WORDS & set(path.stem.split("_"))
    ]
    assert found == []


def test_the_contract_tests_import_no_server_code_and_no_hidden_layout() -> None:
    found = []
    for path in sorted((TESTS / "contract").rglob("*.py")):
        for name in _imports(path):
            top = name.split(".")[0]
            helper = name.startswith("tests.") and not any(
                name == h or name.startswith(f"{h}.") for h in CONTRACT_HELPERS
            )
            if top in SERVER_PACKAGES or helper:
                found.append((_relative(path), name))
    assert found == [], "tests/contract/ is black-box: tests/support/http.py says what it may use"


def test_the_checks_see_what_they_look_for() -> None:
    assert Path(personas.__file__) in SOURCES and len(PYTHON) > 100
    assert "tests.support.boards" in _imports(TESTS / "play" / "test_api_moves.py")
    assert "tests.support.http" in _imports(TESTS / "contract" / "test_lifecycle.py")


def test_every_room_has_its_tests_folder() -> None:
    named = {*ROOM_FOLDERS.values(), *DOOR_LAYERS}
    assert sorted(named - set(RANK)) == [], "a layer this file names is gone: rename it here"
    roots = list(RANK)[-1]
    assert [layer for layer in RANK if layer not in named and layer != roots] == []
    folders = [*ROOM_FOLDERS, *DOOR_FOLDERS]
    assert [f for f in folders if not list((TESTS / f).glob("test_*.py"))] == []


def test_every_test_lives_in_a_room_door_or_cross_cutting_folder() -> None:
    known = {*ROOM_FOLDERS, *DOOR_FOLDERS, *CROSS_CUTTING}
    found = [
        _relative(path)
        for path in sorted(TESTS.rglob("test_*.py"))
        if path.parent == TESTS or path.relative_to(TESTS).parts[0] not in known
    ]
    assert found == [], "tests/ mirrors the rooms: docs/TESTING.md, Where tests live"


def test_a_room_folder_imports_its_room_and_the_rooms_below_only() -> None:
    assert _above_the_room() == [], "the test belongs to the folder of the highest room it needs"


def test_an_import_above_the_room_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check can fail: the engine's tests importing the services would be caught; the same
    import in a door folder is allowed, and so is a room folder's import of tests/support/."""
    real = _modules_used
    extra = {
        TESTS / "engine" / "test_bbbv.py": ["games.play.services.new_game"],
        TESTS / "standings" / "test_streaks.py": ["tests.support.boards.win"],
        TESTS / "live" / "test_lobby_socket.py": ["games.arenas.services.arena_create"],
    }
    monkeypatch.setattr(
        "tests.architecture.test_tests_layout._modules_used",
        lambda path: real(path) + extra.get(path, []),
    )
    assert _above_the_room() == [
        "tests/engine/test_bbbv.py (engine) imports games.play.services.new_game (play)"
    ]


@pytest.mark.parametrize(
    ("source", "module", "layer"),
    [
        ("from games import clock", "games.clock", "engine"),
        ("from games.play.models import Game", "games.play.models.Game", "play"),
        ("import accounts.standings.records", "accounts.standings.records", "accounts"),
    ],
)
def test_an_imported_name_is_read_as_its_module(
    tmp_path: Path, source: str, module: str, layer: str
) -> None:
    path = tmp_path / "test_x.py"
    path.write_text(f"def f():\n    {source}\n")
    assert _modules_used(path) == [module]
    assert layer_of(module) == layer
