"""The puzzle pages' views (docs/FRONTEND.md, The puzzle pages): the training page, the puzzle
of the day and one puzzle are one page told apart by `data-mode`; an id that is no puzzle's is
the site's translated 404 page; the streak and the storm say their rules from the server's
constants; the menu names the puzzles; the page itself carries nothing of a puzzle's answer.
What the pages show of a puzzle comes from the API in the browser (tests/browser/test_puzzles.py)."""

from __future__ import annotations

import html
import json
import re

import pytest
from django.test import Client

from games.puzzles import rules
from games.puzzles.positions import THEMES
from tests.frontend.pages import section_attr
from tests.support import puzzles as drawings

pytestmark = pytest.mark.django_db


def test_the_training_page_offers_every_theme_in_the_servers_order() -> None:
    answer = Client().get("/puzzles?theme=chain")
    assert answer.status_code == 200
    page = answer.content.decode()
    assert section_attr(page, "puzzle", "data-mode") == "next"
    assert section_attr(page, "puzzle", "data-theme") == "chain"
    select = re.search(r'<select class="field" id="theme">(.*?)</select>', page, re.S)
    assert select
    assert re.findall(r'<option value="(\w+)"', select.group(1)) == list(THEMES)
    assert '<option value="chain" selected>' in page
    assert "csrftoken" in answer.cookies  # its openings are session requests
    assert 'src="/static/frontend/js/puzzle.js"' in page
    assert 'id="start-solving"' in page  # a visitor may start as a guest


def test_the_menu_names_the_puzzles_and_marks_them_current() -> None:
    home = Client().get("/").content.decode()
    assert re.search(r'<a href="/puzzles">Puzzles</a>', home)
    for path in (
        "/puzzles",
        "/puzzles/daily",
        "/puzzles/streak",
        "/puzzles/storm",
        "/puzzles/dashboard",
    ):
        page = Client().get(path).content.decode()
        assert '<a href="/puzzles" aria-current="page">Puzzles</a>' in page, path


def test_the_puzzle_of_the_day_and_one_puzzle_are_the_same_page() -> None:
    daily = Client().get("/puzzles/daily").content.decode()
    assert section_attr(daily, "puzzle", "data-mode") == "daily"
    puzzle = drawings.store(drawings.FLOW)
    answer = Client().get(f"/puzzles/{puzzle.id}")
    assert answer.status_code == 200
    page = answer.content.decode()
    assert section_attr(page, "puzzle", "data-mode") == "one"
    assert section_attr(page, "puzzle", "data-puzzle-id") == str(puzzle.id)
    assert puzzle.layout not in page and '"solution"' not in page  # the answer stays on the server


# A fixed id: every xdist worker must collect the same test names.
@pytest.mark.parametrize(
    "path", ["/puzzles/5f0c3a52-8d1e-4b7a-9c3f-2e6d8a4b1c07", "/puzzles/not-a-puzzle"]
)
def test_an_id_that_is_no_puzzles_is_the_translated_404_page(path: str) -> None:
    answer = Client(headers={"accept-language": "fr"}).get(path)
    assert answer.status_code == 404
    page = answer.content.decode()
    assert 'id="not-found"' in page
    assert "No such puzzle" not in page  # said in French


def test_the_streak_and_the_storm_say_their_rules_from_the_servers_constants() -> None:
    streak = Client().get("/puzzles/streak").content.decode()
    assert section_attr(streak, "puzzle-run", "data-kind") == "streak"
    assert "the first failure ends the streak" in streak
    storm = Client().get("/puzzles/storm").content.decode()
    assert section_attr(storm, "puzzle-run", "data-kind") == "storm"
    minutes = int(rules.STORM_DURATION.total_seconds() // 60)
    penalty = int(rules.STORM_PENALTY.total_seconds())
    assert f"in {minutes} minutes" in storm and f"takes {penalty} s off it" in storm
    assert 'id="storm-clock"' in storm and 'id="storm-clock"' not in streak


def test_the_dashboard_asks_a_visitor_to_sign_in_and_shows_the_boards() -> None:
    page = Client().get("/puzzles/dashboard").content.decode()
    assert 'href="/signin?next=/puzzles/dashboard"' in page
    assert 'id="dash-stats"' not in page
    assert re.findall(r'data-board="(\w+)"', page) == ["rating", "streak", "storm"]


def test_every_page_carries_the_puzzles_themes_and_the_storms_clock() -> None:
    page = Client(headers={"accept-language": "de"}).get("/").content.decode()
    found = re.search(r'<html[^>]*\sdata-site-constants="([^"]*)"', page)
    assert found
    puzzles = json.loads(html.unescape(found.group(1)))["puzzles"]
    assert [t["name"] for t in puzzles["themes"]] == list(THEMES)
    assert all(t["label"] and t["label"] != t["name"] for t in puzzles["themes"])
    assert puzzles["storm_ms"] == rules.STORM_DURATION.total_seconds() * 1000
    assert puzzles["storm_penalty_ms"] == rules.STORM_PENALTY.total_seconds() * 1000
