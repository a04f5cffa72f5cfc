"""The leaderboards page's tabs, driven from the keyboard, and the race board's season
selector, in real Chromium."""

from __future__ import annotations

from typing import Any

from django.utils import timezone
from playwright.sync_api import expect

from accounts.models import User
from accounts.standings import ratings
from accounts.standings.models import SeasonRating
from accounts.standings.seasons import season_of, seasons_before
from tests.support.browser import screenshot
from tests.support.personas import PASSWORD


def test_the_ranking_tabs_follow_the_arrow_keys(desktop: Any) -> None:
    page = desktop.new_page()
    page.goto("/leaderboards/expert")
    page.locator("#tab-times").focus()
    page.keyboard.press("ArrowRight")
    expect(page.locator("#tab-speed")).to_have_attribute("aria-selected", "true")
    expect(page.locator("#tab-speed")).to_be_focused()
    expect(page.locator("#ranking thead")).to_contain_text("3BV/s")
    page.keyboard.press("End")  # the last tab: the race ratings (docs/RACES.md)
    expect(page.locator("#tab-races")).to_have_attribute("aria-selected", "true")
    expect(page.locator("#ranking-panel")).to_have_attribute("aria-labelledby", "tab-races")
    page.keyboard.press("ArrowLeft")
    expect(page.locator("#tab-streaks")).to_have_attribute("aria-selected", "true")
    expect(page.locator("#ranking-panel")).to_have_attribute("aria-labelledby", "tab-streaks")
    assert page.locator("[role=tab][tabindex='0']").count() == 1  # one Tab stop


def test_the_race_board_shows_a_season_beside_the_lasting_ratings(desktop: Any) -> None:
    # Two players past their provisional ratings (4 races against each other), rated only in
    # this season and the one before: the lasting board is empty, each season's has them.
    skills = [ratings.Skill.new()] * 2
    for n in range(4):
        skills = ratings.rate(skills, places=[1 + n % 2, 2 - n % 2])
    current = season_of(timezone.now())
    for name, skill in zip(("ada", "bo"), skills, strict=True):
        user = User.objects.create_user(username=name, password=PASSWORD)
        for season in (current, *seasons_before(current, 1)):
            SeasonRating.objects.create(
                player=user, season=season, level="expert", pool="human", mu=skill.mu,
                sigma=skill.sigma, rating=skill.shown, races=4, wins=2, rated_races=4,
            )  # fmt: skip
    page = desktop.new_page()
    page.goto("/leaderboards/expert?kind=races")
    expect(page.locator("#season-label")).to_be_visible()
    expect(page.locator("#empty")).to_be_visible()  # nobody has a lasting race rating
    expect(page.locator("#season option")).to_have_count(3)  # lasting, this season, the last
    page.locator("#season").select_option("current")
    expect(page.locator("#ranking tbody tr")).to_have_count(2)
    expect(page.locator("#ranking tbody")).to_contain_text("ada")
    assert "season=current" in page.url
    screenshot(page, "leaderboards-race-season")
