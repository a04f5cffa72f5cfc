"""The Python client's daily area against the real site (uvicorn on a thread, the test
database): today's six, one attempt, the board and the calendar."""

from __future__ import annotations

import pytest
from demineur_client import Client, Conflict, NotFound

from tests.support import boards
from tests.support.client import signed_in


def _signed_in(base: str) -> Client:
    return signed_in(base, "d")


def test_todays_daily_through_the_client(live: str) -> None:
    with _signed_in(live) as api:
        today = api.daily.today()
        assert [level["level"] for level in today["levels"]][:2] == ["beginner", "intermediate"]
        game = api.daily.start("beginner")
        assert game["state"] == "playing" and game["seq"] == 1 and game["daily"] == today["date"]
        assert api.daily.start("beginner")["id"] == game["id"]  # one attempt: the same game
        for x, y in boards.safe_closed(game["id"]):
            if api.games.reveal(game["id"], x, y)["game"]["state"] == "won":
                break
        me = api.accounts.me()["username"]
        board = api.daily.board("beginner")
        assert [row["player"] for row in board["results"]] == [me]
        assert board["results"][0]["state"] == "won"
        mine = next(level for level in api.daily.today()["levels"] if level["level"] == "beginner")
        assert mine["game"]["id"] == game["id"] and mine["share"].startswith("Démineur daily")
        calendar = api.daily.calendar(me)
        assert [row["game_id"] for row in calendar["results"]] == [game["id"]]
        with pytest.raises(Conflict) as refused:
            api.daily.practice(today["date"], "beginner")
        assert refused.value.code == "daily_not_over"
        with pytest.raises(NotFound):
            api.daily.start("custom")
