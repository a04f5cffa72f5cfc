"""The API reference on the site (`/reference/`): the prose the OpenAPI schema cites, API.md
and RULES.md (the contract, kept in docs/contract/) and docs/**/*.md, rendered from the
repository's Markdown when a page is asked for (docs/FRONTEND.md, The API reference).

Rendered by markdown-it-py (CommonMark, with GitHub's tables) with raw HTML off: a `<tag>` in
a file comes out as text, and links whose scheme is not a web or mail one (`javascript:`,
`data:` ...) are not made links. Only the files listed by `documents()` are served; a name is
looked up in that list, never joined to a path. A relative link to another `.md` file, and a
code span that names one (`docs/RACES.md`), lead to that file's page; headings get ids, so
`API.md#games` finds its section."""

from __future__ import annotations

import posixpath
import re
from pathlib import Path
from typing import Any

from django.conf import settings
from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict

URL = "/reference/"
# The contract's own files, served under their own names (API.md, RULES.md).
CONTRACT_DIR = "docs/contract"


def documents() -> dict[str, Path]:
    """Every page of the reference: its name (`API.md`, `docs/RACES.md`) and its file."""
    root = Path(settings.BASE_DIR)
    contract = root / CONTRACT_DIR
    found = {p.name: p for p in sorted(contract.glob("*.md"))}
    for path in sorted((root / "docs").rglob("*.md")):
        if contract not in path.parents:
            found[path.relative_to(root).as_posix()] = path
    return found


def page_url(name: str, anchor: str = "") -> str:
    return URL + name + (f"#{anchor}" if anchor else "")


def slug(text: str) -> str:
    """A heading's id, as GitHub makes it: lower case, punctuation dropped, spaces to `-`."""
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def _target(href: str, here: str, names: dict[str, Path]) -> str | None:
    """The reference page of a relative link to a `.md` file, or None for any other link."""
    if re.match(r"^[a-z][a-z0-9+.-]*:|^/|^#", href, re.I):
        return None
    path, _, anchor = href.partition("#")
    if not path.endswith(".md"):
        return None
    base = "" if here in names and "/" not in here else posixpath.dirname(here)
    name = posixpath.normpath(posixpath.join(base, path))
    for candidate in (name, posixpath.basename(name), f"docs/{path}"):
        if candidate in names:
            return page_url(candidate, anchor)
    return None


def _renderer(here: str, names: dict[str, Path]) -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False}).enable("table")

    def anchors_and_links(state: Any) -> None:
        tokens: list[Token] = state.tokens
        for i, token in enumerate(tokens):
            if token.type == "heading_open" and i + 1 < len(tokens):
                token.attrSet("id", slug(tokens[i + 1].content))
            for child in token.children or []:
                if child.type == "link_open":
                    target = _target(str(child.attrGet("href") or ""), here, names)
                    if target is not None:
                        child.attrSet("href", target)

    md.core.ruler.push("reference_links", anchors_and_links)

    def code_inline(
        self: RendererHTML, tokens: list[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        token = tokens[idx]
        code = f"<code>{escapeHtml(token.content)}</code>"
        named, _, anchor = token.content.partition("#")
        if named in names:
            return f'<a href="{escapeHtml(page_url(named, anchor))}">{code}</a>'
        return code

    md.add_render_rule("code_inline", code_inline)
    return md


def render(name: str) -> tuple[str, str] | None:
    """The title and the HTML of the page `name`, or None when there is no such page."""
    names = documents()
    path = names.get(name)
    if path is None:
        return None
    text = path.read_text(encoding="utf-8")
    heading = re.search(r"^#\s+(.+)$", text, re.M)
    return (heading.group(1).strip() if heading else name), _renderer(name, names).render(text)


def index() -> list[tuple[str, str, str]]:
    """Every page: its name, its title (its first heading) and its URL; the contract first."""
    rows = []
    for name, path in documents().items():
        heading = re.search(r"^#\s+(.+)$", path.read_text(encoding="utf-8"), re.M)
        rows.append((name, heading.group(1).strip() if heading else name, page_url(name)))
    return rows
