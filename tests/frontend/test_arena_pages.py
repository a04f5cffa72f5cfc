"""The arena pages' views (docs/ARENAS.md, The site): `/arenas` lists and creates, its form
bounded as the server bounds an arena; `/arenas/<id>` is one arena; a private arena's code is
a short link to it; an unknown code is the site's 404 page; the menu names the arenas, and
the profile has the arena record. What the pages show comes from the API in the browser
(tests/browser/test_arenas.py)."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from rest_framework.test import APIClient

from games.arenas import rules
from tests.support.personas import PASSWORD

pytestmark = pytest.mark.django_db


def test_the_arenas_page_lists_and_offers_a_signed_in_player_the_form(alice: object) -> None:
    anonymous = Client().get("/arenas").content.decode()
    assert 'id="arenas-running"' in anonymous and 'id="arenas-finished"' in anonymous
    assert 'id="create-arena"' not in anonymous and 'href="/signin?next=/arenas"' in anonymous
    assert 'src="/static/frontend/js/arenas.js"' in anonymous
    client = Client()
    assert client.login(username="alice", password=PASSWORD)
    answer = client.get("/arenas")
    html = answer.content.decode()
    assert 'id="create-arena"' in html and "csrftoken" in answer.cookies
    minutes = re.search(r'name="minutes" min="(\d+)" max="(\d+)"', html)
    assert minutes and minutes.groups() == (str(rules.MIN_MINUTES), str(rules.MAX_MINUTES))
    assert re.search(r"<a href=\"/arenas\" aria-current=\"page\">Arenas</a>", html)


def test_an_arena_page_and_a_private_arenas_code_as_a_link(alice_api: APIClient) -> None:
    body = {"level": "beginner", "minutes": 20, "private": True}
    arena = alice_api.post("/api/arenas", body, format="json").json()
    html = Client().get(f"/arenas/{arena['id']}").content.decode()
    assert f'data-arena-id="{arena["id"]}"' in html
    assert 'src="/static/frontend/js/arena.js"' in html
    assert re.search(r"<a href=\"/arenas\" aria-current=\"page\">Arenas</a>", html)
    # The rules' numbers on the page are the rules' own.
    assert f"the winner {rules.WIN_POINTS} ({2 * rules.WIN_POINTS} in a race" in html
    for typed in (arena["code"], arena["code"].lower()):
        answer = Client().get(f"/arenas/{typed}")
        assert answer.status_code == 302 and answer["Location"] == f"/arenas/{arena['id']}"


def test_an_unknown_arena_code_is_the_sites_404_page_in_the_readers_language() -> None:
    answer = Client().get("/arenas/ZZZZZZ")
    assert answer.status_code == 404 and "No such arena" in answer.content.decode()
    french = Client(headers={"accept-language": "fr"}).get("/arenas/ZZZZZZ").content.decode()
    assert "No such arena" not in french and 'lang="fr"' in french


def test_the_profile_has_the_arena_record() -> None:
    from accounts.models import User

    User.objects.create_user(username="olga", password=PASSWORD)
    html = Client().get("/players/olga").content.decode()
    assert 'id="arena-stats"' in html
    for stat in ("played", "podiums", "best_rank"):
        assert f'data-arena-stat="{stat}"' in html
