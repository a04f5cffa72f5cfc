"""A token makes tokens only within its own scopes (API.md, Token scopes; docs/ARCHITECTURE.md,
Extensions of API.md; accounts.scopes.granted).

The review made a token with only `account:write` (what settings and token pages need) and,
with it, `POST /api/tokens {name}`: the new token carried all four scopes, so a leaked
account token became one that plays, races and reads everything. Now a token gives only
scopes it has: asking for another is 403 `missing_scope` and makes nothing; without `scopes`
the new token gets the maker's own. A session (the web page) has every scope and may give
any, as may a token that has all four."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from accounts import scopes
from accounts.models import ApiToken, User
from accounts.services import token_issue
from tests.support.http import assert_error

pytestmark = pytest.mark.django_db

G, R, AR, AW = "game:play", "race:play", "account:read", "account:write"


def _with_token(user: User, given: list[str]) -> APIClient:
    _, key = token_issue(user=user, name="maker", scopes=scopes.stored(given))
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return api


def _mint(api: Any, **body: Any) -> Any:
    return api.post("/api/tokens", {"name": "minted", **body}, format="json")


def _minted_scopes(answer: Any) -> list[str]:
    assert answer.status_code == 201, answer.content
    return list(answer.json()["scopes"])


def test_an_account_write_token_cannot_mint_a_token_with_more_scopes(alice: User) -> None:
    api = _with_token(alice, [AW])
    # Without `scopes`: the maker's own, not all four.
    assert _minted_scopes(_mint(api)) == [AW]
    made = ApiToken.objects.filter(user=alice, name="minted").get()
    assert scopes.parse(made.scopes) == {AW}
    for asked in ([G], [AW, G], list(scopes.ALL)):
        before = ApiToken.objects.count()
        refused = _mint(api, scopes=asked)
        body = assert_error(refused, 403, "missing_scope")
        assert body["error"]["details"]["missing"] == [
            s for s in scopes.ALL if s in asked and s != AW
        ]
        assert body["error"]["details"]["scopes"] == [AW]
        assert ApiToken.objects.count() == before  # nothing made
    assert _minted_scopes(_mint(api, scopes=[AW])) == [AW]
    assert _minted_scopes(_mint(api, scopes=[])) == []


def test_a_token_may_give_any_part_of_its_own_scopes(alice: User) -> None:
    api = _with_token(alice, [G, AW])
    assert _minted_scopes(_mint(api)) == [G, AW]
    assert _minted_scopes(_mint(api, scopes=[G])) == [G]
    refused = _mint(api, scopes=[G, R])
    assert assert_error(refused, 403, "missing_scope")["error"]["details"]["missing"] == [R]
    # An unknown scope is still 400, before the question of whose scopes they are.
    assert_error(_mint(api, scopes=["admin"]), 400, "invalid")


def test_a_minted_token_cannot_do_what_its_maker_could_not(alice: User) -> None:
    key = _mint(_with_token(alice, [AW])).json()["token"]
    minted = APIClient()
    minted.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    refused = minted.post("/api/games", {"level": "beginner"}, format="json")
    assert_error(refused, 403, "missing_scope")


def test_a_session_and_a_token_with_every_scope_give_any(alice: User) -> None:
    page = Client()
    page.force_login(alice)
    answer = page.post("/api/tokens", {"name": "from the page"}, "application/json")
    assert answer.status_code == 201, answer.content
    assert answer.json()["scopes"] == list(scopes.ALL)  # as before scopes
    answer = page.post("/api/tokens", {"name": "bot", "scopes": [G, R]}, "application/json")
    assert answer.json()["scopes"] == [G, R]

    full = _with_token(alice, list(scopes.ALL))
    assert _minted_scopes(_mint(full)) == list(scopes.ALL)
    assert _minted_scopes(_mint(full, scopes=[R, AR])) == [R, AR]
