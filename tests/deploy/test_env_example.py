"""Secrets safe by default (issue 43): every setting the compose files read (`${NAME...}`) is in
.env.example, the file an operator copies to .env; .env itself is ignored by git; the proxy is
published on 127.0.0.1 unless .env says otherwise. Fast: text and YAML only, no Docker."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
COMPOSE_FILES = sorted(ROOT.glob("docker-compose*.yml"))
# Compose interpolation: ${NAME}, ${NAME:-default}, ${NAME:?error}, $NAME; `$$` is a literal `$`.
REFERENCE = re.compile(r"\$(\$|\{([A-Za-z_][A-Za-z0-9_]*)|([A-Za-z_][A-Za-z0-9_]*))")


def strings(node: Any) -> Iterator[str]:
    """Every string of a parsed YAML document, keys included (comments are not in it)."""
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for key, value in node.items():
            yield from strings(key)
            yield from strings(value)
    elif isinstance(node, list):
        for item in node:
            yield from strings(item)


def references(text: str) -> set[str]:
    """The names a compose file interpolates."""
    found = set()
    for document in yaml.safe_load_all(text):
        for value in strings(document):
            for match in REFERENCE.finditer(value):
                name = match.group(2) or match.group(3)
                if name:
                    found.add(name)
    return found


def example_names() -> set[str]:
    text = (ROOT / ".env.example").read_text()
    return set(re.findall(r"^([A-Za-z_][A-Za-z0-9_]*)=", text, re.M))


def test_references_reads_every_form_of_interpolation_and_skips_escaped_dollars() -> None:
    text = (
        "a: ${ONE}\nb: '${TWO:-x}:${THREE:?set it}'\nc: [$FOUR, \"$$(not a name)\", '$${NOR}']\n"
        "# ${IN_A_COMMENT}\n"
    )
    assert references(text) == {"ONE", "TWO", "THREE", "FOUR"}


def test_env_example_names_every_setting_the_compose_files_read() -> None:
    assert COMPOSE_FILES, "no docker-compose*.yml at the root"
    names = example_names()
    for path in COMPOSE_FILES:
        missing = references(path.read_text()) - names
        assert not missing, f"{path.name} reads {sorted(missing)}, which .env.example lacks"


def test_the_env_file_is_ignored_by_git() -> None:
    ignored = [line.strip() for line in (ROOT / ".gitignore").read_text().splitlines()]
    assert ".env" in ignored


def test_the_proxy_is_published_on_loopback_unless_told_otherwise() -> None:
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    for port in compose["services"]["proxy"]["ports"]:
        assert str(port).startswith("${PUBLISH_ADDRESS:-127.0.0.1}:"), port
    example = (ROOT / ".env.example").read_text()
    assert re.search(r"^PUBLISH_ADDRESS=127\.0\.0\.1$", example, re.M)
