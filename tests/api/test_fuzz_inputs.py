"""No input gets a 500: random JSON bodies, paths and query strings against every endpoint
answer either success or a 4xx with the API.md error body, and refused moves change nothing."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.play.models import Game
from tests.support.http import start

pytestmark = pytest.mark.django_db

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**20), max_value=10**20),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=20),
)
json_values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=10,
)
move_like = st.fixed_dictionaries(
    {},
    optional={
        "x": json_values | st.integers(min_value=-3, max_value=12),
        "y": json_values | st.integers(min_value=-3, max_value=12),
        "flagged": json_values,
        "client_move_id": json_values,
        "level": json_values | st.sampled_from(["beginner", "expert", "custom", ""]),
        "width": json_values | st.integers(min_value=0, max_value=120),
        "height": json_values | st.integers(min_value=0, max_value=120),
        "mines": json_values | st.integers(min_value=0, max_value=200),
    },
)
bodies = st.one_of(move_like, json_values)

ACTIONS = ["reveal", "flag", "chord", "pause", "resume", "resign"]
FUZZ = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def _check(response: Any) -> None:
    assert response.status_code < 500, response.content
    if response.status_code >= 400:
        body = response.json()
        assert set(body) == {"error"} and {"code", "message", "details"} <= set(body["error"])


@FUZZ
@given(action=st.sampled_from(ACTIONS), body=bodies)
def test_random_move_bodies_never_cause_a_500(alice_api, action, body):
    game = Game.objects.filter(player__username="alice", level="beginner").first()
    game_id = str(game.id) if game is not None else start(alice_api)["id"]
    before = Game.objects.get(pk=game_id).seq
    response = alice_api.post(
        f"/api/games/{game_id}/{action}", json.dumps(body), content_type="application/json"
    )
    _check(response)
    if response.status_code >= 400:
        assert Game.objects.get(pk=game_id).seq == before


@FUZZ
@given(body=bodies)
def test_random_create_bodies_never_cause_a_500(alice_api, body):
    _check(alice_api.post("/api/games", json.dumps(body), content_type="application/json"))


@FUZZ
@given(
    path=st.sampled_from(
        [
            "/api/games",
            "/api/games/{}",
            "/api/games/{}/moves",
            "/api/users/{}",
            "/api/leaderboards/{}/times",
            "/api/leaderboards/{}/speed",
            "/api/leaderboards/{}/streaks",
        ]
    ),
    segment=st.text(
        alphabet=st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=12
    ),
    query=st.dictionaries(
        st.sampled_from(
            ["page", "page_size", "state", "level", "user", "period", "sort", "around"]
        ),
        st.text(max_size=10) | st.integers(min_value=-5, max_value=10**12).map(str),
        max_size=4,
    ),
)
def test_random_reads_never_cause_a_500(anon_api, path, segment, query):
    from urllib.parse import quote

    url = path.format(quote(segment.replace("/", ""), safe="")) if "{}" in path else path
    _check(anon_api.get(url, query))


def test_nul_characters_are_refused_not_crashed_on(alice_api, anon_api):
    game = start(alice_api)
    for body in (
        {"x": 0, "y": 0, "client_move_id": "a\x00b"},
        {"level": "beg\x00inner"},
    ):
        url = f"/api/games/{game['id']}/reveal" if "x" in body else "/api/games"
        _check(alice_api.post(url, json.dumps(body), content_type="application/json"))
    _check(anon_api.get("/api/users/al%00ice"))
    _check(anon_api.get("/api/games", {"user": "a\x00", "level": "x\x00"}))
    _check(
        anon_api.post("/api/auth/token", {"username": "a\x00", "password": "p\x00"}, format="json")
    )
    _check(
        anon_api.post(
            "/api/auth/register",
            {"username": "a\x00", "password": "p\x00wwwwwwwwww"},
            format="json",
        )
    )
    _check(
        anon_api.post("/api/auth/session", {"username": "a\x00", "password": "x"}, format="json")
    )
