"""Names that look alike are one name (accounts/names.py).

Fullwidth letters, another case or a Cyrillic or Greek letter drawn like a Latin one never
make a second player with a name that reads the same; a name mixing scripts is refused; the
guest path stores names normalised too; sign-in finds the normalised name. The look-alike
letters are written as escapes (this file must not hold look-alikes of its own)."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from rest_framework.test import APIClient

from accounts.models import AccountKind, User
from tests.support.http import assert_error
from tests.support.personas import PASSWORD

pytestmark = pytest.mark.django_db

CYRILLIC_A = "\u0430"  # CYRILLIC SMALL LETTER A
CYRILLIC_BOB = "\u0412\u041e\u0412"  # CYRILLIC CAPITAL VE, O, VE: reads "BOB"
CYRILLIC_ACE = "\u0430\u0441\u0435"  # CYRILLIC SMALL A, ES, IE: reads "ace"
GREEK_TOP = "\u03a4\u039f\u03a1"  # GREEK CAPITAL TAU, OMICRON, RHO: reads "TOP"
MOSCOW = "\u041c\u043e\u0441\u043a\u0432\u0430"  # a real Cyrillic name
TOKYO = "Tokyo\u6771\u4eac"  # Latin and Han: Japanese writes them together


def fullwidth(text: str) -> str:
    """`text` in fullwidth forms (U+FF01-U+FF5E), as the review typed `guest-def4a4`."""
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


def _register(username: str, client: APIClient | None = None) -> Any:
    return (client or APIClient()).post(
        "/api/auth/register", {"username": username, "password": PASSWORD}, format="json"
    )


def _codes(response: Any) -> list[str]:
    body = assert_error(response, 400, "invalid")
    return list(body["error"]["details"]["codes"]["username"])


def test_a_fullwidth_guest_prefix_is_reserved_and_nothing_is_stored() -> None:
    name = fullwidth("guest-def4a4")
    assert _codes(_register(name)) == ["username_reserved"]
    assert not User.objects.filter(username_key="guest-def4a4").exists()
    assert User.objects.count() == 0


@pytest.mark.parametrize(
    "twin",
    [fullwidth("ALICE"), fullwidth("alice"), "ALICE", "A" + "lice".upper(), "alic\u0435"],
    ids=["fullwidth capitals", "fullwidth", "capitals", "mixed case", "cyrillic e"],
)
def test_a_look_alike_of_an_existing_name_is_refused(alice: User, twin: str) -> None:
    answer = _register(twin)
    assert answer.status_code == 400, answer.content
    assert set(_codes(answer)) <= {"username_taken", "username_mixed_scripts"}
    assert User.objects.count() == 1


def test_whole_script_look_alikes_of_latin_names_are_taken(db: Any) -> None:
    for latin in ("bob", "ace", "top"):
        assert _register(latin).status_code == 201
    for imitation in (CYRILLIC_BOB, CYRILLIC_ACE, GREEK_TOP):
        assert _codes(_register(imitation)) == ["username_taken"], imitation
    assert User.objects.count() == 3


def test_a_name_mixing_latin_with_cyrillic_is_refused(db: Any) -> None:
    assert _codes(_register("b" + CYRILLIC_A + "rt")) == ["username_mixed_scripts"]
    assert User.objects.count() == 0


def test_names_in_one_script_or_a_languages_own_mix_are_welcome(db: Any) -> None:
    for name in (MOSCOW, TOKYO, "Stra\u00dfe"):
        answer = _register(name)
        assert answer.status_code == 201, (name, answer.content)
        assert answer.json()["username"] == name


def test_names_are_stored_normalised(db: Any) -> None:
    answer = _register(fullwidth("Zed"))
    assert answer.status_code == 201, answer.content
    assert answer.json()["username"] == "Zed"
    user = User.objects.get()
    assert (user.username, user.username_key) == ("Zed", "zed")


def _guest_client() -> APIClient:
    client = APIClient(enforce_csrf_checks=False)
    assert client.post("/api/auth/guest").status_code == 201
    return client


def test_the_guest_path_normalises_and_checks_like_sign_up(alice: User) -> None:
    guest = _guest_client()
    assert _codes(_register(fullwidth("guest-abc123"), guest)) == ["username_reserved"]
    assert _codes(_register(fullwidth("ALICE"), guest)) == ["username_taken"]
    answer = _register(fullwidth("Wanda"), guest)
    assert answer.status_code == 201, answer.content
    user = User.objects.get(pk=answer.json()["id"])
    assert (user.kind, user.username, user.username_key) == (AccountKind.HUMAN, "Wanda", "wanda")


@pytest.mark.parametrize("path", ["/api/auth/token", "/api/auth/session"])
@pytest.mark.parametrize("typed", ["ALICE", fullwidth("alice"), fullwidth("Alice")])
def test_sign_in_finds_the_normalised_name(alice: User, path: str, typed: str) -> None:
    answer = APIClient().post(path, {"username": typed, "password": PASSWORD}, format="json")
    assert answer.status_code == 200, answer.content
    if path.endswith("session"):
        assert answer.json()["username"] == "alice"


def test_the_database_refuses_a_second_name_with_one_key(alice: User) -> None:
    with pytest.raises(IntegrityError), transaction.atomic():
        User.objects.create_user(username="Alice", password=PASSWORD)


def test_the_admins_form_check_refuses_a_look_alike(alice: User) -> None:
    with pytest.raises(ValidationError) as refused:
        User(username=fullwidth("ALICE")).full_clean(exclude=["password"])
    assert "username" in refused.value.message_dict


def test_the_rules_of_names() -> None:
    from accounts.names import mixed_scripts, name_key, normalise

    assert normalise(fullwidth("guest-x")) == "guest-x"
    assert name_key(CYRILLIC_BOB) == name_key("Bob") == "bob"
    assert mixed_scripts("p" + CYRILLIC_A + "ypal")
    assert not mixed_scripts(MOSCOW) and not mixed_scripts(TOKYO) and not mixed_scripts("a_1.b")
