"""The site's e-mails are written in the language of the request that causes them
(accounts/email_links.py, accounts/locale/): a French sign-up gets a French
verification mail, a Japanese reset request a Japanese one, and the counted hours and minutes
take the language's plural form. Mail goes to a real SMTP server (tests/support/smtp.py)."""

from __future__ import annotations

from email.header import decode_header, make_header
from email.message import Message
from typing import Any

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

from accounts import mail
from tests.support.personas import PASSWORD
from tests.support.smtp import Inbox, body_of, link_token, smtp_server

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def smtp(settings: Any) -> Any:
    cache.clear()  # the reset throttles
    with smtp_server(settings) as inbox:
        yield inbox
    cache.clear()


def _subject(message: Message) -> str:
    return str(make_header(decode_header(message["Subject"])))


def _sign_up(language: str, name: str, email: str) -> None:
    api = APIClient(HTTP_ACCEPT_LANGUAGE=language)
    body = {"username": name, "password": PASSWORD, "email": email}
    assert api.post("/api/auth/register", body, format="json").status_code == 201
    assert mail.flush()


def test_a_french_sign_up_gets_its_verification_mail_in_french(smtp: Inbox, settings: Any) -> None:
    settings.EMAIL_VERIFY_HOURS = 48
    _sign_up("fr-FR,fr;q=0.9", "amelie", "amelie@example.org")
    (message,) = smtp.wait_for(1)
    assert _subject(message) == "Démineur\u00a0: confirmez votre adresse e-mail"
    body = body_of(message)
    assert body.startswith("Bonjour amelie,")
    assert "(valable 48 heures)" in body
    assert link_token(message)[0] == "/account/verify-email"  # the link survives translation


def test_a_japanese_reset_request_gets_a_japanese_mail(smtp: Inbox) -> None:
    _sign_up("en", "kenji", "kenji@example.org")
    verify = APIClient().post(
        "/api/auth/email/verify", {"token": link_token(smtp.wait_for(1)[0])[1]}, format="json"
    )
    assert verify.status_code == 200 and mail.flush()  # a reset goes to a verified address
    api = APIClient(HTTP_ACCEPT_LANGUAGE="ja-JP")
    answer = api.post("/api/auth/password-reset", {"email": "kenji@example.org"}, format="json")
    assert answer.status_code == 202, answer.content
    assert mail.flush()
    message = smtp.wait_for(2)[1]
    assert _subject(message) == "Démineur：パスワードの再設定"  # noqa: RUF001
    assert body_of(message).startswith("kenji さん")
    assert link_token(message)[0] == "/account/reset-password"


@pytest.mark.parametrize(
    ("hours", "words"),
    [(1, "przez 1 godzinę"), (22, "przez 22 godziny"), (48, "przez 48 godzin")],
)
def test_the_hours_take_the_polish_plural_forms(
    smtp: Inbox, settings: Any, hours: int, words: str
) -> None:
    settings.EMAIL_VERIFY_HOURS = hours
    _sign_up("pl-PL", "tadeusz", "tadeusz@example.org")
    (message,) = smtp.wait_for(1)
    assert words in body_of(message)


def test_without_a_language_the_mail_is_english(smtp: Inbox, settings: Any) -> None:
    settings.EMAIL_VERIFY_HOURS = 1
    _sign_up("", "alice", "alice@example.org")
    (message,) = smtp.wait_for(1)
    assert _subject(message) == "Démineur: confirm your email address"
    assert "(valid 1 hour)" in body_of(message)
