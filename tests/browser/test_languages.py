"""The interface speaks English and the five languages of the rule sheets (issue 5, item 5):
chosen from the browser's language, switchable from the menu, in templates and scripts."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


@pytest.mark.parametrize(
    ("locale", "heading", "closed_cell"),
    [
        ("pl-PL", "Zasady Démineur", "zakryte"),
        ("ms-MY", "Peraturan Démineur", "tertutup"),
        ("ca-ES", "Les regles de Démineur", "oculta"),
        ("nl-NL", "De regels van Démineur", "gesloten"),
        ("th-TH", "กติกาของ Démineur", "ยังไม่เปิด"),
    ],
)
def test_the_browser_language_chooses_the_pages_and_the_script_strings(
    browser: Any, live: str, locale: str, heading: str, closed_cell: str
) -> None:
    context = browser.new_context(
        base_url=live, locale=locale, viewport={"width": 1000, "height": 800}
    )
    try:
        page = context.new_page()
        page.goto("/how-to-play")
        expect(page.locator("h1")).to_have_text(heading)
        expect(page.locator("html")).to_have_attribute("lang", locale[:2])
        # A string from the JavaScript catalog: the label of a closed cell of a live board.
        label = page.locator('[data-demo="square"] .cell').first.get_attribute("aria-label")
        assert label is not None and label.startswith(closed_cell)
    finally:
        context.close()


def test_a_visitor_switches_the_language_from_the_menu(desktop: Any) -> None:
    page = desktop.new_page()
    page.goto("/leaderboards")
    expect(page.locator("h1")).to_have_text("Leaderboards")
    page.select_option("#language-select", "nl")
    expect(page.locator("h1")).to_have_text("Ranglijsten")
    expect(page).to_have_url(re.compile(r"/leaderboards"))  # back on the same page
    page.select_option("#language-select", "en")
    expect(page.locator("h1")).to_have_text("Leaderboards")
