"""What the page tests of this folder read in a rendered page's HTML."""

from __future__ import annotations

import re


def section_attr(page: str, section: str, name: str) -> str:
    """The `name` attribute of the page's `<section id="{section}">`, which its script reads."""
    found = re.search(rf'<section[^>]* id="{section}"[^>]*>', page)
    assert found, f"no #{section}"
    value = re.search(rf' {name}="([^"]*)"', found.group(0))
    assert value, f"no {name} on #{section}"
    return value.group(1)
