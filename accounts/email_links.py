"""The links the site mails (API.md: mailed links carry the token as the query parameter
`token`) and the tokens in them (docs/ACCOUNTS.md, Email).

* **Verification**: Django's signed, timestamped token (`django.core.signing`, salted) of
  the account's id and the address, valid EMAIL_VERIFY_HOURS; it proves the address only
  while it still is the account's.
* **Password reset**: `<id in base 36>-<Django's PasswordResetTokenGenerator token>`. That
  token hashes the password, the last sign-in and the address, and carries its time: it
  works once (the reset changes the password it hashed) and for PASSWORD_RESET_TIMEOUT.

A link points at SITE_URL. Without it, at the request's own origin only when the site
declared that origin (`site_origin`): the Host header is the client's to write, and Django
checks only its host name against ALLOWED_HOSTS, never its port, so a link built from it alone
could send a reset token to any port of the site's host. With no origin to trust, nothing is
mailed (a WARNING says why) and the request is answered as usual.

A mail is written in the language of the request that causes it (LocaleMiddleware: the
page's language or the client's Accept-Language), from accounts/locale/ (docs/FRONTEND.md,
Languages).
"""

from __future__ import annotations

import logging
from urllib.parse import urlencode, urlsplit

from django.conf import settings
from django.contrib.auth.tokens import default_token_generator
from django.core import signing
from django.http import HttpRequest
from django.utils.http import base36_to_int, int_to_base36
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts import mail
from accounts.models import User
from demineur_site.errors import DomainError

VERIFY_SALT = "accounts.email-verify"
VERIFY_PATH = "/account/verify-email"
RESET_PATH = "/account/reset-password"


log = logging.getLogger(__name__)
_DEFAULT_PORTS = {"http": 80, "https": 443}


def _origin_key(origin: str) -> tuple[str, str, int | None] | None:
    """(scheme, host, port) of an origin, the scheme's default port written out."""
    try:
        parts = urlsplit(origin)
        port = parts.port or _DEFAULT_PORTS.get(parts.scheme)
    except ValueError:  # a port that is no number
        return None
    if not parts.scheme or not parts.hostname or parts.path not in ("", "/"):
        return None
    return parts.scheme.lower(), parts.hostname.lower(), port


def site_origin(request: HttpRequest) -> str:
    """The origin the links mailed because of `request` point at: SITE_URL when set; else
    the request's own origin (scheme, Host and its port) when it is exactly an entry of
    CSRF_TRUSTED_ORIGINS (the operator's list of the site's origins, ports included) or, with
    DEBUG on (`make run`), when the Host names the port the request arrived on. '' when none
    is trusted: then nothing is mailed."""
    if settings.SITE_URL:
        return str(settings.SITE_URL)
    origin = request.build_absolute_uri("/").rstrip("/")  # the Host passed ALLOWED_HOSTS
    asked = _origin_key(origin)
    if asked is None:
        return ""
    for entry in settings.CSRF_TRUSTED_ORIGINS:
        if "*" not in entry and _origin_key(entry) == asked:  # a pattern declares no origin
            return str(entry).rstrip("/")  # as the operator wrote it
    if settings.DEBUG and str(asked[2]) == str(request.META.get("SERVER_PORT")):
        return origin
    return ""


def link(site_url: str, path: str, token: str) -> str | None:
    """The link to mail, or None when there is no trusted origin (`site_origin`)."""
    base = settings.SITE_URL or site_url
    if not base:
        log.warning(
            "a mail with a link was not sent: SITE_URL is unset and the request's origin is "
            "not one the site declared (set SITE_URL, docs/ACCOUNTS.md)"
        )
        return None
    return f"{base}{path}?{urlencode({'token': token})}"


def verification_token(user: User) -> str:
    return signing.dumps({"u": user.pk, "e": user.email}, salt=VERIFY_SALT, compress=True)


def read_verification(token: str) -> tuple[int, str]:
    """(user id, address) of a verification token; 400 token_invalid if forged or expired."""
    try:
        data = signing.loads(token, salt=VERIFY_SALT, max_age=settings.EMAIL_VERIFY_HOURS * 3600)
        return int(data["u"]), str(data["e"])
    except (signing.BadSignature, KeyError, TypeError, ValueError) as exc:
        raise DomainError("token_invalid", "This link is invalid or has expired.") from exc


def send_verification(user: User, site_url: str) -> None:
    url = link(site_url, VERIFY_PATH, verification_token(user))
    if url is None:
        return
    hours = settings.EMAIL_VERIFY_HOURS
    mail.queue(
        to=user.email,
        subject=_("Démineur: confirm your email address"),
        body=ngettext(
            "Hello %(name)s,\n\nto confirm that this address is yours, open this link "
            "(valid %(hours)s hour):\n\n%(url)s\n\nIf you did not add this address to a "
            "Démineur account, ignore this message.\n",
            "Hello %(name)s,\n\nto confirm that this address is yours, open this link "
            "(valid %(hours)s hours):\n\n%(url)s\n\nIf you did not add this address to a "
            "Démineur account, ignore this message.\n",
            hours,
        )
        % {"name": user.username, "hours": hours, "url": url},
    )


def reset_token(user: User) -> str:
    return f"{int_to_base36(user.pk)}-{default_token_generator.make_token(user)}"


def read_reset(token: str, *, lock: bool = False) -> User:
    """The account a reset token is for; 400 token_invalid if it is forged, used or expired."""
    uid, _sep, rest = token.partition("-") if isinstance(token, str) else ("", "", "")
    try:
        user_id = base36_to_int(uid) if uid and len(uid) <= 13 else None
    except ValueError:
        user_id = None
    users = User.objects.select_for_update() if lock else User.objects
    user = users.filter(pk=user_id, is_active=True).first() if user_id is not None else None
    if user is None or not default_token_generator.check_token(user, rest):
        raise DomainError("token_invalid", "This link is invalid, used or expired.")
    return user


def send_reset(user: User, site_url: str) -> None:
    url = link(site_url, RESET_PATH, reset_token(user))
    if url is None:
        return
    minutes = settings.PASSWORD_RESET_TIMEOUT // 60
    mail.queue(
        to=user.email,
        subject=_("Démineur: reset your password"),
        body=ngettext(
            "Hello %(name)s,\n\nsomeone (you, we hope) asked to reset the password of your "
            "Démineur account. Open this link within %(minutes)s minute to choose a new "
            "one; it works once:\n\n%(url)s\n\nSetting a new password signs you out "
            "everywhere and revokes your API tokens. If you did not ask for this, ignore "
            "this message: your password stays as it is.\n",
            "Hello %(name)s,\n\nsomeone (you, we hope) asked to reset the password of your "
            "Démineur account. Open this link within %(minutes)s minutes to choose a new "
            "one; it works once:\n\n%(url)s\n\nSetting a new password signs you out "
            "everywhere and revokes your API tokens. If you did not ask for this, ignore "
            "this message: your password stays as it is.\n",
            minutes,
        )
        % {"name": user.username, "minutes": minutes, "url": url},
    )
