"""Where an account is signed in (GET /api/me/sessions; docs/ACCOUNTS.md, Sessions).

Every signed-in browser session has a SignedInSession row: made on the first request the
session is seen signed in (`SignedInSessionMiddleware`, so sessions older than this module
are listed too), its `last_seen_at` refreshed at most every LAST_SEEN_RESOLUTION (the time
is kept in the session itself, so a request in between reads and writes nothing more).
Signing out deletes the row. Revoking a session (`session_revoke`), changing or resetting the
password (`sessions_end`) deletes the session from Django's store and the row, and closes
the sockets the session opened (accounts.socket_credentials: one kick after the commit).
API tokens are not sessions: they are listed and revoked at /api/tokens.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable
from datetime import timedelta
from importlib import import_module
from typing import Any

from django.conf import settings
from django.contrib.auth.signals import user_logged_out
from django.db import transaction
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse
from django.utils import timezone

from accounts import socket_credentials
from accounts.models import SignedInSession, User

LAST_SEEN_RESOLUTION = timedelta(minutes=5)
SEEN_KEY = "_seen_at"  # in the session: when its row was last refreshed (epoch seconds)


def approximate_address(address: str | None) -> str:
    """A client address with its host part dropped: IPv4 to its /24 (`203.0.113.0/24`), IPv6
    to its /48. Enough to tell "home" from "abroad", not to find a house."""
    if not address:
        return ""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return ""
    prefix = 24 if ip.version == 4 else 48
    return str(ipaddress.ip_network(f"{ip}/{prefix}", strict=False))


def _client_address(request: HttpRequest) -> str | None:
    from accounts.throttles import AuthAddressThrottle  # the throttles' own reading of it

    return AuthAddressThrottle().get_ident(request)  # type: ignore[arg-type]


def _store() -> Any:
    return import_module(settings.SESSION_ENGINE).SessionStore


def session_seen(request: HttpRequest) -> None:
    """Make or refresh the row of the request's signed-in session (at most every 5 minutes)."""
    user = getattr(request, "user", None)
    session = getattr(request, "session", None)
    if user is None or not user.is_authenticated or session is None:
        return
    key = session.session_key
    if not key:
        return
    now = timezone.now()
    seen = session.get(SEEN_KEY)
    if isinstance(seen, int | float) and now.timestamp() - seen < LAST_SEEN_RESOLUTION.seconds:
        return
    agent = request.META.get("HTTP_USER_AGENT", "")[:256]
    address = approximate_address(_client_address(request))
    updated = SignedInSession.objects.filter(session_key=key, user=user).update(
        last_seen_at=now, user_agent=agent, address=address
    )
    if not updated:
        SignedInSession.objects.filter(session_key=key).delete()  # another account's, before
        SignedInSession.objects.create(
            user=user, session_key=key, created_at=now, last_seen_at=now,
            user_agent=agent, address=address,
        )  # fmt: skip
    session[SEEN_KEY] = int(now.timestamp())


class SignedInSessionMiddleware:
    """After AuthenticationMiddleware: keeps the request's session row (session_seen). Reads
    the session only when the request carried a session cookie."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        # After the view: a sign-in has cycled the key by then (its new key is the row's).
        if settings.SESSION_COOKIE_NAME in request.COOKIES or (
            getattr(request, "session", None) is not None and request.session.session_key
        ):
            try:
                session_seen(request)
            except Exception:  # the bookkeeping never fails a request that succeeded
                import logging

                logging.getLogger(__name__).warning("session bookkeeping failed", exc_info=True)
        return response


@receiver(user_logged_out)
def _signed_out(sender: Any, request: HttpRequest | None, user: Any, **kwargs: Any) -> None:
    key = getattr(getattr(request, "session", None), "session_key", None)
    if key:
        SignedInSession.objects.filter(session_key=key).delete()


def sessions_of(user: User) -> list[SignedInSession]:
    return list(SignedInSession.objects.filter(user=user))


def _end(keys: list[str]) -> None:
    store = _store()
    for key in keys:
        store(key).delete()
        socket_credentials.kick_session_sockets(key)
    SignedInSession.objects.filter(session_key__in=keys).delete()


def session_revoke(*, user: User, session_id: int) -> bool:
    """Sign out one of the user's sessions and close its sockets; False if it is not theirs."""
    with transaction.atomic():
        row = SignedInSession.objects.filter(user=user, pk=session_id).first()
        if row is None:
            return False
        _end([row.session_key])
    return True


def sessions_end(*, user: User, keep: str | None = None) -> int:
    """Sign out every session of the user but `keep` (a session key), closing their sockets:
    after a password change (the current session stays) or a reset (none stays). Sessions
    with no row yet (not seen since this module came) are signed out by the password change
    itself: Django's session hash no longer matches them."""
    with transaction.atomic():
        keys = [
            key
            for key in SignedInSession.objects.filter(user=user).values_list(
                "session_key", flat=True
            )
            if key != keep
        ]
        _end(keys)
    return len(keys)
