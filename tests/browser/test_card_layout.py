"""Cards keep their content tidy: no empty band above a card's heading
("Games in progress" on the home page), and the sign-up and sign-in fields reach the card's
edge, on a desktop and on a phone."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.support.browser import cell, screenshot, start_game


def padding(page: Any, selector: str, side: str) -> float:
    return float(
        page.evaluate(
            f"parseFloat(getComputedStyle(document.querySelector('{selector}')).padding{side})"
        )
    )


@pytest.mark.parametrize("device", ["desktop", "phone"])
def test_no_band_above_games_in_progress_and_sign_up_fields_fill_the_card(
    request: pytest.FixtureRequest, device: str, live: str
) -> None:
    # `live` named here, not only through the device picked at run time: pytest-django sets
    # up and opens the test database for the fixtures a test names when it is collected.
    context = request.getfixturevalue(device)
    page = context.new_page()
    start_game(page, "beginner")  # a visitor's guest game, in progress after its first tap
    cell(page, 4, 4).click()
    expect(cell(page, 4, 4)).to_have_attribute("data-v", "0")
    page.goto("/")
    card = page.locator("#current")
    expect(card).to_be_visible()
    heading = card.locator("h2")
    gap = heading.bounding_box()["y"] - card.bounding_box()["y"]
    assert gap <= padding(page, "#current", "Top") + 2, gap  # the card's padding, no margin
    screenshot(page, f"card-games-in-progress-{device}")

    page.goto("/signup")
    form = page.locator("#auth-form")
    expect(form).to_be_visible()
    card = form.locator("..").bounding_box()  # the sign-up card
    right_pad = float(
        page.evaluate(
            "parseFloat(getComputedStyle(document.getElementById('auth-form').parentElement)"
            ".paddingRight)"
        )
    )
    inner_right = card["x"] + card["width"] - right_pad
    for name in ("username", "password", "email"):
        field = page.locator(f"#auth-form input[name={name}]").bounding_box()
        assert abs(field["x"] + field["width"] - inner_right) <= 2, (name, field, inner_right)
    screenshot(page, f"card-signup-{device}")
