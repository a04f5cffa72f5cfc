"""`npm ci` (run by `make typecheck` and `make vendor` on a fresh clone) installs the lock as it
is only while every dependency range in the lock still matches the locked version. A range
given as a dist-tag (`latest`, `next`) is re-read from the registry, so the lock breaks the day
the tag moves. Each package asked for by tag must be pinned in package.json's `overrides`, to
the version the lock holds. Fast: JSON only, no npm."""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# Every version range but the wildcards names a version, so it holds a digit; a dist-tag
# (`latest`, `next`, `beta`) holds none. Specs with a protocol or a path (`npm:`, `file:`, a
# URL, `owner/repo`) are neither.
WILDCARDS = {"", "*", "x", "X"}


def is_tag(spec: str) -> bool:
    spec = spec.strip()
    if ":" in spec or "/" in spec or spec in WILDCARDS:
        return False
    return not any(c.isdigit() for c in spec)


def tagged_dependencies(lock: dict) -> dict[str, set[str]]:
    """The packages that some package in the lock asks for by dist-tag, with the tags."""
    found: dict[str, set[str]] = {}
    for path, entry in lock["packages"].items():
        if not path:
            continue
        for kind in ("dependencies", "optionalDependencies", "peerDependencies"):
            for name, spec in entry.get(kind, {}).items():
                if is_tag(spec):
                    found.setdefault(name, set()).add(spec)
    return found


def test_the_tag_detector_tells_a_tag_from_a_range() -> None:
    lock = {
        "packages": {
            "": {},
            "node_modules/a": {
                "dependencies": {"b": "latest", "c": "^1.2.0", "d": ">=1 <2 || 3.x", "e": "next"}
            },
        }
    }
    assert tagged_dependencies(lock) == {"b": {"latest"}, "e": {"next"}}


def test_every_dependency_asked_for_by_tag_is_pinned_to_its_locked_version() -> None:
    lock = json.loads((ROOT / "package-lock.json").read_text())
    overrides = json.loads((ROOT / "package.json").read_text()).get("overrides", {})
    tagged = tagged_dependencies(lock)
    for name, tags in sorted(tagged.items()):
        locked = lock["packages"][f"node_modules/{name}"]["version"]
        assert overrides.get(name) == locked, (
            f"{name} is asked for as {sorted(tags)}: pin it in package.json's overrides to the "
            f"locked {locked}, or npm ci breaks when the tag moves"
        )
