"""The tests read as documentation: what several test folders share lives in tests/support/
(never in another folder's conftest.py, which pytest loads for its own folder only), the
personas' password is written once, files are named after the behaviour they check (not after
the review round that found it), and tests/contract/ talks to the server as any client does."""

from __future__ import annotations

import ast
import re
from pathlib import Path

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
    assert "tests.support.boards" in _imports(TESTS / "games" / "test_api_moves.py")
    assert "tests.support.http" in _imports(TESTS / "contract" / "test_lifecycle.py")
