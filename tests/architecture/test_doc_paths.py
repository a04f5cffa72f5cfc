"""Every module path and dotted name the README and docs/ name exists in the code: a moved or
renamed module fails here until the docs follow (docs say only what is true of the code)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
TOP = "games|accounts|demineur_site|frontend|bench|tests|deploy|clients"
PATH = re.compile(rf"(?<![\w./-])((?:{TOP})/[\w./-]*\w)")
DOTTED = re.compile(r"(?<![\w./-])((?:games|accounts|demineur_site)(?:\.[A-Za-z_]\w*)+)")
UNITS = {"games/s", "games/second", "games/min"}  # "games/s" is a rate, not a path


def _defines(source: Path, name: str) -> bool:
    text = source.read_text()
    return bool(
        re.search(rf"^\s*(?:async\s+)?(?:def|class)\s+{re.escape(name)}\b", text, re.M)
        or re.search(rf"^\s*{re.escape(name)}\s*(?::[^=\n]+)?=", text, re.M)
        or re.search(rf"\bimport\b[^\n]*\b{re.escape(name)}\b", text)
    )


def _module_file(parts: list[str]) -> tuple[Path | None, list[str]]:
    """The longest prefix of `parts` that is a module or package, and the names after it."""
    for k in range(len(parts), 0, -1):
        base = ROOT.joinpath(*parts[:k])
        if base.with_suffix(".py").is_file():
            return base.with_suffix(".py"), parts[k:]
        if (base / "__init__.py").is_file():
            return base / "__init__.py", parts[k:]
    return None, parts


def path_exists(token: str) -> bool:
    token = token.rstrip(".")
    if token in UNITS or "..." in token:
        return True
    if (ROOT / token).exists():
        return True
    stem, _, attr = token.rpartition(".")  # `demineur_site/formats.iso`: a module's name
    if stem and (ROOT / f"{stem}.py").is_file():
        return _defines(ROOT / f"{stem}.py", attr.split(".")[0])
    parent = (ROOT / token).parent  # `tests/security/test_ws_`: a family of files
    return token.endswith("_") and any(
        p.name.startswith(Path(token).name) for p in parent.iterdir()
    )


def dotted_exists(token: str) -> bool:
    source, rest = _module_file(token.split("."))
    if source is None or source.parent == ROOT:
        return False
    return not rest or _defines(source, rest[0])


def stale_names() -> list[str]:
    stale = []
    for doc in DOCS:
        text = doc.read_text()
        for match in PATH.finditer(text):
            relative = (doc.parent / match.group(1)).exists()  # a link from the doc's folder
            if not relative and not path_exists(match.group(1)):
                stale.append(f"{doc.relative_to(ROOT)}: {match.group(1)}")
        for match in DOTTED.finditer(text):
            if not dotted_exists(match.group(1)):
                stale.append(f"{doc.relative_to(ROOT)}: {match.group(1)}")
    return stale


def test_the_checker_knows_a_real_name_from_a_stale_one():
    assert path_exists("games/play/services.py")
    assert path_exists("demineur_site/formats.iso")
    assert not path_exists("games/services.py")
    assert dotted_exists("games.play.services.game_move")
    assert not dotted_exists("games.play.services.no_such_function")
    assert not dotted_exists("games.race_clock")


def test_every_name_in_the_docs_exists():
    assert stale_names() == []
