"""French, Spanish, German, Brazilian Portuguese, Simplified Chinese and Japanese: a
browser set to one of them gets the pages and the scripts' strings in it, counted
words follow the language's plural rule, and the menu names each language in itself."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.support.browser import how_to_play_in, screenshot, sign_up_by_api, speaking
from tests.support.languages import PAGE_LANGUAGES


@pytest.mark.parametrize("lang", ["fr", "es", "de", "pt-br", "zh-hans", "ja"])
def test_the_browser_language_chooses_the_page_and_its_scripts(
    browser: Any, live: str, lang: str
) -> None:
    with how_to_play_in(browser, live, lang, html_lang=lang) as first_cell:
        # A string of the JavaScript catalogue: the label of the first cell of a live demo board.
        expect(first_cell).to_have_attribute("aria-label", PAGE_LANGUAGES[lang].closed_cell)


@pytest.mark.parametrize(
    ("locale", "name", "title", "beginner", "howto"),
    [
        ("fr-FR", "fr", "Jouer au démineur", "9 × 9 · 10 mines", "Ouverture groupée"),  # noqa: RUF001
        ("ja-JP", "ja", "マインスイーパで遊ぶ", "9 × 9 · 地雷 10 個", "両クリック"),  # noqa: RUF001
    ],
)
def test_the_home_page_and_how_to_play_read_in_french_and_japanese(
    browser: Any, live: str, locale: str, name: str, title: str, beginner: str, howto: str
) -> None:
    with speaking(browser, live, locale) as context:
        page = context.new_page()
        page.goto("/")
        expect(page.locator("h1")).to_have_text(title)
        expect(page.locator('[data-level="beginner"] .muted')).to_have_text(beginner)
        screenshot(page, f"home-{name}")
        page.goto("/how-to-play")
        expect(page.locator("h2", has_text=howto)).to_be_visible()
        screenshot(page, f"how-to-play-{name}", full_page=True)


def test_french_says_zero_in_the_singular_where_english_says_it_in_the_plural(
    browser: Any, live: str
) -> None:
    """The profile's race totals are three counted words: French counts 0 and 1 alike."""
    with speaking(browser, live, "fr-FR") as context:
        sign_up_by_api(context, "amelie")
        page = context.new_page()
        page.goto("/players/amelie")
        expect(page.locator("#race-totals")).to_have_text("0 course, 0 victoire, 0 podium")


def test_the_menu_names_each_language_in_itself(desktop: Any) -> None:
    page = desktop.new_page()
    page.goto("/")
    options = page.locator("#language-select option")
    names = options.all_inner_texts()
    for own in (
        "Français",
        "Español",
        "Deutsch",
        "Português Brasileiro",
        "简体中文",
        "日本語",
        "Polski",
    ):
        assert own in names
    page.select_option("#language-select", "ja")
    expect(page.locator("h1")).to_have_text("マインスイーパで遊ぶ")
    expect(page.locator("html")).to_have_attribute("lang", "ja")


PAGES_AT_360 = [
    "/",
    "/races",
    "/arenas",
    "/leaderboards/beginner",
    "/how-to-play",
    "/settings",
    "/signup",
    "/account",
]


@pytest.mark.parametrize("locale", ["fr-FR", "es-ES", "de-DE", "pt-BR", "zh-CN", "ja-JP"])
def test_no_page_scrolls_sideways_on_a_360_px_phone_in_the_longer_words(
    browser: Any, live: str, locale: str
) -> None:
    """German, French, Portuguese words are longer than English ones: still nothing wider."""
    phone = {"device_scale_factor": 2, "is_mobile": True, "has_touch": True}
    with speaking(browser, live, locale, 360, 740, **phone) as context:
        sign_up_by_api(context, "lea")
        page = context.new_page()
        for path in [*PAGES_AT_360, "/players/lea"]:
            page.goto(path)
            page.wait_for_load_state("networkidle")
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= 360, f"{locale} {path} is {width} px wide on a 360 px phone"
        page.goto("/")
        page.click('[data-level="expert"]')
        page.wait_for_selector("#board .cell")
        assert page.evaluate("document.documentElement.scrollWidth") <= 360, f"{locale} game"
