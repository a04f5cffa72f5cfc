"""The daily pages' views (docs/FRONTEND.md, The daily pages): `/daily` is today, `/daily/<day>`
any day up to today with links to its neighbours, a day to come or a date that is no date is
the site's translated 404 page; the navigation names the daily; the home page carries the
daily card and the profile its streak and calendar. What the pages show of a day comes from
the API in the browser (tests/browser/test_daily.py)."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from games.daily import rules
from games.engine import LEVELS
from tests.frontend.pages import section_attr

pytestmark = pytest.mark.django_db


def _today() -> str:
    return rules.day_of(timezone.now()).isoformat()


def _day(offset: int) -> str:
    return (rules.day_of(timezone.now()) + timedelta(days=offset)).isoformat()


def test_the_daily_page_is_today_with_a_tab_per_level_and_the_previous_day() -> None:
    answer = Client().get("/daily")
    assert answer.status_code == 200
    html = answer.content.decode()
    assert section_attr(html, "daily", "data-day") == ""
    assert section_attr(html, "daily", "data-today") == _today()
    tabs = re.findall(r'role="tab" aria-controls="board-panel" data-level="(\w+)"', html)
    assert tabs == list(LEVELS)
    assert f'href="/daily/{_day(-1)}" rel="prev"' in html
    assert 'id="next-day"' not in html  # no day after today
    assert "csrftoken" in answer.cookies  # its Play and Practise are session requests
    assert 'src="/static/frontend/js/daily.js"' in html


def test_a_past_day_links_its_neighbours_and_the_day_before_today_links_today() -> None:
    html = Client().get(f"/daily/{_day(-3)}").content.decode()
    assert section_attr(html, "daily", "data-day") == _day(-3)
    assert f'href="/daily/{_day(-4)}" rel="prev"' in html
    assert f'href="/daily/{_day(-2)}" rel="next"' in html
    html = Client().get(f"/daily/{_day(-1)}").content.decode()
    assert 'href="/daily" rel="next"' in html
    # Today by its date is today's page, under its own address.
    html = Client().get(f"/daily/{_today()}").content.decode()
    assert section_attr(html, "daily", "data-day") == _today() and 'id="next-day"' not in html


@pytest.mark.parametrize("day", ["tomorrow", "2026-02-30", "not-a-day", "20261201", "+1"])
def test_a_day_to_come_or_a_date_that_is_no_date_is_the_sites_404_page(day: str) -> None:
    path = f"/daily/{_day(1)}" if day == "tomorrow" else f"/daily/{day}"
    answer = Client().get(path)
    assert answer.status_code == 404
    html = answer.content.decode()
    assert 'id="not-found"' in html and "No daily on this day" in html
    assert 'id="daily"' not in html


def test_the_404_of_a_day_to_come_is_translated() -> None:
    answer = Client().get(f"/daily/{_day(1)}", HTTP_ACCEPT_LANGUAGE="fr")
    assert answer.status_code == 404
    assert "No daily on this day" not in answer.content.decode()


def test_the_navigation_names_the_daily_and_marks_it_on_its_page() -> None:
    home = Client().get("/").content.decode()
    assert re.search(r'<a href="/daily">Daily</a>', home)
    page = Client().get("/daily").content.decode()
    assert '<a href="/daily" aria-current="page">Daily</a>' in page


def test_the_home_page_has_the_daily_card() -> None:
    html = Client().get("/").content.decode()
    assert 'id="daily-card"' in html and 'id="daily-card-levels"' in html
    assert 'id="daily-card-clock"' in html and 'href="/daily"' in html


def test_the_profile_has_the_daily_streaks_and_a_calendar_column_per_level(alice) -> None:
    html = Client().get("/players/alice").content.decode()
    stats = re.findall(r'<div class="stat" data-stat="(\w+)">', html)
    assert stats == ["current_streak", "best_streak", "played", "won", "best_rank"]
    section = html[html.index('id="daily-calendar"') :]
    columns = re.findall(r'<th scope="col" data-level="(\w+)">', section)
    assert columns == list(LEVELS)
