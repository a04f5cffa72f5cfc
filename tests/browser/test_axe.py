"""No page has an accessibility violation axe-core can find, in the light theme and the dark
one: axe-core (npm, pinned in package.json) runs in Chromium on each main page."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.browser.test_layout_shift import _pages, _player_with_games
from tests.support.browser import new_context, token_for
from tests.support.personas import PASSWORD

AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"

# Each violation as one line: the rule, its impact and the first elements it names. `rules`:
# the rules to run (null: all of them).
RUN_AXE = """async (rules) => {
  const options = { resultTypes: ["violations"] };
  if (rules) options.runOnly = { type: "rule", values: rules };
  const found = await axe.run(document, options);
  return found.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(", ")}`);
}"""

COLOUR_RULES = ["color-contrast", "link-in-text-block"]


# The pages in thirds and the themes apart: one test of every page in both themes took a
# minute of a loaded worker, and halves still took 18-27 s inside a PostgreSQL run
# (docs/TESTING.md: no test over 20 s).
PARTS = {"first": slice(0, 5), "second": slice(5, 9), "third": slice(9, None)}


@pytest.mark.skipif(not AXE.exists(), reason="axe-core is not installed: npm ci")
@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("part", list(PARTS))
def test_no_page_has_an_accessibility_violation(
    browser: Any, live: str, theme: str, part: str
) -> None:
    game = _player_with_games("ada")
    watched = _player_with_games("bea")  # another player's game: the watcher's page, Live badge
    # The page's CSP allows no inline script: the test's own axe is let in by bypass_csp.
    context = new_context(browser, live, 1280, 860, bypass_csp=True)
    auth = token_for(context, "ada")
    r = context.request.post("/api/auth/session", data={"username": "ada", "password": PASSWORD})
    assert r.status == 200, r.text()
    r = context.request.patch("/api/me/settings", data={"theme": theme}, headers=auth)
    assert r.status == 200, r.text()
    page = context.new_page()
    source = AXE.read_text()
    found = {}
    for path in [*_pages("ada", game), f"/games/{watched}", "/tokens"][PARTS[part]]:
        page.goto(path)
        page.wait_for_load_state("networkidle")
        assert page.evaluate("document.documentElement.dataset.shade") == theme
        page.add_script_tag(content=source)
        # A theme changes colours only: the dark one is checked for what colours decide.
        violations = page.evaluate(RUN_AXE, None if theme == "light" else COLOUR_RULES)
        if violations:
            found[path] = violations
    context.close()
    assert not found, found
