"""The interface speaks English and the five languages of the rule sheets:
chosen from the browser's language, switchable from the menu, in templates and scripts."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.support.browser import finished_beginner_with_flag_moves, how_to_play_in, speaking
from tests.support.languages import PAGE_LANGUAGES
from tests.support.personas import PASSWORD


@pytest.mark.parametrize("lang", ["pl", "ms", "ca", "nl", "th"])
def test_the_browser_language_chooses_the_pages_and_the_script_strings(
    browser: Any, live: str, lang: str
) -> None:
    locale, _, closed_cell = PAGE_LANGUAGES[lang]
    with how_to_play_in(browser, live, lang, html_lang=locale[:2]) as first_cell:
        # A string from the JavaScript catalog: the label of a closed cell of a live board.
        label = first_cell.get_attribute("aria-label")
        assert label is not None and label.startswith(closed_cell)


def test_a_visitor_switches_the_language_from_the_menu(desktop: Any) -> None:
    page = desktop.new_page()
    page.goto("/leaderboards")
    expect(page.locator("h1")).to_have_text("Leaderboards")
    page.select_option("#language-select", "nl")
    expect(page.locator("h1")).to_have_text("Ranglijsten")
    expect(page).to_have_url(re.compile(r"/leaderboards"))  # back on the same page
    page.select_option("#language-select", "en")
    expect(page.locator("h1")).to_have_text("Leaderboards")


@pytest.fixture
def polish(browser: Any, live: str) -> Iterator[Any]:
    """A Polish browser, in which tadeusz has signed up."""
    with speaking(browser, live, "pl-PL") as context:
        context.request.post(
            "/api/auth/register", data={"username": "tadeusz", "password": PASSWORD}
        )
        yield context


def test_a_polish_player_reads_a_server_error_in_polish(polish: Any) -> None:
    page = polish.new_page()
    page.goto("/signin")
    page.fill("input[name=username]", "tadeusz")
    page.fill("input[name=password]", "not the password")
    page.click("button[type=submit]")
    # The server says it in English; the page says it in the player's language.
    expect(page.locator("#auth-error")).to_have_text("Nieprawidłowa nazwa użytkownika lub hasło.")


def test_a_polish_player_reads_the_clock_with_a_decimal_comma(polish: Any) -> None:
    page = polish.new_page()
    game_id, _ = finished_beginner_with_flag_moves(polish, "tadeusz")
    page.goto(f"/games/{game_id}")
    expect(page.locator("#result")).to_be_visible()
    expect(page.locator("#clock")).to_have_text(re.compile(r"^\d+,\d$"))


def test_a_polish_player_gets_a_polish_not_found_page(polish: Any) -> None:
    page = polish.new_page()
    response = page.goto("/nie-ma-takiej-strony")
    assert response is not None and response.status == 404
    expect(page.locator("h1")).to_have_text("Nie znaleziono strony")
    expect(page.locator("#site-menu")).to_be_attached()  # the site's page, menu included
