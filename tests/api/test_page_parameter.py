"""One reader of `?page=` (demineur_site.pagination.page_number) for every list and board: the
same query is accepted or refused the same way everywhere (a spaced " 3" was 400 on the game
lists and page 3 on the boards)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.http import assert_error

pytestmark = pytest.mark.django_db

LISTS = [
    "/api/games",
    "/api/races",
    "/api/leaderboards/beginner/times",
    "/api/leaderboards/beginner/streaks",
    "/api/leaderboards/beginner/races",
]


@pytest.mark.parametrize("path", LISTS)
@pytest.mark.parametrize("raw", [" 3", "3 ", "+3", "-1", "0", "3.0", "", "٣", "x"])
def test_a_page_that_is_not_plain_ascii_digits_from_1_is_400_everywhere(
    alice_api: Any, path: str, raw: str
) -> None:
    response = alice_api.get(path, {"page": raw})
    assert_error(response, 400, "invalid_page")


@pytest.mark.parametrize("path", LISTS)
def test_page_1_of_every_list_is_answered(alice_api: Any, path: str) -> None:
    response = alice_api.get(path, {"page": "1"})
    assert response.status_code == 200, response.content
    assert set(response.json()) >= {"count", "next", "previous", "results"}
