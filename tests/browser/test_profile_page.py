"""A player's profile page: the menu marks only your own profile, and the chart opens on the
level played most, in real Chromium."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.utils import timezone
from playwright.sync_api import expect

from accounts.models import User
from games.engine import Board
from games.play.models import BoardSize, Game, GameState
from tests.support.browser import screenshot, sign_up_by_api
from tests.support.personas import PASSWORD


def test_another_players_profile_does_not_highlight_my_profile(desktop: Any) -> None:
    sign_up_by_api(desktop, "olga")
    User.objects.create_user(username="piet", password=PASSWORD)
    page = desktop.new_page()
    page.goto("/players/piet")
    mine = page.locator('nav a[href="/players/olga"]')
    expect(mine).to_be_visible()
    expect(mine).not_to_have_attribute("aria-current", "page")
    page.goto("/players/olga")
    expect(mine).to_have_attribute("aria-current", "page")
    page.goto("/players/piet")
    screenshot(page, "walk-other-profile")


def _won_games(user: User, level: str, count: int) -> None:
    """`count` won games of `level` written directly (the chart only reads them)."""
    spec = Board.new(9, 9, 10) if level == "beginner" else Board.new(16, 10, 25)
    now = timezone.now()
    for i in range(count):
        Game.objects.create(
            player=user,
            level=level,
            **BoardSize.of(spec),
            ranked=True,
            state=GameState.WON,
            end_reason="cleared",
            board=spec.encode(),
            mines_left=spec.mines,
            created_at=now - timedelta(hours=count - i),
            started_at=now - timedelta(hours=count - i),
            ended_at=now - timedelta(hours=count - i) + timedelta(seconds=30 + i),
            elapsed_ms=(30 + i) * 1000,
        )


def test_the_chart_opens_on_the_level_played_most_with_more_than_the_last_twenty_games(
    desktop: Any,
) -> None:
    sign_up_by_api(desktop, "tess")
    tess = User.objects.get(username="tess")
    _won_games(tess, "intermediate", 30)
    _won_games(tess, "beginner", 3)  # the newest games, but the level played least
    from accounts.standings.models import PlayerStats

    PlayerStats.objects.update_or_create(
        user=tess, level="intermediate", defaults={"played": 30, "won": 30}
    )
    PlayerStats.objects.update_or_create(
        user=tess, level="beginner", defaults={"played": 3, "won": 3}
    )
    page = desktop.new_page()
    page.goto("/players/tess")
    expect(page.locator("#chart-level")).to_have_value("intermediate")
    expect(page.locator("#chart .dot")).to_have_count(30)
    screenshot(page, "walk-profile-chart")
