"""What an arena may be called and how many one account or one address keeps open
(docs/ARENAS.md, Decisions): a name with a bidirectional control, or with nothing to see, is
400 `invalid` and creates nothing; an account keeps at most rules.MAX_OPEN_ARENAS arenas not
finished, an address (an IPv6 one by its /64) rules.MAX_OPEN_ARENAS_PER_ADDRESS, whatever
accounts it uses: beyond, 409 `too_many_arenas` and nothing created."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from accounts.models import User
from games.arenas import rules
from games.arenas.models import Arena
from tests.support.http import assert_error
from tests.support.personas import PASSWORD, client_for

pytestmark = pytest.mark.django_db

BODY = {"level": "beginner", "minutes": 20}
BIDI = ["\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069"]
BIDI += ["\u200e", "\u200f", "\u061c"]


def _create(api: APIClient, address: str | None = None, **body: Any) -> Any:
    extra: dict[str, Any] = {"REMOTE_ADDR": address} if address else {}
    return api.post("/api/arenas", {**BODY, **body}, format="json", **extra)


@pytest.mark.parametrize("control", BIDI, ids=[f"U+{ord(c):04X}" for c in BIDI])
def test_a_name_with_a_bidirectional_control_is_refused(alice_api: APIClient, control: str) -> None:
    refused = assert_error(_create(alice_api, name=f"Friday{control} night"), 400, "invalid")
    assert refused["error"]["details"]["fields"] == {"name": "bidi"}
    assert not Arena.objects.exists()


@pytest.mark.parametrize(
    "name", ["\u200b", "\u200b\u200c\u200d", "\u2060 \ufeff", " \u200b\u00ad \u180e "]
)
def test_a_name_with_nothing_to_see_is_refused(alice_api: APIClient, name: str) -> None:
    refused = assert_error(_create(alice_api, name=name), 400, "invalid")
    assert refused["error"]["details"]["fields"] == {"name": "blank"}
    assert not Arena.objects.exists()


def test_a_name_with_a_control_character_is_refused(alice_api: APIClient) -> None:
    refused = assert_error(_create(alice_api, name="two\nlines"), 400, "invalid")
    assert refused["error"]["details"]["fields"] == {"name": "control"}
    assert not Arena.objects.exists()


@pytest.mark.parametrize(
    "name", ["Friday night", "Café 🧑\u200d💻 club", "شب جمعه", "  spaced  "], ids=range(4)
)
def test_ordinary_names_are_kept_as_written(alice_api: APIClient, name: str) -> None:
    answer = _create(alice_api, name=name)
    assert answer.status_code == 201, answer.content
    assert answer.json()["name"] == name.strip()


def test_no_name_or_a_blank_one_takes_the_default(alice_api: APIClient) -> None:
    for name in ("", "   "):
        answer = _create(alice_api, name=name)
        assert answer.status_code == 201, answer.content
        assert answer.json()["name"] == "alice's beginner arena"


def test_an_account_keeps_at_most_its_cap_of_open_arenas(alice_api: APIClient) -> None:
    made = [_create(alice_api).json() for _ in range(rules.MAX_OPEN_ARENAS)]
    refused = assert_error(_create(alice_api), 409, "too_many_arenas")
    assert refused["error"]["details"] == {"max_arenas": rules.MAX_OPEN_ARENAS}
    assert Arena.objects.count() == rules.MAX_OPEN_ARENAS
    # A finished arena no longer counts.
    Arena.objects.filter(pk=made[0]["id"]).update(state="finished")
    assert _create(alice_api).status_code == 201


def _accounts(count: int) -> list[APIClient]:
    users = [
        User.objects.create_user(username=f"maker{i:02d}", password=PASSWORD) for i in range(count)
    ]
    return [client_for(user) for user in users]


def _fill(address: str) -> list[APIClient]:
    """rules.MAX_OPEN_ARENAS_PER_ADDRESS arenas from `address`, each account at its own cap;
    returns the accounts, and one more that has made none."""
    per_account = rules.MAX_OPEN_ARENAS
    apis = _accounts(-(-rules.MAX_OPEN_ARENAS_PER_ADDRESS // per_account) + 1)
    for n in range(rules.MAX_OPEN_ARENAS_PER_ADDRESS):
        answer = _create(apis[n // per_account], address)
        assert answer.status_code == 201, answer.content
    return apis


def test_one_address_keeps_at_most_its_cap_of_open_arenas_whatever_the_accounts() -> None:
    address = "203.0.113.9"
    apis = _fill(address)
    fresh = apis[-1]
    refused = assert_error(_create(fresh, address), 409, "too_many_arenas")
    assert refused["error"]["details"] == {
        "max_arenas_per_address": rules.MAX_OPEN_ARENAS_PER_ADDRESS
    }
    assert Arena.objects.count() == rules.MAX_OPEN_ARENAS_PER_ADDRESS
    # The same account from another address is not held back by this one's arenas.
    assert _create(fresh, "198.51.100.20").status_code == 201
    # Once one of the address's arenas has finished, the address may create another.
    first = Arena.objects.order_by("created_at").first()
    assert first is not None
    Arena.objects.filter(pk=first.pk).update(state="finished")
    assert _create(fresh, address).status_code == 201
    assert_error(_create(fresh, address), 409, "too_many_arenas")


def test_an_ipv6_address_counts_by_its_64() -> None:
    apis = _fill("2001:db8:7:1::10")
    other_host = "2001:db8:7:1:ffff:ffff:ffff:fffe"  # the same /64
    assert_error(_create(apis[-1], other_host), 409, "too_many_arenas")
    assert _create(apis[-1], "2001:db8:7:2::10").status_code == 201  # another /64
